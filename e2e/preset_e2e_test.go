package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/dynamo/export"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// library is a Node data-access library whose own writes the preset
// tests check: testdata/libs/<script> plants a table through it (healthy
// creates, then one problem of each kind that the library or code beside
// it leaves behind) and calls it afterwards.
type library struct {
	name    string // the Makefile target that installs it
	script  string
	dirEnv  string // where the Makefile says it installed it
	pkg     string // a file under node_modules that must be there
	preset  string
	account func(id string) string // the key of a user with id
	// planted is what check --json must report, exactly: "kind
	// constraint value holders" lines.
	planted []string
	// repaired is a value each problem a machine may fix was about, with
	// its attribute: after the repair the library's create must be
	// refused (a lock put) or accepted (an orphan lock deleted).
	locked, released map[string]string
}

var libraries = []library{{
	name: "onetable", script: "onetable.mjs", dirEnv: "ONETABLE_NODE_DIR",
	pkg: "dynamodb-onetable/package.json", preset: "onetable:User",
	account: func(id string) string { return "user#" + id },
	planted: []string{
		"duplicate_value email ada@lovelace.io [user#ada user#eve]", // a raw put of eve
		"orphan_lock email bob@example.com []",                      // bob removed by a schema without unique
		"orphan_lock username bob []",
		"missing_lock email carol@example.com [user#carol]", // a remove of a user that does not exist, given carol's email
		"missing_lock username carol [user#carol]",          // a raw update of carol
	},
	locked:   map[string]string{"username": "carol", "email": "carol@example.com"},
	released: map[string]string{"email": "bob@example.com", "username": "bob"},
}, {
	name: "typedorm", script: "typedorm.mjs", dirEnv: "TYPEDORM_NODE_DIR",
	pkg: "@typedorm/core/package.json", preset: "typedorm:user",
	account: func(id string) string { return "USER#" + id },
	planted: []string{
		"duplicate_value email ada@lovelace.io [USER#ada USER#eve]", // a raw put of eve
		"orphan_lock email bob@example.com []",                      // bob's item deleted raw
		"orphan_lock email carol@example.com []",                    // carol's email changed raw
		"missing_lock email carol@new.example [USER#carol]",
		"orphan_lock username bob []",
	},
	locked:   map[string]string{"email": "carol@new.example"},
	released: map[string]string{"email": "bob@example.com", "username": "bob"},
}}

// libDir returns where `make NAME` installed a library. Without it, or
// without node, the test is skipped on a developer's machine and fails
// in CI.
func libDir(t *testing.T, lib library) string {
	t.Helper()
	dir := os.Getenv(lib.dirEnv)
	if dir == "" {
		matches, _ := filepath.Glob(filepath.Join(root, ".tools", lib.name+"-*"))
		if len(matches) > 0 {
			dir = matches[len(matches)-1]
		}
	}
	dir, _ = filepath.Abs(dir)
	_, errPkg := os.Stat(filepath.Join(dir, "node_modules", lib.pkg))
	_, errNode := exec.LookPath("node")
	if errPkg != nil || errNode != nil {
		msg := fmt.Sprintf("%s for node not found (%v, %v): run `make %s`, or `make test`", lib.name, errPkg, errNode, lib.name)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// node runs the library's script with args and returns its exit status
// and stdout; any status but 0 and 3 (a unique value taken) fails.
func (lib library) node(t *testing.T, env map[string]string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join("testdata", "libs", lib.script)}, args...)...)
	cmd.Env = environ(env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr) && exitErr.ExitCode() == 3:
		return 3, stdout.String()
	case err != nil:
		t.Fatalf("node %s %v: %v\n%s", lib.script, args, err, stderr.String())
	}
	return 0, stdout.String()
}

// presetProblems runs check --preset --json and renders its problems as
// "kind constraint value holders" lines.
func presetProblems(t *testing.T, args []string) (accounts int, lines []string) {
	t.Helper()
	r := locktable(t, nil, append([]string{"check", "--json"}, args...)...)
	if r.code > 1 {
		t.Fatalf("check: exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Accounts int `json:"accounts"`
		Problems []struct {
			Kind, Constraint, Value string
			Accounts                []string
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("check --json: %v: %s", err, r.stdout)
	}
	for _, p := range rep.Problems {
		lines = append(lines, fmt.Sprintf("%s %s %s %v", p.Kind, p.Constraint, p.Value, p.Accounts))
	}
	slices.Sort(lines)
	return rep.Accounts, lines
}

// TestE2EPresets plants a table through each library itself, then: check
// --preset classifies exactly what was planted (other models' items and
// unique items counted, not judged), repair fixes what a machine may fix
// and the library reads the result back (a put lock refuses its create, a
// deleted orphan lets it create), and a signup and delete by locktable are
// seen by the library as its own.
func TestE2EPresets(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	for _, lib := range libraries {
		t.Run(lib.name, func(t *testing.T) {
			table, env, args := lib.plant(t, ep, "plant")
			accounts, got := presetProblems(t, args)
			want := slices.Sorted(slices.Values(lib.planted))
			if !slices.Equal(got, want) {
				t.Fatalf("check found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			if accounts != 3 { // ada, carol, eve: not the other model's, not bob (gone)
				t.Errorf("accounts %d, want 3", accounts)
			}
			exportAgrees(t, table, lib.preset, nil, args)

			dup := repairLeavesTheDuplicates(t, args, want)

			// The lock a repair put refuses the library's create; the
			// orphans it deleted are free again.
			for attr, v := range lib.locked {
				if code, out := lib.node(t, env, "create", userJSON("dan", attr, v)); code != 3 {
					t.Errorf("library create with %s %s after the repair put its lock: exit %d (%s), want refused", attr, v, code, out)
				}
			}
			if code, _ := lib.node(t, env, "create", userJSON("bo2", flatten(lib.released)...)); code != 0 {
				t.Errorf("library create with the released values %v: exit %d, want created", lib.released, code)
			}

			// A rename by locktable releases the library's unique item and
			// takes the new value: the library agrees on both.
			r := locktable(t, nil, append([]string{"rename", lib.account("ada"), "--set", "username=countess", "--yes"}, args...)...)
			if r.code != 0 {
				t.Fatalf("rename: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if code, _ := lib.node(t, env, "create", userJSON("ann", "username", "countess")); code != 3 {
				t.Errorf("library create with the username locktable's rename took: exit %d, want refused", code)
			}
			if code, _ := lib.node(t, env, "create", userJSON("ada2", "username", "ada")); code != 0 {
				t.Errorf("library create with the username locktable's rename released: exit %d, want created", code)
			}

			// A signup by locktable is the library's user.
			zed := lib.account("zed")
			r = locktable(t, nil, append([]string{"signup", "--yes", "--id", zed, "--set", "id=zed",
				"--set", "email=zed@example.com", "--set", "username=zed"}, args...)...)
			if r.code != 0 {
				t.Fatalf("signup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if _, got = presetProblems(t, args); !slices.Equal(got, dup) { // zed is an account, with its locks
				t.Errorf("after the signup, check found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(dup, "\n  "))
			}
			if _, out := lib.node(t, env, "get", "zed"); !strings.Contains(out, `"email":"zed@example.com"`) {
				t.Errorf("library get zed after locktable's signup: %s", out)
			}
			if code, _ := lib.node(t, env, "create", userJSON("zed2", "email", "zed@example.com")); code != 3 {
				t.Errorf("library create with zed's email after locktable's signup: exit %d, want refused", code)
			}
			// A signup given no id attribute writes it all the same, as
			// the library would (the id in the key, after its prefix):
			// the library's get by id finds the account, with its id.
			r = locktable(t, nil, append([]string{"signup", "--yes", "--id", lib.account("yan"),
				"--set", "email=yan@example.com", "--set", "username=yan"}, args...)...)
			if r.code != 0 {
				t.Fatalf("signup without the id attribute: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if _, out := lib.node(t, env, "get", "yan"); !strings.Contains(out, `"id":"yan"`) || !strings.Contains(out, `"email":"yan@example.com"`) {
				t.Errorf("library get yan after locktable's signup without --set id: %s", out)
			}
			// ... and a signup given only the id attribute keys the account
			// by it.
			r = locktable(t, nil, append([]string{"signup", "--yes", "--set", "id=yul",
				"--set", "email=yul@example.com", "--set", "username=yul"}, args...)...)
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, lib.account("yul")) {
				t.Fatalf("signup with only the id attribute: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if _, out := lib.node(t, env, "get", "yul"); !strings.Contains(out, `"email":"yul@example.com"`) {
				t.Errorf("library get yul after locktable's signup with --set id=yul: %s", out)
			}
			r = locktable(t, nil, append([]string{"delete", zed, "--yes"}, args...)...)
			if r.code != 0 {
				t.Fatalf("delete: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if code, _ := lib.node(t, env, "create", userJSON("zed3", "email", "zed@example.com", "username", "zed")); code != 0 {
				t.Errorf("library create with zed's values after locktable deleted zed: exit %d, want created", code)
			}
			// What the library created since is healthy to locktable.
			if _, got = presetProblems(t, args); !slices.Equal(got, dup) {
				t.Errorf("at the end, check found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(dup, "\n  "))
			}
		})
	}
}

// plant has the library's script plant its fixture (command cmd) in a
// table of its own, in parallel with the other tests, and returns the table, the script's
// environment and the arguments that check it with the library's preset.
func (lib library) plant(t *testing.T, ep, cmd string) (table string, env map[string]string, args []string) {
	t.Helper()
	dir := libDir(t, lib)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table = dynamotest.Name(t, lib.name)
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, table) })
	env = map[string]string{"LOCKTABLE_TEST_ENDPOINT": ep, "TABLE": table, lib.dirEnv: dir, "NODE_NO_WARNINGS": "1"}
	lib.node(t, env, cmd)
	args = []string{"--endpoint-url", ep, "--table", table, "--preset", lib.preset,
		"--audit-log", filepath.Join(t.TempDir(), "audit.log")}
	return table, env, args
}

// repairLeavesTheDuplicates runs repair --yes with args, then checks that
// of the problems check found (want, as presetProblems renders them) the
// duplicates alone are left, to a person; it returns them.
func repairLeavesTheDuplicates(t *testing.T, args, want []string) []string {
	t.Helper()
	r := locktable(t, nil, append([]string{"repair", "--yes"}, args...)...)
	if r.code != 0 {
		t.Fatalf("repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	_, got := presetProblems(t, args)
	dup := slices.DeleteFunc(slices.Clone(want), func(l string) bool { return !strings.HasPrefix(l, "duplicate_value ") })
	if !slices.Equal(got, dup) {
		t.Fatalf("after repair, check found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(dup, "\n  "))
	}
	return dup
}

// userJSON is a user with id and the attributes given (pairs), every
// unique attribute set (TypeDORM requires them all): the others get
// values of their own.
func userJSON(id string, pairs ...string) string {
	u := map[string]string{"id": id, "email": id + "@example.com", "username": id}
	for i := 0; i+1 < len(pairs); i += 2 {
		u[pairs[i]] = pairs[i+1]
	}
	b, _ := json.Marshal(u)
	return string(b)
}

func flatten(m map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k, m[k])
	}
	return out
}

// plantOneTable plants the OneTable fixture (testdata/libs/onetable.mjs)
// in a table of its own, in parallel with the other tests, and returns
// the endpoint, the table, a client and the script's environment, whose
// calls read model ("" for User).
func plantOneTable(t *testing.T, model string) (ep, table string, client *dynamodb.Client, env map[string]string) {
	t.Helper()
	ep = dynamotest.Endpoint(t)
	lib := libraries[0]
	dir := libDir(t, lib)
	t.Parallel()
	client, _ = dynamotest.Client(t)
	table = dynamotest.Name(t, "onetable")
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, table) })
	env = map[string]string{"LOCKTABLE_TEST_ENDPOINT": ep, "TABLE": table, lib.dirEnv: dir, "NODE_NO_WARNINGS": "1"}
	if model != "" {
		env["MODEL"] = model
	}
	lib.node(t, env, "plant")
	return ep, table, client, env
}

// TestE2EOneTableScope checks a OneTable model whose unique email is
// scoped by org: the same email in two orgs is fine, twice in one org is
// a duplicate; locktable's signup takes the value in its org only.
func TestE2EOneTableScope(t *testing.T) {
	lib := libraries[0]
	ep, table, _, env := plantOneTable(t, "Member")

	args := []string{"--endpoint-url", ep, "--table", table, "--preset", "onetable:Member", "--unique", "email", "--scope", "email=org",
		"--audit-log", filepath.Join(t.TempDir(), "audit.log")}
	accounts, got := presetProblems(t, args)
	want := []string{"duplicate_value email acme#Member#email#ada@lovelace.io [member#m1 member#m4]"}
	if !slices.Equal(got, want) || accounts != 4 {
		t.Fatalf("check found %d accounts and\n  %s\nwant 4 and\n  %s", accounts, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	exportAgrees(t, table, "onetable:Member", func(s *model.Schema) error {
		s.Constraints = []model.Constraint{{Attr: "email", Prefix: model.Preset{Schema: s}.Prefix("email"), Normalize: model.NormalizeNone}}
		return model.Preset{Schema: s}.ScopeConstraint(0, "org")
	}, args)
	// Init, without --unique or --scope, reads the scope from the
	// unique items and the members' org; the check with that schema is
	// the same, exactly.
	r := locktable(t, nil, "init", "--endpoint-url", ep, "--table", table, "--preset", "onetable:Member")
	if r.code != 0 || !strings.Contains(r.stderr, "email is unique per org") || !strings.Contains(r.stdout, `--unique 'email=_unique#${org}#Member#email#'`) {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	inferred := []string{"--endpoint-url", ep, "--table", table, "--preset", "onetable:Member"}
	if accounts, got := presetProblems(t, inferred); !slices.Equal(got, want) || accounts != 4 {
		t.Fatalf("check with the inferred scope found %d accounts and\n  %s\nwant 4 and\n  %s", accounts, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	r = locktable(t, nil, append([]string{"signup", "--yes", "--id", "member#m9", "--set", "id=m9", "--set", "org=initech",
		"--set", "email=ada@lovelace.io"}, args...)...)
	if r.code != 0 {
		t.Fatalf("signup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if code, _ := lib.node(t, env, "create", `{"id":"m10","org":"initech","email":"ada@lovelace.io"}`); code != 3 {
		t.Errorf("library create in initech with the email locktable's signup took there: exit %d, want refused", code)
	}
	if code, _ := lib.node(t, env, "create", `{"id":"m11","org":"hooli","email":"ada@lovelace.io"}`); code != 0 {
		t.Errorf("library create of the same email in another org: exit %d, want created", code)
	}
	// A member signed up without its id is found by the library's get.
	r = locktable(t, nil, append([]string{"signup", "--yes", "--id", "member#m12", "--set", "org=initech",
		"--set", "email=m12@example.com"}, args...)...)
	if r.code != 0 {
		t.Fatalf("signup without the id attribute: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, out := lib.node(t, env, "get", "m12"); !strings.Contains(out, `"id":"m12"`) || !strings.Contains(out, `"org":"initech"`) {
		t.Errorf("library get m12 after locktable's signup without --set id: %s", out)
	}
	if _, got = presetProblems(t, args); !slices.Equal(got, want) {
		t.Errorf("at the end, check found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if _, got = presetProblems(t, inferred); !slices.Equal(got, want) {
		t.Errorf("at the end, check with the inferred scope found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// exportAgrees exports table as DynamoDB would (from a consistent scan,
// as tools/exportdump does) and checks that check --export finds what
// check with args finds in the live table: with the preset's details
// given as flags (what the table tells them, read here; adjust sets what
// args give), nothing read from DynamoDB, and with --confirm, which reads
// them from the live table.
func exportAgrees(t *testing.T, table, preset string, adjust func(*model.Schema) error, args []string) {
	t.Helper()
	client, ep := dynamotest.Client(t)
	s := model.DefaultSchema(model.LayoutSingle)
	if err := (model.Preset{Schema: &s}).Apply(preset); err != nil {
		t.Fatal(err)
	}
	s.Table = table
	if adjust != nil {
		if err := adjust(&s); err != nil {
			t.Fatal(err)
		}
	}
	store := dynamo.NewStore(client, ep, s, clock.System())
	ctx := context.Background()
	if _, err := store.ResolvePreset(ctx); err != nil {
		t.Fatal(err)
	}
	dir := exportTable(t, client, table)
	rs := store.Schema
	given := append(cli.SchemaFlags(&rs), "--pk", rs.PK, "--sk", rs.SK, "--export", dir, "--endpoint-url", "http://127.0.0.1:1")
	exportsAgree(t, args, map[string][]string{"check --export": given, "check --export --confirm": append(slices.Clone(args), "--export", dir, "--confirm")})
}

// exportTable exports table as DynamoDB would, from a consistent scan,
// into a directory it returns.
func exportTable(t *testing.T, client *dynamodb.Client, table string) string {
	t.Helper()
	var items []model.Item
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, av := range out.Items {
			items = append(items, dynamo.ItemFromSDK(av))
		}
	}
	dir := t.TempDir()
	if _, err := export.Write(dir, export.Options{Table: table, Files: 2, ExportTime: time.Now()}, items); err != nil {
		t.Fatal(err)
	}
	return dir
}

// exportsAgree checks that each check of runs (named by what it is)
// finds what check with args finds in the live table.
func exportsAgree(t *testing.T, args []string, runs map[string][]string) {
	t.Helper()
	accounts, want := presetProblems(t, args)
	for what, a := range runs {
		n, got := presetProblems(t, a)
		if n != accounts || !slices.Equal(got, want) {
			t.Errorf("%s found %d accounts and\n  %s\ncheck %d and\n  %s", what, n, strings.Join(got, "\n  "), accounts, strings.Join(want, "\n  "))
		}
	}
}
