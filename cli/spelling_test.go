package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/model"
)

// olderUnique is a unique item as OneTable before 1.8 (or with
// legacyUnique) wrote it: the model, attribute and value joined by ":",
// with no _unique prefix, and the sort key "_unique:".
func olderUnique(attr, v string) model.Item {
	return item("pk", "User:"+attr+":"+v, "sk", "_unique:", "_type", "_Unique")
}

// newerUnique is a unique item as OneTable 2 writes it.
func newerUnique(attr, v string) model.Item {
	return item("pk", "_unique#User#"+attr+"#"+v, "sk", "_unique#", "_type", "_Unique")
}

func user(id string, kv ...string) model.Item {
	return item(append([]string{"pk", "user#" + id, "sk", "user#", "_type", "User", "id", id}, kv...)...)
}

// getItem reads one item of table with a consistent read; nil when there
// is none.
func getItem(t *testing.T, client *dynamodb.Client, table, pk, sk string) model.Item {
	t.Helper()
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Item == nil {
		return nil
	}
	return dynamo.ItemFromSDK(out.Item)
}

// A OneTable table written partly in the older spelling of unique items
// (User:email:<value>, sort key _unique:) and partly in the newer one:
// each lock counts in the spelling it has, the problems name the key
// found, and the repair puts missing locks in the newer spelling, which
// the table's writer uses, and deletes the orphans where they are.
func TestPresetOlderSpelling(t *testing.T) {
	t.Parallel()
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client) // ada (clean), carol (her username's lock missing), in the newer spelling
	dynamotest.Put(t, client, table,
		// olga is clean in the older spelling.
		user("olga", "email", "olga@old.io", "username", "olga"), olderUnique("email", "olga@old.io"), olderUnique("username", "olga"),
		// An orphan in each spelling.
		olderUnique("email", "gone@old.io"), newerUnique("email", "left@new.io"),
		// mia's email has no lock in either.
		user("mia", "email", "mia@old.io"),
		// ada's username is locked in both spellings: one lock, no problem.
		olderUnique("username", "ada"),
	)
	audit := filepath.Join(t.TempDir(), "audit.log")
	args := []string{"--endpoint-url", ep, "--table", table, "--preset", "onetable:User", "--audit-log", audit}

	r := run(t, append([]string{"init"}, args[:6]...)...)
	if want := "unique items of User: 4 as _unique#User#<attr>#<value>, 4 in OneTable's older spelling User:<attr>:<value> (sort key _unique:); new locks as _unique#User#<attr>#<value>"; r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("init: exit %d\n%s\nwant it to say %s", r.code, r.stderr, want)
	}
	if !strings.Contains(r.stdout, "--lock-spelling newer") {
		t.Errorf("init proposes\n%s\nwant --lock-spelling newer", r.stdout)
	}

	r = run(t, append([]string{"check", "--json"}, args...)...)
	want := `"problems":[` +
		`{"kind":"orphan_lock","constraint":"email","value":"gone@old.io","lock":{"pk":"User:email:gone@old.io","sk":"_unique:"},"accounts":[]},` +
		`{"kind":"orphan_lock","constraint":"email","value":"left@new.io","lock":{"pk":"_unique#User#email#left@new.io","sk":"_unique#"},"accounts":[]},` +
		`{"kind":"missing_lock","constraint":"email","value":"mia@old.io","accounts":["user#mia"]},` +
		`{"kind":"missing_lock","constraint":"username","value":"carol","accounts":["user#carol"]}]`
	if r.code != cli.ExitProblems || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, `"accounts":4,"locks":8`) {
		t.Fatalf("check: exit %d\n%s%s\nwant 4 accounts, 8 locks and %s", r.code, r.stdout, r.stderr, want)
	}

	// A signup for a value whose lock is in the older spelling only is
	// refused: the value is taken.
	r = run(t, append([]string{"signup", "--yes", "--set", "id=oleg", "--set", "email=olga@old.io"}, args...)...)
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "olga@old.io is taken") {
		t.Errorf("signup with olga's email: exit %d\n%s%s\nwant it refused as taken", r.code, r.stdout, r.stderr)
	}
	if it := getItem(t, client, table, "_unique#User#email#olga@old.io", "_unique#"); it != nil {
		t.Errorf("the refused signup left a lock in the newer spelling: %v", it)
	}

	r = run(t, append([]string{"repair", "--yes"}, args...)...)
	if r.code != 0 {
		t.Fatalf("repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if it := getItem(t, client, table, "User:email:gone@old.io", "_unique:"); it != nil {
		t.Errorf("the orphan in the older spelling is still there: %v", it)
	}
	if it := getItem(t, client, table, "_unique#User#email#mia@old.io", "_unique#"); it == nil {
		t.Error("mia's lock was not put in the newer spelling")
	}
	r = run(t, append([]string{"check", "--json"}, args...)...)
	if r.code != 0 || !strings.Contains(r.stdout, `"problems":[]`) {
		t.Errorf("after the repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A table whose unique items are all in the older spelling keeps it: init
// says so and saves it, and a signup writes its locks in it.
func TestPresetOlderSpellingOnly(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client)
	// The table of an application still on OneTable 1.7: no unique item
	// in the newer spelling.
	for _, k := range [][2]string{{"_unique#User#email#ada@lovelace.io", "_unique#"}, {"_unique#User#username#ada", "_unique#"}, {"_unique#User#email#carol@example.com", "_unique#"}, {"_unique#Post#slug#hello", "_unique#"}} {
		_, err := client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k[0]}, "sk": &types.AttributeValueMemberS{Value: k[1]}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	dynamotest.Put(t, client, table, olderUnique("email", "ada@lovelace.io"), olderUnique("username", "ada"), olderUnique("email", "carol@example.com"))
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)

	r := run(t, "init", "--endpoint-url", ep, "--table", table, "--preset", "onetable:User", "--save", "app")
	if want := "unique items of User: 3 in OneTable's older spelling User:<attr>:<value> (sort key _unique:); new locks in it too"; r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("init: exit %d\n%s\nwant it to say %s", r.code, r.stderr, want)
	}
	if want := "unique attributes, from the unique items present: [email username]"; !strings.Contains(r.stderr, want) {
		t.Errorf("init: %s\nwant it to say %s", r.stderr, want)
	}
	if want := `lock-spelling: "older"`; !strings.Contains(r.stdout, want) {
		t.Errorf("init proposes\n%s\nwant %s", r.stdout, want)
	}
	r = run(t, "check", "--target", "app", "--json")
	want := `"problems":[{"kind":"missing_lock","constraint":"username","value":"carol","accounts":["user#carol"]}]`
	if r.code != cli.ExitProblems || !strings.Contains(r.stdout, want) {
		t.Errorf("check: exit %d\n%s%s\nwant %s", r.code, r.stdout, r.stderr, want)
	}

	r = run(t, "signup", "--target", "app", "--yes", "--set", "id=zoe", "--set", "email=zoe@old.io", "--set", "username=zoe",
		"--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	if r.code != 0 {
		t.Fatalf("signup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, attr := range []string{"email", "username"} {
		v := map[string]string{"email": "zoe@old.io", "username": "zoe"}[attr]
		b, _ := json.Marshal(getItem(t, client, table, "User:"+attr+":"+v, "_unique:"))
		if want := `{"_type":{"S":"_Unique"},"owner":{"S":"user#zoe"},"pk":{"S":"User:` + attr + `:` + v + `"},"sk":{"S":"_unique:"}}`; string(b) != want {
			t.Errorf("zoe's %s lock %s, want %s", attr, b, want)
		}
		if it := getItem(t, client, table, "_unique#User#"+attr+"#"+v, "_unique#"); it != nil {
			t.Errorf("the signup wrote a lock in the newer spelling: %v", it)
		}
	}
	// --unique ATTR with the preset reads the spelling from the table too.
	r = run(t, "signup", "--endpoint-url", ep, "--table", table, "--preset", "onetable:User", "--unique", "email", "--yes",
		"--set", "id=uma", "--set", "email=uma@old.io", "--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	if r.code != 0 || getItem(t, client, table, "User:email:uma@old.io", "_unique:") == nil {
		t.Errorf("signup --preset --unique email: exit %d\n%s%s\nwant its lock in the older spelling", r.code, r.stdout, r.stderr)
	}
	// --lock-spelling newer, given, overrides what the table uses.
	r = run(t, "signup", "--target", "app", "--lock-spelling", "newer", "--yes", "--set", "id=zak", "--set", "email=zak@new.io",
		"--audit-log", filepath.Join(t.TempDir(), "audit.log"))
	if r.code != 0 || getItem(t, client, table, "_unique#User#email#zak@new.io", "_unique#") == nil {
		t.Errorf("signup --lock-spelling newer: exit %d\n%s%s\nwant its lock in the newer spelling", r.code, r.stdout, r.stderr)
	}
	r = run(t, "check", "--target", "app", "--json")
	if r.code != cli.ExitProblems || !strings.Contains(r.stdout, want) {
		t.Errorf("check after the signups: exit %d\n%s%s\nwant %s", r.code, r.stdout, r.stderr, want)
	}
}

// On a table with TTL, a lock in the older spelling is judged as one in
// the newer: an expired one is taken over by a signup (its put, and the
// check of the older key, take an expired lock as free), a live one
// refuses the signup, naming it.
func TestPresetOlderSpellingTTL(t *testing.T) {
	t.Parallel()
	clocktest.Each(t, presetOlderSpellingTTL)
}

func presetOlderSpellingTTL(t *testing.T, at time.Time) {
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client)
	run := func(t *testing.T, args ...string) result { return runAt(t, clock.Fixed(at), args...) }
	now := at.Unix()
	expired, live := olderUnique("email", "old@x.io"), olderUnique("email", "held@x.io")
	expired["ttl"], live["ttl"] = model.N(strconv.FormatInt(now-3600, 10)), model.N(strconv.FormatInt(now+3600, 10))
	dynamotest.Put(t, client, table, expired, live)
	args := []string{"--endpoint-url", ep, "--table", table, "--preset", "onetable:User", "--ttl-attr", "ttl",
		"--audit-log", filepath.Join(t.TempDir(), "audit.log")}

	r := run(t, append([]string{"check", "--json"}, args...)...)
	want := `{"kind":"expired_lock","constraint":"email","value":"old@x.io","lock":{"pk":"User:email:old@x.io","sk":"_unique:"},"accounts":[],"expires_at":` + strconv.FormatInt(now-3600, 10) + `}`
	if !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, `"reservations":1`) {
		t.Errorf("check: exit %d\n%s%s\nwant %s and one reservation", r.code, r.stdout, r.stderr, want)
	}

	r = run(t, append([]string{"signup", "--yes", "--set", "id=olive", "--set", "email=old@x.io"}, args...)...)
	if r.code != 0 || getItem(t, client, table, "_unique#User#email#old@x.io", "_unique#") == nil {
		t.Errorf("signup over the expired older lock: exit %d\n%s%s\nwant it committed, its lock in the newer spelling", r.code, r.stdout, r.stderr)
	}
	r = run(t, append([]string{"signup", "--yes", "--set", "id=hal", "--set", "email=held@x.io"}, args...)...)
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "email held@x.io is reserved until") || !strings.Contains(r.stdout+r.stderr, "User:email:held@x.io") {
		t.Errorf("signup for the live older reservation: exit %d\n%s%s\nwant it refused, naming the reservation", r.code, r.stdout, r.stderr)
	}
	// The expired older lock is left for DynamoDB to delete: the value's
	// lock is the one written.
	r = run(t, append([]string{"check", "--json"}, args...)...)
	if strings.Contains(r.stdout, "old@x.io") {
		t.Errorf("check after the signup: %s\nwant old@x.io healthy", r.stdout)
	}
}

// The older spelling as OneTable's issue tracker writes it,
// _Unique:User:email:<value> (sort key _unique:), is recognised as well:
// init says which it saw and saves it, check reports the keys found, the
// repair deletes an orphan where it is, and on a table whose unique items
// are all in it a signup writes its locks in it too.
func TestPresetOlderSpellingUniqueMark(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client) // ada (clean), carol (her username's lock missing), in the newer spelling
	marked := func(attr, v string) model.Item {
		return item("pk", "_Unique:User:"+attr+":"+v, "sk", "_unique:", "_type", "_Unique")
	}
	dynamotest.Put(t, client, table,
		user("olga", "email", "olga@old.io", "username", "olga"), marked("email", "olga@old.io"), marked("username", "olga"),
		marked("email", "gone@old.io"))
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	audit := filepath.Join(t.TempDir(), "audit.log")

	r := run(t, "init", "--endpoint-url", ep, "--table", table, "--preset", "onetable:User", "--save", "app")
	if want := "3 in OneTable's older spelling _Unique:User:<attr>:<value> (sort key _unique:); new locks as _unique#User#<attr>#<value>"; r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("init: exit %d\n%s\nwant it to say %s", r.code, r.stderr, want)
	}
	if want := `older-spelling: "_Unique:User:"`; !strings.Contains(r.stdout, want) {
		t.Errorf("init proposes\n%s\nwant %s", r.stdout, want)
	}
	r = run(t, "check", "--target", "app", "--json")
	want := `"problems":[` +
		`{"kind":"orphan_lock","constraint":"email","value":"gone@old.io","lock":{"pk":"_Unique:User:email:gone@old.io","sk":"_unique:"},"accounts":[]},` +
		`{"kind":"missing_lock","constraint":"username","value":"carol","accounts":["user#carol"]}]`
	if r.code != cli.ExitProblems || !strings.Contains(r.stdout, want) {
		t.Fatalf("check: exit %d\n%s%s\nwant %s", r.code, r.stdout, r.stderr, want)
	}
	r = run(t, "repair", "--target", "app", "--yes", "--audit-log", audit)
	if r.code != 0 || getItem(t, client, table, "_Unique:User:email:gone@old.io", "_unique:") != nil {
		t.Fatalf("repair: exit %d\n%s%s\nwant the orphan deleted where it is", r.code, r.stdout, r.stderr)
	}
	if r = run(t, "check", "--target", "app", "--json"); r.code != 0 {
		t.Errorf("after the repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// New locks in the marked older spelling, where it is the one used.
	plan := run(t, "signup", "--target", "app", "--lock-spelling", "older", "--dry-run", "--set", "id=zoe", "--set", "email=zoe@old.io", "--set", "username=zoe")
	if plan.code != 0 || !strings.Contains(plan.stdout, `"pk":{"S":"_Unique:User:email:zoe@old.io"},"sk":{"S":"_unique:"}`) {
		t.Errorf("signup --lock-spelling older: exit %d\n%s%s\nwant its locks as _Unique:User:email:zoe@old.io", plan.code, plan.stdout, plan.stderr)
	}
}
