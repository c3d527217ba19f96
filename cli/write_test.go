package cli_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/term"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// writeEnv is a fresh single-layout table on the emulator and an audit
// log of the test's own.
type writeEnv struct {
	t      *testing.T
	ep     string
	table  string
	audit  string
	store  *dynamo.Store
	client *dynamodb.Client
}

func newWriteEnv(t *testing.T) writeEnv {
	t.Helper()
	ep := dynamotest.Endpoint(t)
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	return writeEnv{t: t, ep: ep, table: store.Schema.Table, audit: filepath.Join(t.TempDir(), "audit.log"), store: store, client: client}
}

// run runs locktable with args, then the endpoint, table and audit log.
func (w writeEnv) run(args ...string) result {
	w.t.Helper()
	return run(w.t, append(args, "--endpoint-url", w.ep, "--table", w.table, "--audit-log", w.audit)...)
}

// snapshot is every item of the table, read consistently, one sorted line each.
func (w writeEnv) snapshot() []string {
	w.t.Helper()
	var out []string
	var start map[string]types.AttributeValue
	for {
		page, err := w.client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(w.table), ConsistentRead: aws.Bool(true), ExclusiveStartKey: start})
		if err != nil {
			w.t.Fatal(err)
		}
		for _, it := range page.Items {
			var fields []string
			for k, v := range it {
				s, ok := v.(*types.AttributeValueMemberS)
				if !ok {
					w.t.Fatalf("attribute %s is %T", k, v)
				}
				fields = append(fields, k+"="+s.Value)
			}
			slices.Sort(fields)
			out = append(out, strings.Join(fields, " "))
		}
		if start = page.LastEvaluatedKey; len(start) == 0 {
			break
		}
	}
	slices.Sort(out)
	return out
}

func (w writeEnv) wantSnapshot(want ...string) {
	w.t.Helper()
	slices.Sort(want)
	if got := w.snapshot(); !slices.Equal(got, want) {
		w.t.Fatalf("table:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// auditLines returns the audit log's lines; none when it was never created.
func (w writeEnv) auditLines() []string {
	w.t.Helper()
	data, err := os.ReadFile(w.audit)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		w.t.Fatal(err)
	}
	if len(data) == 0 {
		return nil
	}
	if !strings.HasSuffix(string(data), "\n") {
		w.t.Fatalf("audit log does not end in a newline: %q", data)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func (w writeEnv) wantNoAudit() {
	w.t.Helper()
	if _, err := os.Stat(w.audit); !os.IsNotExist(err) {
		data, _ := os.ReadFile(w.audit)
		w.t.Fatalf("audit log written: %q", data)
	}
}

// wantOnlyRefusals checks that the audit log holds n lines, each a refusal
// with a reason, and nothing that was sent.
func (w writeEnv) wantOnlyRefusals(n int) {
	w.t.Helper()
	lines := w.auditLines()
	for _, l := range lines {
		var e dynamo.AuditEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Event != dynamo.EventRefused || e.Reason == "" || e.Operation == "" {
			w.t.Fatalf("audit line %q: want a refusal with its reason", l)
		}
	}
	if len(lines) != n {
		w.t.Fatalf("%d audit lines, want %d refusals: %q", len(lines), n, lines)
	}
}

// writeOutcome is one line of a write command's --json output.
type writeOutcome struct {
	Operation string   `json:"operation"`
	Keys      []string `json:"keys"`
	Outcome   string   `json:"outcome"`
	Token     string   `json:"token"`
	Reasons   []struct {
		Slot    int    `json:"slot"`
		Action  string `json:"action"`
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"reasons"`
	Note string `json:"note"`
}

// outcomes decodes --json output: one object per line, and only known members.
func outcomes(t *testing.T, stdout string) []writeOutcome {
	t.Helper()
	var out []writeOutcome
	for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var o writeOutcome
		if err := dec.Decode(&o); err != nil || o.Reasons == nil || o.Keys == nil {
			t.Fatalf("not a result object (%v), or null arrays: %s", err, line)
		}
		out = append(out, o)
	}
	return out
}

var tokenRE = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestWriteCommandsEndToEnd(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	const bio = "secret-bio-value"

	r := w.run("signup", "--set", "email=ada@x.io", "--set", "username=ada", "--set", "bio="+bio, "--id", "ACCT#a1", "--yes")
	if r.code != cli.ExitOK || r.stderr != "holder lookup for email=ada@x.io, username=ada: consistent scan of the accounts, 0 items read: no other account holds them\n" {
		t.Fatalf("signup: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	if !strings.HasPrefix(r.stdout, "committed signup ACCT#a1") {
		t.Errorf("signup stdout %q", r.stdout)
	}
	w.wantSnapshot(
		"PK=ACCT#a1 SK=PROFILE bio="+bio+" email=ada@x.io username=ada",
		"PK=UNIQ#EMAIL#ada@x.io SK=LOCK owner=ACCT#a1",
		"PK=UNIQ#HANDLE#ada SK=LOCK owner=ACCT#a1",
	)

	// The audit log: the intent, synced before the request, then the
	// outcome; keys and token, no attribute values.
	lines := w.auditLines()
	if len(lines) != 2 {
		t.Fatalf("audit log has %d lines, want intent and outcome: %q", len(lines), lines)
	}
	for i, want := range [][]string{
		{"event", "keys", "operation", "table", "time", "token"},
		{"event", "keys", "operation", "outcome", "table", "time", "token"},
	} {
		var entry map[string]json.RawMessage
		if err := json.Unmarshal([]byte(lines[i]), &entry); err != nil {
			t.Fatalf("audit line is not JSON: %v: %s", err, lines[i])
		}
		members := slices.Sorted(maps.Keys(entry))
		if !slices.Equal(members, want) {
			t.Fatalf("audit line %d members %q, want %q", i, members, want)
		}
		var keys []string
		var token, event, outcome string
		_ = json.Unmarshal(entry["keys"], &keys)
		_ = json.Unmarshal(entry["token"], &token)
		_ = json.Unmarshal(entry["event"], &event)
		_ = json.Unmarshal(entry["outcome"], &outcome)
		if !slices.Equal(keys, []string{"ACCT#a1", "UNIQ#EMAIL#ada@x.io", "UNIQ#HANDLE#ada"}) || !tokenRE.MatchString(token) ||
			event != []string{"intent", "outcome"}[i] || outcome != []string{"", "committed"}[i] {
			t.Fatalf("audit line %d: event %q, keys %q, token %q, outcome %q", i, event, keys, token, outcome)
		}
		// Lock keys are keys (they embed the value by design); outside the
		// keys no value appears, and a non-key attribute appears nowhere.
		delete(entry, "keys")
		rest, _ := json.Marshal(entry)
		for _, v := range []string{"ada@x.io", "ada\"", bio} {
			if strings.Contains(string(rest), v) {
				t.Errorf("audit line holds %q outside its keys: %s", v, lines[i])
			}
		}
	}
	var first dynamo.AuditEntry
	_ = json.Unmarshal([]byte(lines[1]), &first)
	token := first.Token

	// The same signup again: cancelled, exit 3, the reasons name the owner.
	before := w.snapshot()
	r = w.run("signup", "--set", "email=ada@x.io", "--set", "username=ada", "--id", "ACCT#a1", "--yes", "--json")
	if r.code != cli.ExitCancelled || !strings.HasPrefix(r.stderr, "holder lookup for email=ada@x.io, username=ada: consistent scan of the accounts, 3 items read: "+
		"email=ada@x.io is locked by ACCT#a1 (its lock exists): the guard will refuse it; username=ada is locked by ACCT#a1 (its lock exists): the guard will refuse it\n") {
		t.Fatalf("second signup: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	outs := outcomes(t, r.stdout)
	if len(outs) != 1 || outs[0].Outcome != "cancelled" || outs[0].Operation != "signup" || !tokenRE.MatchString(outs[0].Token) || outs[0].Token == token {
		t.Fatalf("second signup: %+v", outs)
	}
	var msgs []string
	for _, rs := range outs[0].Reasons {
		if rs.Code != "ConditionalCheckFailed" {
			t.Errorf("reason %+v", rs)
		}
		msgs = append(msgs, rs.Message)
	}
	if want := []string{"account ACCT#a1 already exists", "email ada@x.io is taken by ACCT#a1", "username ada is taken by ACCT#a1"}; !slices.Equal(msgs, want) {
		t.Fatalf("reasons %q, want %q", msgs, want)
	}
	if got := w.snapshot(); !slices.Equal(got, before) {
		t.Fatalf("a cancelled signup changed the table: %q", got)
	}
	if lines := w.auditLines(); len(lines) != 4 || !strings.Contains(lines[3], `"outcome":"cancelled"`) ||
		!strings.Contains(lines[3], `"cancellation_codes":["ConditionalCheckFailed","ConditionalCheckFailed","ConditionalCheckFailed"]`) {
		t.Fatalf("audit after the cancelled signup: %q", lines)
	}

	// A signup with another id but a taken username names its owner.
	r = w.run("signup", "--set", "email=other@x.io", "--set", "username=ada", "--id", "ACCT#b2", "--yes", "--json")
	if outs := outcomes(t, r.stdout); r.code != cli.ExitCancelled || len(outs) != 1 || len(outs[0].Reasons) != 1 ||
		outs[0].Reasons[0].Slot != 2 || outs[0].Reasons[0].Message != "username ada is taken by ACCT#a1" {
		t.Fatalf("taken username: exit %d, %s", r.code, r.stdout)
	}

	r = w.run("rename", "ACCT#a1", "--set", "email=lovelace@x.io", "--yes", "--json")
	if outs := outcomes(t, r.stdout); r.code != cli.ExitOK || len(outs) != 1 || outs[0].Outcome != "committed" ||
		!slices.Equal(outs[0].Keys, []string{"ACCT#a1", "UNIQ#EMAIL#lovelace@x.io", "UNIQ#EMAIL#ada@x.io"}) {
		t.Fatalf("rename: exit %d, stderr %q, stdout %s", r.code, r.stderr, r.stdout)
	}
	w.wantSnapshot(
		"PK=ACCT#a1 SK=PROFILE bio="+bio+" email=lovelace@x.io username=ada",
		"PK=UNIQ#EMAIL#lovelace@x.io SK=LOCK owner=ACCT#a1",
		"PK=UNIQ#HANDLE#ada SK=LOCK owner=ACCT#a1",
	)

	r = w.run("delete", "ACCT#a1", "--yes")
	if r.code != cli.ExitOK || r.stderr != "" || !strings.HasPrefix(r.stdout, "committed delete ACCT#a1") {
		t.Fatalf("delete: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	w.wantSnapshot()
	if lines := w.auditLines(); len(lines) != 10 {
		t.Fatalf("audit log has %d lines after 5 writes, want an intent and an outcome each: %q", len(lines), lines)
	}
}

func TestWriteWithoutYesRefusesWithoutATerminal(t *testing.T) {
	if term.IsTerminal(int(os.Stdin.Fd())) {
		t.Skip("stdin is a terminal: the command would ask")
	}
	t.Parallel()
	w := newWriteEnv(t)
	// The control: the same command with --yes goes through.
	r := w.run("signup", "--set", "email=a@x.io", "--set", "username=a", "--id", "ACCT#a", "--yes")
	if r.code != cli.ExitOK {
		t.Fatalf("setup signup: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	w.audit = filepath.Join(t.TempDir(), "audit.log")
	before := w.snapshot()
	for _, args := range [][]string{
		{"signup", "--set", "email=b@x.io", "--id", "ACCT#b"},
		{"rename", "ACCT#a", "--set", "email=c@x.io"},
		{"delete", "ACCT#a"},
	} {
		r := w.run(args...)
		wantError(t, r, cli.ExitError, "--yes")
	}
	if got := w.snapshot(); !slices.Equal(got, before) {
		t.Fatalf("a refused write changed the table: %q", got)
	}
	w.wantOnlyRefusals(0)
}

func TestDryRun(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	if r := w.run("signup", "--set", "email=a@x.io", "--set", "username=a", "--id", "ACCT#a", "--yes"); r.code != 0 {
		t.Fatalf("setup: %d %s", r.code, r.stderr)
	}
	w.audit = filepath.Join(t.TempDir(), "audit.log")
	before := w.snapshot()
	for _, args := range [][]string{
		{"signup", "--set", "email=b@x.io", "--set", "username=b", "--id", "ACCT#b"},
		{"rename", "ACCT#a", "--set", "email=c@x.io", "--set", "username="},
		{"delete", "ACCT#a", "--json"},
	} {
		r := w.run(append(args, "--dry-run")...)
		// A write that locks new values looks for their holders first (and
		// says how), as it would before sending; then it says the request
		// in words, as a confirmation does.
		words := r.stderr
		if strings.HasPrefix(words, "holder lookup for ") {
			_, words, _ = strings.Cut(words, "\n")
		}
		if r.code != cli.ExitOK || !strings.HasPrefix(words, args[0]+" ") || strings.Contains("\n"+r.stderr, "\nlocktable: ") {
			t.Fatalf("%v --dry-run: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "\n") {
			t.Fatalf("%v --dry-run: want one line, got %q", args, r.stdout)
		}
		in, err := dynamo.ParseCLIJSON([]byte(r.stdout))
		if err != nil {
			t.Fatalf("%v --dry-run: not a transact-write-items document: %v\n%s", args, err, r.stdout)
		}
		if len(in.TransactItems) < 2 || !tokenRE.MatchString(aws.ToString(in.ClientRequestToken)) {
			t.Fatalf("%v --dry-run: %d actions, token %q", args, len(in.TransactItems), aws.ToString(in.ClientRequestToken))
		}
		for _, ti := range in.TransactItems {
			tn := ""
			switch {
			case ti.Put != nil:
				tn = aws.ToString(ti.Put.TableName)
			case ti.Update != nil:
				tn = aws.ToString(ti.Update.TableName)
			case ti.Delete != nil:
				tn = aws.ToString(ti.Delete.TableName)
			case ti.ConditionCheck != nil:
				tn = aws.ToString(ti.ConditionCheck.TableName)
			}
			if tn != w.table {
				t.Fatalf("%v --dry-run: an action on table %q", args, tn)
			}
		}
	}
	if got := w.snapshot(); !slices.Equal(got, before) {
		t.Fatalf("a dry run changed the table: %q", got)
	}
	w.wantNoAudit()
}

func TestRepairAfterSeed(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "accounts")
	audit := filepath.Join(t.TempDir(), "audit.log")
	seed(t, client, []string{table}, "--endpoint-url", ep, "--table", table, "--accounts", "30", "--anomalies")
	common := []string{"--endpoint-url", ep, "--table", table, "--audit-log", audit}

	// A dry run prints one document per repairable problem and writes nothing.
	pre := run(t, append([]string{"check", "--json"}, common...)...)
	kinds := map[string]int{}
	for _, p := range decodeReport(t, pre.stdout).Problems {
		kinds[p.Kind]++
	}
	repairable := kinds["orphan_lock"] + kinds["missing_lock"] + kinds["foreign_lock"]
	if repairable == 0 || kinds["duplicate_value"] == 0 {
		t.Fatalf("seeded problems %v", kinds)
	}
	dry := run(t, append([]string{"repair", "--dry-run"}, common...)...)
	if dry.code != cli.ExitOK || strings.Count(dry.stderr, "\nrepair ")+1 != repairable || strings.Contains("\n"+dry.stderr, "\nlocktable: ") || strings.Count(dry.stdout, "\n") != repairable {
		t.Fatalf("repair --dry-run: exit %d, stderr %q, %d lines for %d repairable problems", dry.code, dry.stderr, strings.Count(dry.stdout, "\n"), repairable)
	}
	for _, line := range strings.Split(strings.TrimSuffix(dry.stdout, "\n"), "\n") {
		if _, err := dynamo.ParseCLIJSON([]byte(line)); err != nil {
			t.Fatalf("repair --dry-run line: %v: %s", err, line)
		}
	}
	if again := run(t, append([]string{"check", "--json"}, common...)...); again.stdout != pre.stdout {
		t.Fatalf("the dry run changed the table:\n%s\n%s", pre.stdout, again.stdout)
	}
	if _, err := os.Stat(audit); !os.IsNotExist(err) {
		t.Fatalf("a dry run wrote the audit log")
	}

	r := run(t, append([]string{"repair", "--yes", "--json"}, common...)...)
	if r.code != cli.ExitOK || r.stderr != "" {
		t.Fatalf("repair: exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	committed, skipped := 0, 0
	for _, o := range outcomes(t, r.stdout) {
		switch o.Outcome {
		case "committed":
			committed++
		case "skipped":
			skipped++
			if !strings.HasPrefix(o.Note, "duplicate_value ") {
				t.Errorf("skipped %q", o.Note)
			}
		default:
			t.Errorf("repair outcome %+v", o)
		}
	}
	if committed != repairable || skipped != kinds["duplicate_value"] {
		t.Fatalf("%d committed, %d skipped; want %d and %d", committed, skipped, repairable, kinds["duplicate_value"])
	}

	c := run(t, append([]string{"check", "--json"}, common...)...)
	if c.code != cli.ExitProblems {
		t.Fatalf("check after repair: exit %d, want 1 (the duplicates stay)\n%s", c.code, c.stdout)
	}
	rep := decodeReport(t, c.stdout)
	if len(rep.Problems) != kinds["duplicate_value"] {
		t.Fatalf("%d problems after repair, want the %d duplicates", len(rep.Problems), kinds["duplicate_value"])
	}
	for _, p := range rep.Problems {
		if p.Kind != "duplicate_value" {
			t.Errorf("left after repair: %s", p.Kind)
		}
	}

	// Nothing left to do: a dry run prints nothing.
	none := run(t, append([]string{"repair", "--dry-run"}, common...)...)
	if none.code != cli.ExitOK || none.stdout != "" || none.stderr != "" {
		t.Fatalf("repair --dry-run with nothing to do: exit %d, stdout %q, stderr %q", none.code, none.stdout, none.stderr)
	}
}

func TestWriteRefusals(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	if r := w.run("signup", "--set", "email=a@x.io", "--id", "ACCT#a", "--yes"); r.code != 0 {
		t.Fatalf("setup: %d %s", r.code, r.stderr)
	}
	w.audit = filepath.Join(t.TempDir(), "audit.log")
	before := w.snapshot()
	for _, args := range [][]string{
		{"signup", "--set", "email=b@x.io", "--id", "ACCT#b", "--yes"},
		{"rename", "ACCT#a", "--set", "email=c@x.io", "--yes"},
		{"delete", "ACCT#a", "--yes"},
		{"repair", "--yes"},
	} {
		wantError(t, w.run(append(args, "--read-only")...), cli.ExitError, "--read-only")
		// Not loopback, no --write: refused before any request (the host
		// never resolves: a request would say "cannot reach").
		r := run(t, append(args, "--endpoint-url", "http://dynamodb.invalid", "--region", "us-east-1", "--table", w.table, "--audit-log", w.audit)...)
		wantError(t, r, cli.ExitError, "--write", "http://dynamodb.invalid")
	}
	if got := w.snapshot(); !slices.Equal(got, before) {
		t.Fatalf("a refused write changed the table: %q", got)
	}
	w.wantOnlyRefusals(8) // each command, refused twice
}

func TestWriteUsageErrors(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	dynamotest.Put(t, w.client, w.table, model.Item{"PK": model.S("ACCT#a"), "SK": model.S("PROFILE"), "email": model.S("a@x.io")})
	before := w.snapshot()
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"--set without =", []string{"signup", "--set", "email", "--yes"}, []string{"--set", `"email"`, "ATTR=VALUE"}},
		{"--set with a control character", []string{"signup", "--set", "email=a\x01b@x.io", "--yes"}, []string{"email", "U+0001"}},
		{"--set with invalid UTF-8", []string{"signup", "--set", "username=\xff", "--yes"}, []string{"username", "UTF-8"}},
		{"lock key too long", []string{"signup", "--set", "email=" + strings.Repeat("e", 2048), "--yes"}, []string{"email", "2048"}},
		{"id without the prefix", []string{"signup", "--set", "email=a@x.io", "--id", "USER#1", "--yes"}, []string{"account", "USER#1", "ACCT#"}},
		{"rename of a missing account", []string{"rename", "ACCT#nosuch", "--set", "email=a@x.io", "--yes"}, []string{"ACCT#nosuch", w.table}},
		{"delete of a missing account", []string{"delete", "ACCT#nosuch", "--yes"}, []string{"ACCT#nosuch"}},
		{"rename of a non-unique attribute", []string{"rename", "ACCT#a", "--set", "bio=x", "--yes"}, []string{"bio", "unique"}},
		{"rename with a control character", []string{"rename", "ACCT#a", "--set", "email=\x1b[2J", "--yes"}, []string{"email", "U+001B"}},
		{"rename without --set", []string{"rename", "ACCT#x", "--yes"}, []string{"--set"}},
		{"repair of an unknown kind", []string{"repair", "--kind", "nosuch", "--yes"}, []string{"--kind", "nosuch"}},
		{"repair of an unknown constraint", []string{"repair", "--constraint", "bio", "--yes"}, []string{"--constraint", "bio"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, w.run(c.args...), cli.ExitError, c.want...)
		})
	}
	if got := w.snapshot(); !slices.Equal(got, before) {
		t.Fatalf("a usage error changed the table: %q", got)
	}
	// Invalid values and missing accounts are refusals of a write, recorded;
	// errors in the command line itself (cases with -- in their words) are not.
	w.wantOnlyRefusals(8)
}

// TestRenameToTheSameValuesIsNothingToDo: no transaction, nothing printed,
// exit 0, with or without --dry-run.
func TestRenameToTheSameValuesIsNothingToDo(t *testing.T) {
	t.Parallel()
	ep := dynamotest.Endpoint(t)
	store, _ := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table := store.Schema.Table
	audit := filepath.Join(t.TempDir(), "audit.log")
	if r := run(t, "signup", "--endpoint-url", ep, "--table", table, "--id", "ACCT#s1", "--set", "email=s@x.io", "--yes", "--audit-log", audit); r.code != 0 {
		t.Fatalf("signup: exit %d %q", r.code, r.stderr)
	}
	for _, extra := range [][]string{{"--dry-run"}, {"--yes"}} {
		args := append([]string{"rename", "ACCT#s1", "--endpoint-url", ep, "--table", table, "--set", "email=s@x.io", "--audit-log", audit}, extra...)
		if r := run(t, args...); r.code != 0 || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", extra, r.code, r.stdout, r.stderr)
		}
	}
}

// TestDryRunEscapesHiddenCharacters: a loaded value with a bidi override
// and a C1 control reaches the dry-run line as \u escapes, still the same
// JSON value.
func TestDryRunEscapesHiddenCharacters(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table := store.Schema.Table
	evil := "e\u202ev\u009bil@x.io"
	dynamotest.Put(t, client, table, dynamotest.Account("ACCT#h1", evil, ""), dynamotest.Lock("UNIQ#EMAIL#"+evil, "ACCT#h1"))
	r := run(t, "delete", "ACCT#h1", "--endpoint-url", ep, "--table", table, "--dry-run")
	if r.code != 0 || strings.ContainsAny(r.stdout, "\u202e\u009b") || !strings.Contains(r.stdout, `\u202e`) {
		t.Fatalf("exit %d, stdout %q", r.code, r.stdout)
	}
	if _, err := dynamo.ParseCLIJSON([]byte(strings.TrimSpace(r.stdout))); err != nil {
		t.Fatalf("not a CLI document any more: %v", err)
	}
}
