package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// oneTableTable creates a table keyed pk, sk holding items as OneTable
// 2.7 writes them (see testdata/libs/onetable.mjs): users ada (healthy)
// and carol (her username's unique item missing), a Guest with ada's
// email, and a Post with its own unique item.
func oneTableTable(t *testing.T, client *dynamodb.Client) string {
	t.Helper()
	table := dynamotest.Name(t, "onetable")
	_, err := client.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cleanup(t, client, table)
	dynamotest.Put(t, client, table,
		item("pk", "user#ada", "sk", "user#", "_type", "User", "id", "ada", "email", "ada@lovelace.io", "username", "ada"),
		item("pk", "_unique#User#email#ada@lovelace.io", "sk", "_unique#", "_type", "_Unique"),
		item("pk", "_unique#User#username#ada", "sk", "_unique#", "_type", "_Unique"),
		item("pk", "user#carol", "sk", "user#", "_type", "User", "id", "carol", "email", "carol@example.com", "username", "carol"),
		item("pk", "_unique#User#email#carol@example.com", "sk", "_unique#", "_type", "_Unique"),
		item("pk", "user#g1", "sk", "user#", "_type", "Guest", "id", "g1", "email", "ada@lovelace.io"),
		item("pk", "post#p1", "sk", "post#", "_type", "Post", "id", "p1", "slug", "hello"),
		item("pk", "_unique#Post#slug#hello", "sk", "_unique#", "_type", "_Unique"),
	)
	return table
}

// item is an item of string attributes, from name, value pairs.
func item(kv ...string) model.Item {
	it := model.Item{}
	for i := 0; i+1 < len(kv); i += 2 {
		it[kv[i]] = model.S(kv[i+1])
	}
	return it
}

// The two kinds a library never writes by itself, on a table in its
// format: a lock locktable wrote that names an account which no longer
// holds the value (foreign_lock), and a unique attribute that is not a
// string (invalid_value). The foreign lock is handed to its holder.
func TestPresetForeignAndInvalid(t *testing.T) {
	t.Parallel()
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client)
	frank := item("pk", "user#frank", "sk", "user#", "_type", "User", "id", "frank")
	frank["email"] = model.N("7")
	dynamotest.Put(t, client, table,
		item("pk", "user#dave", "sk", "user#", "_type", "User", "id", "dave", "email", "dave@example.com"),
		item("pk", "_unique#User#email#dave@example.com", "sk", "_unique#", "_type", "_Unique", "owner", "user#erin"),
		frank)
	args := []string{"--endpoint-url", ep, "--table", table, "--preset", "onetable:User", "--unique", "email",
		"--audit-log", filepath.Join(t.TempDir(), "audit.log")}
	r := run(t, append([]string{"check", "--json"}, args...)...)
	for _, want := range []string{
		`{"kind":"foreign_lock","constraint":"email","value":"dave@example.com","lock":{"pk":"_unique#User#email#dave@example.com","sk":"_unique#"},"owner":"user#erin","accounts":["user#dave"]}`,
		`{"kind":"invalid_value","constraint":"email","value":"{\"N\":\"7\"}","accounts":["user#frank"]}`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("check: exit %d\n%s\nwant %s", r.code, r.stdout, want)
		}
	}
	if !strings.Contains(r.stdout, `"problems":[{`) || strings.Count(r.stdout, `"kind"`) != 2 {
		t.Errorf("check found other problems than these two: %s", r.stdout)
	}
	r = run(t, append([]string{"repair", "--yes", "--kind", "foreign_lock"}, append(args, "--json")...)...)
	if r.code != 0 || !strings.Contains(r.stdout, `"outcome":"committed"`) {
		t.Fatalf("repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, append([]string{"check", "--json"}, args...)...)
	if strings.Contains(r.stdout, "foreign_lock") || !strings.Contains(r.stdout, "invalid_value") {
		t.Errorf("after the repair: %s", r.stdout)
	}
}

// A preset reads the keys, the accounts' sort key and the unique
// attributes from the table; init --save keeps the preset in a target,
// and check --target finds the same problem through it.
func TestPresetInitSaveCheck(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client)
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	path := filepath.Join(home, "locktable", "config.yaml")

	r := run(t, "init", "--endpoint-url", ep, "--table", table, "--preset", "onetable:User", "--save", "app")
	if r.code != 0 {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"accounts: 2 items with _type=User and sk user#", "unique attributes, from the unique items present: [email username]",
		`id attribute: id (on all 2 accounts, pk is "user#" and then id)`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("init says %q, want it to say %q", r.stderr, want)
		}
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"preset: onetable:User", "account-sk: user#", "unique: [email, username]", "id-attr: id=user#"} {
		if !strings.Contains(string(saved), want) {
			t.Errorf("saved target lacks %s:\n%s", want, saved)
		}
	}

	r = run(t, "check", "--target", "app", "--json")
	if r.code != cli.ExitProblems {
		t.Fatalf("check --target app: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	want := `"problems":[{"kind":"missing_lock","constraint":"username","value":"carol","accounts":["user#carol"]}]`
	if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, `"accounts":2,"locks":3`) {
		t.Errorf("check: %s\nwant 2 accounts, 3 locks and %s", r.stdout, want)
	}

	// The repair puts the lock OneTable would: _type=_Unique, and the owner.
	r = run(t, "repair", "--target", "app", "--yes", "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	if r.code != 0 {
		t.Fatalf("repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "_unique#User#username#carol"}, "sk": &types.AttributeValueMemberS{Value: "_unique#"}}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(dynamo.ItemFromSDK(out.Item))
	got := string(b)
	if want := `{"_type":{"S":"_Unique"},"owner":{"S":"user#carol"},"pk":{"S":"_unique#User#username#carol"},"sk":{"S":"_unique#"}}`; got != want {
		t.Errorf("repaired lock %s, want %s", got, want)
	}

	// A signup through the target writes the id OneTable builds the key
	// from: given as --id, or as --set id alone.
	for _, args := range [][]string{{"--id", "user#yan"}, {"--set", "id=yan2"}} {
		id := strings.TrimPrefix(args[1], "id=")
		id = strings.TrimPrefix(id, "user#")
		r = run(t, append([]string{"signup", "--target", "app", "--yes", "--set", "email=" + id + "@example.com",
			"--audit-log", filepath.Join(t.TempDir(), "audit.log")}, args...)...)
		if r.code != 0 {
			t.Fatalf("signup %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
		out, err = client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "user#" + id}, "sk": &types.AttributeValueMemberS{Value: "user#"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := dynamo.ItemFromSDK(out.Item)["id"]; got.Kind != model.KindS || got.S != id {
			t.Errorf("signup %v: the account's id is %v, want %s", args, got, id)
		}
	}
	// An id that is not the key's is refused.
	r = run(t, "signup", "--target", "app", "--yes", "--id", "user#zed", "--set", "id=zod", "--set", "email=zed@example.com")
	wantError(t, r, cli.ExitError, "id", `"zed", not "zod"`)
}

// Init on a OneTable model whose unique email is scoped by org infers the
// scope from the accounts' org values, and the check with that schema
// finds the duplicate within one org only.
func TestPresetInfersScope(t *testing.T) {
	t.Parallel()
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client)
	member := func(id, org, email string) model.Item {
		return item("pk", "member#"+id, "sk", "member#", "_type", "Member", "id", id, "org", org, "email", email)
	}
	dynamotest.Put(t, client, table,
		member("m1", "acme", "ada@x.io"), item("pk", "_unique#acme#Member#email#ada@x.io", "sk", "_unique#", "_type", "_Unique"),
		member("m2", "globex", "ada@x.io"), item("pk", "_unique#globex#Member#email#ada@x.io", "sk", "_unique#", "_type", "_Unique"),
		member("m3", "acme", "ada@x.io"))
	r := run(t, "init", "--endpoint-url", ep, "--table", table, "--preset", "onetable:Member")
	if r.code != 0 {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if want := "email is unique per org: 2 of the 2 scopes"; !strings.Contains(r.stderr, want) {
		t.Errorf("init says %q, want %q", r.stderr, want)
	}
	if want := `--unique 'email=_unique#${org}#Member#email#'`; !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "--id-attr 'id=member#'") {
		t.Errorf("init proposes %s\nwant %s and --id-attr 'id=member#'", r.stdout, want)
	}
	r = run(t, "check", "--endpoint-url", ep, "--table", table, "--preset", "onetable:Member", "--json")
	want := `"problems":[{"kind":"duplicate_value","constraint":"email","value":"acme#Member#email#ada@x.io","lock":{"pk":"_unique#acme#Member#email#ada@x.io","sk":"_unique#"},"accounts":["member#m1","member#m3"]}]`
	if r.code != cli.ExitProblems || !strings.Contains(r.stdout, want) {
		t.Errorf("check: exit %d\n%s%s\nwant %s", r.code, r.stdout, r.stderr, want)
	}

	// A second attribute holding the same scopes: init does not guess.
	dynamotest.Put(t, client, table,
		item("pk", "member#m1", "sk", "member#", "_type", "Member", "id", "m1", "org", "acme", "tenant", "acme", "email", "ada@x.io"),
		item("pk", "member#m2", "sk", "member#", "_type", "Member", "id", "m2", "org", "globex", "tenant", "globex", "email", "ada@x.io"))
	r = run(t, "init", "--endpoint-url", ep, "--table", table, "--preset", "onetable:Member")
	wantError(t, r, cli.ExitError, "several attributes of the accounts hold them (org, tenant)", "--scope email=ATTR", "--unique")
}

func TestPresetFlagErrors(t *testing.T) {
	t.Parallel()
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"unknown library", []string{"--preset", "dynamoose:User"}, []string{"--preset", "onetable:MODEL"}},
		{"no model", []string{"--preset", "onetable"}, []string{"--preset"}},
		{"layout tables", []string{"--preset", "onetable:User", "--layout", "tables"}, []string{"--preset", "--layout single"}},
		{"scope without onetable", []string{"--unique", "email=U#", "--scope", "email=org"}, []string{"--scope", "${SCOPE}"}},
		{"account-type without value", []string{"--account-type", "_type"}, []string{"--account-type", "ATTR=VALUE"}},
		{"no such model", []string{"--preset", "onetable:Order"}, []string{"--account-sk", "_type=Order"}},
		{"model without unique items", []string{"--preset", "onetable:Guest"}, []string{"--unique", "no unique item"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := run(t, append([]string{"check", "--endpoint-url", ep, "--table", table}, c.args...)...)
			wantError(t, r, cli.ExitError, c.want...)
		})
	}
	// sql reads nothing from the table: a preset's key names are given;
	// an account type is a condition of the query.
	wantError(t, run(t, "sql", "--preset", "onetable:User", "--unique", "email", "--account-sk", "user#"), cli.ExitError, "sql", "--preset", "give --pk, --sk")
	r := run(t, "sql", "--dialect", "duckdb", "--account-type", "kind=user", "--account-prefix", "")
	if r.code != 0 || !strings.Contains(r.stdout, "= 'user', FALSE)") {
		t.Errorf("sql --account-type: exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
}

// TestPresetAsksWhichTable: a preset without --table takes the endpoint's
// only table (or the default one); among several it asks, naming them,
// rather than looking for a table "accounts" the application never made
// (which it did before).
func TestPresetAsksWhichTable(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	one, other := oneTableTable(t, client), oneTableTable(t, client)
	r := run(t, "init", "--endpoint-url", ep, "--preset", "onetable:User")
	wantError(t, r, cli.ExitError, "which table? pass --table", one, other)
}

// A given --id-attr takes the prefix before the id from the accounts'
// keys, so that signups key the id as the library does; an --id-attr no account
// carries gets no prefix, and init says why.
func TestPresetGivenIDAttr(t *testing.T) {
	t.Parallel()
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client)
	r := run(t, "init", "--endpoint-url", ep, "--table", table, "--preset", "onetable:User", "--id-attr", "id")
	if r.code != 0 || !strings.Contains(r.stdout, "--id-attr 'id=user#'") || strings.Contains(r.stdout, "--account-prefix") {
		t.Errorf("init --id-attr id: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, "init", "--endpoint-url", ep, "--table", table, "--preset", "onetable:User", "--id-attr", "uid")
	if r.code != 0 || strings.Contains(r.stdout, "--account-prefix") || !strings.Contains(r.stdout, "--id-attr uid ") ||
		!strings.Contains(r.stderr, "id attribute uid: not the end of every account's pk") {
		t.Errorf("init --id-attr uid: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// The prefix before the id keys new accounts only: a preset's accounts
// are told by their type, so an item of the model keyed otherwise is
// still judged (here, its email has no lock).
func TestPresetIDPrefixKeepsEveryAccount(t *testing.T) {
	t.Parallel()
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client)
	dynamotest.Put(t, client, table, item("pk", "legacy#lin", "sk", "user#", "_type", "User", "id", "lin", "email", "lin@x.io"))
	r := run(t, "check", "--endpoint-url", ep, "--table", table, "--preset", "onetable:User", "--id-attr", "id=user#", "--json")
	want := `{"kind":"missing_lock","constraint":"email","value":"lin@x.io","accounts":["legacy#lin"]}`
	if r.code != cli.ExitProblems || !strings.Contains(r.stdout, want) {
		t.Errorf("check: exit %d\n%s%s\nwant %s", r.code, r.stdout, r.stderr, want)
	}
}
