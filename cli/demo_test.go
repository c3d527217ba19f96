package cli_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/model/mistake"
)

func TestDemoBreakShowsExactlyItsProblem(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	// Something healthy and a problem already there, which must stay the
	// only other one.
	w.write(cli.ExitOK, "signup", "--set", "email=ok@x.io", "--set", "username=ok", "--id", "ACCT#ok")
	w.run("demo", "break", "delete-leak")
	// With a TTL attribute, so that a reservation can lapse.
	breakEach(t, func(args ...string) result { return w.run(append(args, "--ttl-attr", "ttl")...) })
}

// TestDemoBreakNeedsATTL: a table without a TTL attribute cannot replay a
// lapsed reservation, and says what it needs.
func TestDemoBreakNeedsATTL(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	wantError(t, w.run("demo", "break", "lapsed-reservation"), cli.ExitError, "no TTL attribute", "--ttl-attr")
}

func TestDemoBreakLayoutTables(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	devices, macs, codes := dynamotest.Name(t, "devices"), dynamotest.Name(t, "macs"), dynamotest.Name(t, "codes")
	schema := []string{"--endpoint-url", ep, "--layout", "tables", "--table", devices, "--audit-log", filepath.Join(t.TempDir(), "audit.log"),
		"--unique", "mac_address=@" + macs + "/MacAddress", "--unique", "registration_code=@" + codes + "/RegistrationCode", "--ttl-attr", "expires"}
	seed(t, client, []string{devices, macs, codes}, append(schema, "--accounts", "2")...)
	breakEach(t, func(args ...string) result { return run(t, append(args, schema...)...) })
}

// breakEach runs demo break KIND for every kind, and after each, check
// --json must show new problems of that kind only, those the replay found.
func breakEach(t *testing.T, run func(args ...string) result) {
	t.Helper()
	problems := func() []model.Problem {
		r := run("check", "--json")
		var report struct{ Problems []model.Problem }
		if (r.code != cli.ExitOK && r.code != cli.ExitProblems) || json.Unmarshal([]byte(r.stdout), &report) != nil {
			t.Fatalf("check: exit %d, %s %s", r.code, r.stdout, r.stderr)
		}
		return report.Problems
	}
	seen := problems()
	for _, k := range mistake.Kinds {
		r := run("demo", "break", k.Name, "--json")
		var replay mistake.Replay
		if r.code != cli.ExitOK || json.Unmarshal([]byte(r.stdout), &replay) != nil {
			t.Fatalf("demo break %s: exit %d, %s %s", k.Name, r.code, r.stdout, r.stderr)
		}
		if len(replay.Sent) == 0 || len(replay.Guarded) == 0 || replay.Problem != k.Problem {
			t.Errorf("demo break %s: %s", k.Name, r.stdout)
		}
		now := problems()
		var added []model.Problem
		for _, p := range now {
			if !slices.ContainsFunc(seen, func(q model.Problem) bool {
				return q.Kind == p.Kind && q.Constraint == p.Constraint && q.Value == p.Value
			}) {
				added = append(added, p)
			}
		}
		if len(added) == 0 || len(added) != len(replay.Found) {
			t.Fatalf("demo break %s: check shows %d new problems %+v, the replay found %+v", k.Name, len(added), added, replay.Found)
		}
		for _, p := range added {
			if p.Kind != k.Problem {
				t.Errorf("demo break %s: check shows a new %s (%s=%s), want only %s", k.Name, p.Kind, p.Constraint, p.Value, k.Problem)
			}
		}
		seen = now
	}
}

func TestDemoBreakRefusesARemoteTable(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	for _, args := range [][]string{
		{"demo", "break", "rename-leak", "--endpoint-url", "http://203.0.113.7:8000", "--write", "--audit-log", w.audit},
		{"demo", "break", "rename-leak", "--endpoint-url", w.ep, "--read-only", "--audit-log", w.audit},
	} {
		wantError(t, run(t, args...), cli.ExitError)
	}
	wantError(t, run(t, "demo", "break", "rename-leak", "--endpoint-url", "http://203.0.113.7:8000", "--write", "--audit-log", w.audit),
		cli.ExitError, "only on --demo or a loopback endpoint")
	wantError(t, w.run("demo", "break", "typo"), cli.ExitError, "missing-lock, gsi-duplicate")
	w.wantOnlyRefusals(3)
}

// TestDemoBreakHuman: the request sent, then locktable's, then what the
// keys show, each in its own section.
func TestDemoBreakHuman(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	r := w.run("demo", "break", "delete-leak")
	lines := strings.Split(r.stdout, "\n")
	if r.code != cli.ExitOK || len(lines) < 9 ||
		!strings.HasPrefix(lines[0], "delete-leak: a delete of the account alone") ||
		!strings.HasPrefix(lines[2], "sent, outside any transaction") || !strings.HasPrefix(lines[3], `  {"call":"DeleteItem","input":{"Key":{"PK":{"S":"ACCT#`) ||
		!strings.HasPrefix(lines[4], "locktable would send instead") || !strings.HasPrefix(lines[5], `  {"ClientRequestToken":`) ||
		!strings.HasPrefix(lines[6], "now (consistent reads of the keys involved): 2 problem(s)") || !strings.HasPrefix(lines[7], "  orphan_lock email=break-") {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestDemoTableHasReservations: the demo's tables have a TTL attribute,
// and its table holds a live reservation, expired reservations (held and
// not) and a reservation its account outlives.
func TestDemoTableHasReservations(t *testing.T) {
	t.Parallel()
	r := run(t, "--demo", "check", "--json")
	var report model.Report
	if r.code != cli.ExitProblems || json.Unmarshal([]byte(r.stdout), &report) != nil {
		t.Fatalf("check --demo: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	held, unheld, expiring := 0, 0, 0
	for _, p := range report.Problems {
		switch {
		case p.Kind == model.ExpiredLock && len(p.Accounts) > 0:
			held++
		case p.Kind == model.ExpiredLock:
			unheld++
		case p.Kind == model.ExpiringLock:
			expiring++
		}
	}
	if report.Reservations == 0 || held == 0 || unheld == 0 || expiring == 0 || report.Now == 0 {
		t.Errorf("the demo has %d reservations, %d expired locks held, %d not, %d expiring (now %d)",
			report.Reservations, held, unheld, expiring, report.Now)
	}
}

// TestDemoElectroDB: --demo --preset electrodb:agent holds an ElectroDB
// table (mi6, unique email): agents named by their whole key, and what
// code that forgets the constraint leaves, each kind found by check. A
// library the demo writes no table for is refused in words, naming
// what it holds.
// TestDemoUnderAWriteBudget: --max-wcu paces the writes asked of
// locktable, not the demo's own seeding: `--demo --max-wcu 1` seeded
// its table at one unit a second and ended "no answer ... in time".
func TestDemoUnderAWriteBudget(t *testing.T) {
	t.Parallel()
	if r := run(t, "--demo", "--max-wcu", "1", "check", "--json"); r.code != cli.ExitProblems {
		t.Fatalf("check --demo --max-wcu 1: exit %d, want %d (the demo's problems)\n%s", r.code, cli.ExitProblems, r.stderr)
	}
}

func TestDemoElectroDB(t *testing.T) {
	t.Parallel()
	r := run(t, "--demo", "--preset", "electrodb:agent", "check", "--json")
	var report model.Report
	if r.code != cli.ExitProblems || json.Unmarshal([]byte(r.stdout), &report) != nil {
		t.Fatalf("check --demo --preset electrodb:agent: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if report.Table != cli.DemoElectroTable || report.Accounts <= cli.DemoAccounts {
		t.Errorf("table %q with %d accounts, want %q with more than %d", report.Table, report.Accounts, cli.DemoElectroTable, cli.DemoAccounts)
	}
	kinds := map[model.ProblemKind]int{}
	for _, p := range report.Problems {
		kinds[p.Kind]++
		for _, id := range p.Accounts {
			if !strings.HasPrefix(id, "$mi6#designation_") || !strings.Contains(id, "|$agent_1#id_") {
				t.Errorf("%s names account %q, want its whole key $mi6#designation_NN|$agent_1#id_X", p.Kind, id)
			}
		}
	}
	for _, k := range []model.ProblemKind{model.MissingLock, model.OrphanLock, model.DuplicateValue} {
		if kinds[k] == 0 {
			t.Errorf("no %s in the ElectroDB demo: %v", k, kinds)
		}
	}
	// --normalize keys the demo's constraints as it says (none: as given).
	r = run(t, "--demo", "--preset", "electrodb:agent", "--unique", "email", "--normalize", "email=none",
		"signup", "--id", "$mi6#designation_9|$agent_1#id_s1", "--set", "email=Bond@MI6.uk", "--dry-run")
	if r.code != cli.ExitOK || !strings.Contains(r.stdout, "value_Bond@MI6.uk") || strings.Contains(r.stdout, "value_bond@mi6.uk") {
		t.Errorf("signup --dry-run with email=none: exit %d, want the constraint keyed Bond@MI6.uk\n%s%s", r.code, r.stdout, r.stderr)
	}
	wantError(t, run(t, "--demo", "--preset", "onetable:User", "check"), cli.ExitError, "--preset electrodb:ENTITY")
	wantError(t, run(t, "--demo", "--preset", "electrodb:agent", "demo", "break", "missing-lock"), cli.ExitError, "plain layouts")
}
