package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/model"
)

// ttlTable is a layout-1 table whose TTL attribute is ttl (enabled on the
// table, so that check finds it with DescribeTimeToLive) holding one case
// of each TTL rule, with TTLs relative to now:
//   - a clean account and its locks, none expiring;
//   - a live reservation: a lock of pending@x, 12 min ahead, nobody holds;
//   - an expired lock nobody holds, which still names its owner;
//   - an expired lock held by its account (ada);
//   - a reserved lock held by an account that does not expire (bob);
//   - a reserved lock whose account expires before it (trial): fine;
//   - a lock whose ttl is a string (carol's username): a warning, judged as none.
func ttlTable(t *testing.T, now time.Time) (ep, table string) {
	t.Helper()
	ep = dynamotest.Endpoint(t)
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.TTLAttr, sc.TTLGiven = "ttl", true
	store, client := dynamotest.Store(t, sc)
	at := func(d time.Duration) model.Value { return model.N(strconv.FormatInt(now.Add(d).Unix(), 10)) }
	with := func(it model.Item, attr string, v model.Value) model.Item { it[attr] = v; return it }
	table = store.Schema.Table
	dynamotest.Put(t, client, table,
		dynamotest.Account("ACCT#clean", "clean@x", "clean"),
		dynamotest.Lock("UNIQ#EMAIL#clean@x", "ACCT#clean"), dynamotest.Lock("UNIQ#HANDLE#clean", "ACCT#clean"),
		with(dynamotest.Lock("UNIQ#EMAIL#pending@x", ""), "ttl", at(12*time.Minute+30*time.Second)),
		with(dynamotest.Lock("UNIQ#EMAIL#gone@x", "ACCT#gone"), "ttl", at(-3*time.Hour)),
		dynamotest.Account("ACCT#ada", "ada@x", "ada"),
		with(dynamotest.Lock("UNIQ#EMAIL#ada@x", "ACCT#ada"), "ttl", at(-3*time.Hour)), dynamotest.Lock("UNIQ#HANDLE#ada", "ACCT#ada"),
		dynamotest.Account("ACCT#bob", "bob@x", "bob"),
		with(dynamotest.Lock("UNIQ#EMAIL#bob@x", "ACCT#bob"), "ttl", at(time.Hour)), dynamotest.Lock("UNIQ#HANDLE#bob", "ACCT#bob"),
		with(dynamotest.Account("ACCT#trial", "trial@x", "trial"), "ttl", at(10*time.Minute)),
		with(dynamotest.Lock("UNIQ#EMAIL#trial@x", "ACCT#trial"), "ttl", at(time.Hour)), dynamotest.Lock("UNIQ#HANDLE#trial", "ACCT#trial"),
		dynamotest.Account("ACCT#carol", "carol@x", "carol"),
		dynamotest.Lock("UNIQ#EMAIL#carol@x", "ACCT#carol"), with(dynamotest.Lock("UNIQ#HANDLE#carol", "ACCT#carol"), "ttl", model.S("tomorrow")),
	)
	return ep, table
}

// ttlProblems is what check must report of ttlTable, exactly.
func ttlProblems(table string, now time.Time) string {
	lock := func(v string) string { return `{"PK":"UNIQ#EMAIL#` + v + `","SK":"LOCK"}` }
	return fmt.Sprintf(`"problems":[`+
		`{"kind":"expired_lock","constraint":"email","value":"ada@x","lock":%s,"owner":"ACCT#ada","accounts":["ACCT#ada"],"expires_at":%d},`+
		`{"kind":"expiring_lock","constraint":"email","value":"bob@x","lock":%s,"owner":"ACCT#bob","accounts":["ACCT#bob"],"expires_at":%d},`+
		`{"kind":"expired_lock","constraint":"email","value":"gone@x","lock":%s,"owner":"ACCT#gone","accounts":[],"expires_at":%d}],`+
		`"warnings":["%s {\"PK\":\"UNIQ#HANDLE#carol\",\"SK\":\"LOCK\"}: ttl is {\"S\":\"tomorrow\"}, not a number; judged as having no TTL"]`,
		lock("ada@x"), now.Add(-3*time.Hour).Unix(), lock("bob@x"), now.Add(time.Hour).Unix(), lock("gone@x"), now.Add(-3*time.Hour).Unix(), table)
}

// TestCheckJudgesTTLs: check, finding the TTL attribute from the table,
// reports each TTL case exactly: expired locks (held or not), a reserved
// lock its holder outlives, the reservation counted, the account that
// expires before its lock left alone, and the string TTL warned of once;
// the human report says when each expired and what it blocks.
func TestCheckJudgesTTLs(t *testing.T) {
	t.Parallel()
	clocktest.Each(t, checkJudgesTTLs)
}

func checkJudgesTTLs(t *testing.T, now time.Time) {
	ep, table := ttlTable(t, now)
	run := func(t *testing.T, args ...string) result { return runAt(t, clock.Fixed(now), args...) }
	j := run(t, "check", "--endpoint-url", ep, "--table", table, "--json")
	if j.code != cli.ExitProblems {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", j.code, j.stdout, j.stderr)
	}
	if want := `"accounts":5,"locks":12,"reservations":1,` + ttlProblems(table, now); !strings.Contains(j.stdout, want) {
		t.Fatalf("check --json:\n got %s\nwant ...%s...", j.stdout, want)
	}
	var r model.Report
	if err := json.Unmarshal([]byte(j.stdout), &r); err != nil || r.Now != now.Unix() {
		t.Errorf("now %d (%v): want the check's start, %d", r.Now, err, now.Unix())
	}
	h := run(t, "check", "--endpoint-url", ep, "--table", table)
	for _, want := range []string{
		"1 reserved: signups in progress",
		"expired_lock     2\nexpiring_lock    1\n",
		`owner ACCT#ada  accounts ACCT#ada  expired 3 h ago; DynamoDB deletes it eventually, until then it blocks email ada@x`,
		`owner ACCT#gone  expired 3 h ago; DynamoDB deletes it eventually, until then it blocks email gone@x`,
		`warning: ` + table + ` {"PK":"UNIQ#HANDLE#carol","SK":"LOCK"}: ttl is {"S":"tomorrow"}, not a number`,
	} {
		if !strings.Contains(h.stdout, want) {
			t.Errorf("the report does not say %q:\n%s", want, h.stdout)
		}
	}
	if !strings.Contains(h.stdout, `owner ACCT#bob  accounts ACCT#bob  reserved 1 h more; when it goes, email bob@x is unprotected`) {
		t.Errorf("the report does not say bob's lock is reserved an hour more:\n%s", h.stdout)
	}
}

// TestRepairTTLs: on ttlTable, repair --dry-run shows the conditions the
// contract names (the unheld expired lock deleted while its ttl is not
// after now; ada's and bob's locks kept for good while they name their
// owner and hold the ttl read); repair then leaves a clean table, the
// reservation untouched, and a second repair changes nothing.
func TestRepairTTLs(t *testing.T) {
	t.Parallel()
	clocktest.Each(t, repairTTLs)
}

func repairTTLs(t *testing.T, now time.Time) {
	ep, table := ttlTable(t, now)
	run := func(t *testing.T, args ...string) result { return runAt(t, clock.Fixed(now), args...) }
	args := []string{"--endpoint-url", ep, "--table", table, "--audit-log", t.TempDir() + "/audit.log"}
	dry := run(t, append([]string{"repair", "--dry-run"}, args...)...)
	if dry.code != cli.ExitOK {
		t.Fatalf("--dry-run: exit %d\n%s\n%s", dry.code, dry.stdout, dry.stderr)
	}
	for _, want := range []string{
		`"Delete":{"ConditionExpression":"#0 <= :0","ExpressionAttributeNames":{"#0":"ttl"}`,
		`"Key":{"PK":{"S":"UNIQ#EMAIL#gone@x"},"SK":{"S":"LOCK"}}`,
		`"ConditionExpression":"(#0 = :0) AND (#1 = :1)","ExpressionAttributeNames":{"#0":"owner","#1":"ttl"}`, `"UpdateExpression":"REMOVE #1`,
		`"Key":{"PK":{"S":"UNIQ#EMAIL#ada@x"},"SK":{"S":"LOCK"}}`,
		`"Key":{"PK":{"S":"UNIQ#EMAIL#bob@x"},"SK":{"S":"LOCK"}}`,
	} {
		if !strings.Contains(dry.stdout, want) {
			t.Errorf("--dry-run does not print %s:\n%s", want, dry.stdout)
		}
	}
	if strings.Contains(dry.stdout, "pending@x") || strings.Contains(dry.stdout, "trial@x") {
		t.Errorf("--dry-run touches the reservation or the account that expires first:\n%s", dry.stdout)
	}
	r := run(t, append([]string{"repair", "--yes"}, args...)...)
	if r.code != cli.ExitOK {
		t.Fatalf("repair: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	j := run(t, "check", "--endpoint-url", ep, "--table", table, "--json")
	if j.code != cli.ExitOK || !strings.Contains(j.stdout, `"accounts":5,"locks":11,"reservations":1,"problems":[]`) {
		t.Fatalf("after repair: exit %d\n%s\n%s", j.code, j.stdout, j.stderr)
	}
	again := run(t, append([]string{"repair", "--yes", "--json"}, args...)...)
	if again.code != cli.ExitOK || strings.Contains(again.stdout, `"committed"`) {
		t.Fatalf("a second repair: exit %d\n%s\n%s", again.code, again.stdout, again.stderr)
	}
}

// TestInitProposesTheTTL: init reads each table's TTL setting and
// proposes it, in layout 2 per table (here only the MAC lock table has
// TTL enabled); the target it saves keeps it, and a check through that
// target judges the MAC table's expired lock as expired.
func TestInitProposesTheTTL(t *testing.T) {
	t.Parallel()
	clocktest.Each(t, initProposesTheTTL)
}

func initProposesTheTTL(t *testing.T, now time.Time) {
	ep := dynamotest.Endpoint(t)
	run := func(t *testing.T, args ...string) result { return runAt(t, clock.Fixed(now), args...) }
	sc := model.DefaultSchema(model.LayoutTables)
	sc.Constraints = append([]model.Constraint{}, sc.Constraints...)
	sc.Constraints[0].TTLAttr, sc.TTLGiven = "expires", true
	store, client := dynamotest.Store(t, sc)
	sc = store.Schema
	macs := sc.Constraints[0].LockTable
	mac, rc := deviceValues(t)
	dynamotest.Put(t, client, sc.Table, model.Item{"id": model.S("dev-1"), "mac_address": model.S(mac(1)), "registration_code": model.S(rc(1))})
	dynamotest.Put(t, client, macs,
		model.Item{"MacAddress": model.S(mac(1)), "owner": model.S("dev-1")},
		model.Item{"MacAddress": model.S(mac(9)), "owner": model.S("dev-9"), "expires": model.N(strconv.FormatInt(now.Add(-time.Hour).Unix(), 10))})
	dynamotest.Put(t, client, sc.Constraints[1].LockTable, model.Item{"RegistrationCode": model.S(rc(1)), "owner": model.S("dev-1")})
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, "init", "--endpoint-url", ep, "--table", sc.Table, "--save", "devices", "--config", cfg)
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "--ttl-attr "+macs+"=expires") ||
		!strings.Contains(r.stderr, "TTL of "+macs+": attribute expires (DescribeTimeToLive: enabled)") ||
		!strings.Contains(r.stderr, "TTL of "+sc.Table+": not enabled") {
		t.Fatalf("init: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if data, _ := os.ReadFile(cfg); !strings.Contains(string(data), "ttl-attr: ["+macs+"=expires]") {
		t.Errorf("the saved target lacks the TTL attribute:\n%s", data)
	}
	j := run(t, "check", "--config", cfg, "--target", "devices", "--json")
	if j.code != cli.ExitProblems || !strings.Contains(j.stdout, `"kind":"expired_lock","constraint":"mac_address","value":"`+mac(9)+`"`) {
		t.Fatalf("check --target devices: exit %d\n%s\n%s", j.code, j.stdout, j.stderr)
	}
}

// TestFindJudgesTTLs: find on ttlTable calls the lock of gone@x, which
// nobody holds and whose TTL has passed, an expired lock (not an orphan),
// and says the unheld reservation of pending@x is one, not a problem.
func TestFindJudgesTTLs(t *testing.T) {
	t.Parallel()
	clocktest.Each(t, findJudgesTTLs)
}

func findJudgesTTLs(t *testing.T, now time.Time) {
	ep, table := ttlTable(t, now)
	run := func(t *testing.T, args ...string) result { return runAt(t, clock.Fixed(now), args...) }
	r := run(t, "find", "gone@x", "--endpoint-url", ep, "--table", table)
	if !strings.Contains(r.stdout, "expired_lock     email gone@x") || !strings.Contains(r.stdout, "(nobody holds it)  expired 3 h ago; DynamoDB deletes it eventually") {
		t.Errorf("find gone@x: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, "find", "pending@x", "--endpoint-url", ep, "--table", table, "--json")
	if strings.Contains(r.stdout, "orphan_lock") || !strings.Contains(r.stdout, "reserved until") {
		t.Errorf("find pending@x: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestInitProposesThePresetsTTL: init --preset proposes the table's TTL
// attribute too, as init without a preset does.
func TestInitProposesThePresetsTTL(t *testing.T) {
	t.Parallel()
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := oneTableTable(t, client)
	_, err := client.UpdateTimeToLive(context.Background(), &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(table),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expires"), Enabled: aws.Bool(true)}})
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, "init", "--endpoint-url", ep, "--table", table, "--preset", "onetable:User")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "--ttl-attr expires") || !strings.Contains(r.stderr, "TTL of "+table+": attribute expires") {
		t.Fatalf("init --preset: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}
