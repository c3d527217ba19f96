package cli_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/export/exporttest"
	"github.com/locktable/locktable/model"
)

// ttlFixture is a table with one value for each TTL case of PATTERN.md's
// "Locks with a time to live", and the problems the contract says a check
// at exporttest.TTLNow reports for them, written out by hand.
type ttlFixture struct {
	s      model.Schema
	now    int64
	tables map[string][]model.Item
	want   []model.Problem
}

func newTTLFixture(layout model.Layout) *ttlFixture {
	f := &ttlFixture{s: exporttest.WithTTL(model.DefaultSchema(layout)), now: model.Epoch(exporttest.TTLNow), tables: map[string][]model.Item{}}
	n := func(at int64) *model.Value { v := model.N(strconv.FormatInt(at, 10)); return &v }
	now := f.now
	const acct = "ACCT#"
	// A reservation: nobody holds it yet.
	f.lock("reserved", acct+"pending", n(now+3600))
	// Expired: held by nobody, by its owner, at now exactly, by two, by
	// another account than its owner, with a fraction of a second.
	f.lock("gone", "", n(now-3600))
	f.want = append(f.want, f.problem(model.ExpiredLock, "gone", "", now-3600))
	f.account(acct+"a1", "mine", nil)
	f.lock("mine", acct+"a1", n(now-60))
	f.want = append(f.want, f.problem(model.ExpiredLock, "mine", acct+"a1", now-60, acct+"a1"))
	f.lock("atnow", "", n(now))
	f.want = append(f.want, f.problem(model.ExpiredLock, "atnow", "", now))
	f.account(acct+"a2", "twice", nil)
	f.account(acct+"a3", "twice", nil)
	f.lock("twice", acct+"a2", n(now-7200))
	f.want = append(f.want, f.problem(model.ExpiredLock, "twice", acct+"a2", now-7200, acct+"a2", acct+"a3"),
		f.problem(model.DuplicateValue, "twice", acct+"a2", 0, acct+"a2", acct+"a3"))
	f.account(acct+"a4", "stolen", nil)
	f.lock("stolen", acct+"x", n(now-7200))
	f.want = append(f.want, f.problem(model.ExpiredLock, "stolen", acct+"x", now-7200, acct+"a4"))
	frac := model.N(fmt.Sprintf("%d.9", now-1)) // rounded up, as #ttl <= :now compares it
	f.lock("frac", "", &frac)
	f.want = append(f.want, f.problem(model.ExpiredLock, "frac", "", now))
	// Long past: 0 (its expires_at said, not left out) and below.
	f.lock("zero", "", n(0))
	f.want = append(f.want, f.problem(model.ExpiredLock, "zero", "", 0))
	f.lock("negative", "", n(-5))
	f.want = append(f.want, f.problem(model.ExpiredLock, "negative", "", -5))
	// Reserved and held: by an account without a TTL; by one with a
	// later TTL, owned by another (expiring, not foreign); by one with an
	// earlier TTL (fine), owned by another (foreign).
	f.account(acct+"a5", "forever", nil)
	f.lock("forever", acct+"a5", n(now+3600))
	f.want = append(f.want, f.problem(model.ExpiringLock, "forever", acct+"a5", now+3600, acct+"a5"))
	f.account(acct+"a6", "outlives", n(now+7200))
	f.lock("outlives", acct+"other", n(now+3600))
	f.want = append(f.want, f.problem(model.ExpiringLock, "outlives", acct+"other", now+3600, acct+"a6"))
	f.account(acct+"a7", "shortlived", n(now+1800))
	f.lock("shortlived", acct+"a7", n(now+3600))
	f.account(acct+"a8", "taken", n(now+1800))
	f.lock("taken", acct+"y", n(now+3600))
	f.want = append(f.want, f.problem(model.ForeignLock, "taken", acct+"y", 0, acct+"a8"))
	// TTLs DynamoDB ignores, judged as none: milliseconds (an orphan);
	// a string on a lock its owner holds (fine) and on an account that
	// holds a reserved lock (it never expires: expiring).
	f.lock("millis", acct+"z", n((now+3600)*1000))
	f.want = append(f.want, f.problem(model.OrphanLock, "millis", acct+"z", 0))
	text := model.S(strconv.FormatInt(now-3600, 10))
	f.account(acct+"a9", "text", nil)
	f.lock("text", acct+"a9", &text)
	f.account(acct+"a10", "textacct", &text)
	f.lock("textacct", acct+"a10", n(now+3600))
	f.want = append(f.want, f.problem(model.ExpiringLock, "textacct", acct+"a10", now+3600, acct+"a10"))
	// Without a TTL, as before: an orphan and a missing lock.
	f.lock("nottl", "", nil)
	f.want = append(f.want, f.problem(model.OrphanLock, "nottl", "", 0))
	f.account(acct+"a11", "missing", nil)
	f.want = append(f.want, model.Problem{Kind: model.MissingLock, Constraint: f.s.Constraints[0].Attr, Value: "missing", Accounts: []string{acct + "a11"}})
	// Layout 2: the account table's TTL attribute on a lock means
	// nothing; the lock table's own does.
	if f.s.LockTTLAttr(0) != f.s.TTLAttr {
		f.account(acct+"a12", "decoy", nil)
		f.lock("decoy", acct+"a12", nil, func(it model.Item) { it[f.s.TTLAttr] = *n(now - 3600) })
	}
	return f
}

// account adds account id holding v of the first constraint, with TTL
// ttl (nil: none).
func (f *ttlFixture) account(id, v string, ttl *model.Value) {
	it := model.Item{f.s.Constraints[0].Attr: model.S(v)}
	for k, x := range f.s.AccountKey(id) {
		it[k] = model.S(x)
	}
	if ttl != nil {
		it[f.s.TTLAttr] = *ttl
	}
	f.tables[f.s.Table] = append(f.tables[f.s.Table], it)
}

// lock adds the first constraint's lock of v, owned by owner ("" none),
// with TTL ttl (nil: none).
func (f *ttlFixture) lock(v, owner string, ttl *model.Value, more ...func(model.Item)) {
	table, key := f.s.LockKey(0, v)
	it := model.Item{}
	for k, x := range key {
		it[k] = model.S(x)
	}
	if owner != "" {
		it[f.s.OwnerAttr] = model.S(owner)
	}
	if ttl != nil {
		it[f.s.LockTTLAttr(0)] = *ttl
	}
	for _, m := range more {
		m(it)
	}
	f.tables[table] = append(f.tables[table], it)
}

// problem is a problem of the first constraint's lock of v.
func (f *ttlFixture) problem(kind model.ProblemKind, v, owner string, expiresAt int64, holders ...string) model.Problem {
	table, key := f.s.LockKey(0, v)
	p := model.Problem{Kind: kind, Constraint: f.s.Constraints[0].Attr, Value: v, Lock: key, Owner: owner, Accounts: []string{}, ExpiresAt: expiresAt}
	if table != f.s.Table {
		p.LockTable = table
	}
	if len(holders) > 0 {
		p.Accounts = holders
	}
	return p
}

// wantLines renders the expected problems as problemLines renders rows.
func (f *ttlFixture) wantLines(t *testing.T) []string {
	t.Helper()
	var maps []map[string]any
	for _, p := range f.want {
		b, _ := json.Marshal(p)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		maps = append(maps, m)
	}
	lines := problemLines(t, maps)
	slices.Sort(lines)
	return lines
}

// TestDuckDBQueryJudgesTTLs: on a table of every TTL case, in both
// layouts, the DuckDB query at --now (the export's time) and check
// --export find exactly the problems the contract lists: expired locks (also at now exactly, with
// their holders and owner, never as orphan, foreign or missing), expiring
// locks, no reservation, a TTL DynamoDB ignores judged as none, and in
// layout 2 the lock table's own TTL attribute, not the account table's.
func TestDuckDBQueryJudgesTTLs(t *testing.T) {
	duck := duckDBDir(t)
	for _, layout := range []model.Layout{model.LayoutSingle, model.LayoutTables} {
		t.Run(string(layout), func(t *testing.T) {
			t.Parallel()
			f := newTTLFixture(layout)
			dir, tableFlags, setup := duckExports(t, &f.s, f.tables)
			args := append(append([]string{"sql", "--dialect", "duckdb"}, tableFlags...), cli.SchemaFlags(&f.s)...)
			q := run(t, append(args, "--now", exporttest.TTLNow.Format("2006-01-02T15:04:05Z07:00"))...)
			if q.code != 0 || q.stderr != "" {
				t.Fatalf("sql: exit %d, stderr %q", q.code, q.stderr)
			}
			if epoch := run(t, append(args, "--now", strconv.FormatInt(f.now, 10))...); epoch.stdout != q.stdout {
				t.Errorf("--now as epoch seconds writes another query than as RFC 3339:\n%s", epoch.stdout)
			}
			got := problemLines(t, duckDB(t, duck, setup, q.stdout))
			slices.Sort(got)
			want := f.wantLines(t)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("the query found\n%s\nwant\n%s\nquery:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), q.stdout)
			}
			// check --export, at the export's time by default: the same
			// problems, the reservation counted, a warning for each item
			// whose TTL DynamoDB ignores (the query gives none).
			c := run(t, append([]string{"check", "--json", "--export", dir}, cli.SchemaFlags(&f.s)...)...)
			var report struct {
				Problems     []map[string]any
				Reservations int
				Warnings     []string
			}
			if err := json.Unmarshal([]byte(c.stdout), &report); err != nil || c.code != cli.ExitProblems {
				t.Fatalf("check --export: exit %d, %v: %s", c.code, err, c.stderr)
			}
			checked := problemLines(t, report.Problems)
			slices.Sort(checked)
			if strings.Join(checked, "\n") != strings.Join(want, "\n") {
				t.Errorf("check --export found\n%s\nwant\n%s", strings.Join(checked, "\n"), strings.Join(want, "\n"))
			}
			if report.Reservations != 1 || len(report.Warnings) != 3 {
				t.Errorf("check --export: %d reservations, want 1; warnings %q, want the locks of millis and text and the account a10", report.Reservations, report.Warnings)
			}
		})
	}
}

// TestExportNow: check --export judges TTLs at the export's time unless
// --now says otherwise, and says which in the JSON ("now") and the human
// report; sql asks for --now where it judges TTLs (it reads no export to
// take its time from); --now refuses what is not a time in words.
func TestExportNow(t *testing.T) {
	t.Parallel()
	f := newTTLFixture(model.LayoutSingle)
	dir, tableFlags, _ := duckExports(t, &f.s, f.tables)
	check := append([]string{"check", "--endpoint-url", closedPort(t), "--export", dir}, cli.SchemaFlags(&f.s)...)
	later := f.now + 7200
	for _, c := range []struct {
		args  []string
		now   int64
		human string
	}{
		{nil, f.now, "TTLs judged at the export's time (2024-03-01T12:30:00Z)\n"},
		{[]string{"--now", "2024-03-01T14:30:00Z"}, later, "TTLs judged at --now (2024-03-01T14:30:00Z)\n"},
		{[]string{"--now", strconv.FormatInt(later, 10)}, later, "TTLs judged at --now (2024-03-01T14:30:00Z)\n"},
	} {
		r := run(t, append(append(check, "--json"), c.args...)...)
		var report struct{ Now int64 }
		if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || r.code != cli.ExitProblems {
			t.Fatalf("%v: exit %d, %v: %s", c.args, r.code, err, r.stderr)
		}
		if report.Now != c.now {
			t.Errorf("%v: now %d, want %d", c.args, report.Now, c.now)
		}
		if r = run(t, append(check, c.args...)...); !strings.Contains(r.stdout, "(--confirm confirms them)\n"+c.human+"table ") {
			t.Errorf("%v: the human report does not say %q:\n%s", c.args, c.human, r.stdout)
		}
	}
	// Without a TTL attribute the human report says nothing of TTLs.
	plain := model.DefaultSchema(model.LayoutSingle)
	if r := run(t, append([]string{"check", "--endpoint-url", closedPort(t), "--export", dir}, cli.SchemaFlags(&plain)...)...); strings.Contains(r.stdout, "TTL") {
		t.Errorf("a check without TTL attributes speaks of TTLs:\n%s", r.stdout)
	}
	wantError(t, run(t, "check", "--now", "1709296200"), cli.ExitError, "--now goes with --export")
	wantError(t, run(t, append(check, "--now", "1709296200000")...), cli.ExitError, `"1709296200000" looks like milliseconds: give epoch seconds (1709296200)`)
	wantError(t, run(t, append(check, "--now", "yesterday")...), cli.ExitError, "want epoch seconds (1709294400) or RFC 3339")
	sql := append(append([]string{"sql", "--dialect", "duckdb"}, tableFlags...), cli.SchemaFlags(&f.s)...)
	wantError(t, run(t, sql...), cli.ExitError, "--ttl-attr: give --now", "exportTime in its manifest-summary.json")
	if r := run(t, append([]string{"sql", "--dialect", "duckdb"}, cli.SchemaFlags(&plain)...)...); r.code != 0 || strings.Contains(r.stdout, "TTLs judged") {
		t.Errorf("sql without TTL attributes: exit %d, %s", r.code, r.stderr)
	}
}
