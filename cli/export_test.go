package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/dynamo/export"
	"github.com/locktable/locktable/dynamo/export/exporttest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// canonicalReport decodes a check --json report, checks that as_of is
// asOf (none: absent), and returns it without consumed_rcu, as_of and now
// (each check's own start), its problems and warnings sorted (problems
// that tie on the contract's order, the invalid owners of one value, come
// in any order; items warned of in the order they were read).
func canonicalReport(t *testing.T, stdout, asOf string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("not a report: %v: %.300s", err, stdout)
	}
	if got, _ := m["as_of"].(string); got != asOf {
		t.Errorf("as_of %q, want %q", got, asOf)
	}
	delete(m, "as_of")
	delete(m, "consumed_rcu")
	delete(m, "now")
	if w, ok := m["warnings"].([]any); ok {
		// The items warned of come in the order they were read; past the
		// census's cap, which ones are named depends on it too.
		var names []string
		more := ""
		for _, x := range w {
			if x, _ := x.(string); strings.HasPrefix(x, "and ") {
				more = x
			} else {
				names = append(names, x)
			}
		}
		slices.Sort(names)
		if more != "" {
			names = []string{fmt.Sprintf("%d items named, %s", len(names), more)}
		}
		m["warnings"] = names
	}
	var problems []string
	for _, p := range m["problems"].([]any) {
		b, _ := json.Marshal(p)
		problems = append(problems, string(b))
	}
	slices.Sort(problems)
	delete(m, "problems")
	head, _ := json.Marshal(m)
	return string(head) + "\n" + strings.Join(problems, "\n")
}

// sameReport fails with the first line of two canonical reports that
// differs.
func sameReport(t *testing.T, what, got, want string) {
	t.Helper()
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		if i >= len(g) || i >= len(w) || g[i] != w[i] {
			t.Fatalf("%s differs from check at line %d (%d problems, want %d)\n got %.400s\nwant %.400s",
				what, i+1, len(g)-1, len(w)-1, strings.Join(g[min(i, len(g)-1):], "\n"), strings.Join(w[min(i, len(w)-1):], "\n"))
		}
	}
}

// TestCheckExportIsCheck: the same table content, with every kind of
// problem, in DynamoDB and in an export of it: check --export (no read of
// DynamoDB at all: its endpoint is a closed port) reports what check
// reports, as of the export time; with --confirm, confirmed against the
// live tables, the same again. Both layouts; the export is read from a
// directory and from S3. With TTL attributes (every TTL case, around the
// time of the export), every check runs at the export's time, so that the
// live check judges TTLs as the export does.
func TestCheckExportIsCheck(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	schemas := map[string]model.Schema{}
	for name, s := range exporttest.Schemas() {
		schemas[name], schemas[name+"-ttl"] = s, exporttest.WithTTL(s)
	}
	for name, s := range schemas {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			store, client := dynamotest.Store(t, s)
			s := store.Schema
			// One time for the export and every check: the live ones run
			// at it too, so TTLs are judged alike whatever day this runs.
			at := time.Date(2024, 3, 1, 12, 30, 0, 123e6, time.UTC)
			run := func(t *testing.T, args ...string) result { return runAt(t, clock.Fixed(at), args...) }
			tables := exporttest.TablesAt(rand.New(rand.NewPCG(uint64(len(name)), 3)), &s, 30, at)
			for _, table := range s.Tables() {
				dynamotest.Put(t, client, table, tables[table]...)
			}
			dir := t.TempDir()
			for _, table := range s.Tables() {
				if _, err := export.Write(dir, export.Options{Table: table, ExportTime: at, Bucket: "snapshots", Prefix: "ddb", Files: 2}, tables[table]); err != nil {
					t.Fatal(err)
				}
			}
			// A preset reads its key names from the live table; without
			// one (--export alone) they are given.
			flags := cli.SchemaFlags(&s)
			live := run(t, append([]string{"check", "--json", "--endpoint-url", ep}, flags...)...)
			if live.code != cli.ExitProblems {
				t.Fatalf("check: exit %d, stderr %q", live.code, live.stderr)
			}
			want := canonicalReport(t, live.stdout, "")
			for _, k := range model.ProblemKinds {
				ttl := k == model.ExpiredLock || k == model.ExpiringLock
				if strings.Contains(want, `"kind":"`+string(k)+`"`) != (!ttl || s.HasTTL()) {
					t.Fatalf("the table has no %s, or one without TTL attributes", k)
				}
			}
			asOf := at.Format(time.RFC3339Nano)
			offline := append([]string{"check", "--json", "--endpoint-url", closedPort(t)}, offlineFlags(&s)...)
			r := run(t, append(offline, "--export", dir)...)
			if r.code != cli.ExitProblems || r.stderr != "" {
				t.Fatalf("check --export: exit %d, stderr %q", r.code, r.stderr)
			}
			sameReport(t, "check --export", canonicalReport(t, r.stdout, asOf), want)

			r = run(t, append([]string{"check", "--json", "--endpoint-url", ep, "--export", dir, "--confirm"}, flags...)...)
			if r.code != cli.ExitProblems || r.stderr != "" {
				t.Fatalf("check --export --confirm: exit %d, stderr %q", r.code, r.stderr)
			}
			sameReport(t, "check --export --confirm", canonicalReport(t, r.stdout, asOf), want)

			url := exporttest.S3(t, "snapshots", dir, "ddb")
			r = run(t, append(offline, "--export", "s3://snapshots/ddb", "--s3-endpoint-url", url)...)
			if r.code != cli.ExitProblems || r.stderr != "" {
				t.Fatalf("check --export s3://: exit %d, stderr %q", r.code, r.stderr)
			}
			sameReport(t, "check --export s3://", canonicalReport(t, r.stdout, asOf), want)

			// The human report says what it read and as of when.
			r = run(t, append(append([]string{"check", "--endpoint-url", closedPort(t)}, offlineFlags(&s)...), "--export", dir)...)
			judged := ""
			if s.HasTTL() {
				judged = "TTLs judged at the export's time (" + at.Truncate(time.Second).Format(time.RFC3339) + ")\n"
			}
			if r.code != cli.ExitProblems || !strings.HasPrefix(r.stdout, "export of "+s.Table+" taken "+asOf+" (") ||
				!strings.Contains(r.stdout, "\nproblems as of "+asOf+", not confirmed against the live table (--confirm confirms them)\n"+judged+"table "+s.Table+": ") {
				t.Fatalf("human report: exit %d\n%s", r.code, r.stdout)
			}
		})
	}
}

// TestCheckExportUsage: what --export refuses, in words.
func TestCheckExportUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	at := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, table := range []string{"accounts", "accounts", "devices"} {
		if _, err := export.Write(dir, export.Options{Table: table, ExportTime: at}, nil); err != nil {
			t.Fatal(err)
		}
	}
	closed := closedPort(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"check", "--confirm"}, "--confirm goes with --export"},
		{[]string{"check", "--export", dir, "--merge", "a.part.gz"}, "not parts of a sharded check"},
		{[]string{"check", "--export", t.TempDir()}, "no DynamoDB export at"},
		{[]string{"check", "--export", dir}, "two exports of table accounts"},
		{[]string{"check", "--export", "accounts=" + dir}, "holds 3 exports"},
		{[]string{"check", "--export", dir, "--layout", "tables"}, "no export of table unique_mac_addresses among --export (found exports of accounts; --export unique_mac_addresses=LOCATION"},
		{[]string{"check", "--export", "s3:///x"}, "want s3://BUCKET/PREFIX"},
		{[]string{"check", "--export", "s3://no-bucket/x", "--s3-endpoint-url", closed}, "no-bucket"},
		// A preset's key names, account sort key and unique attributes
		// come from the live table: without one, the flags give them.
		{[]string{"check", "--export", dir, "--preset", "onetable:User"}, "--export reads nothing from DynamoDB, so --preset onetable:User cannot read " +
			"the table's key names, its accounts' sort key or its unique attributes: give --pk, --sk, --account-sk, --unique ATTR (or add --confirm"},
		{[]string{"check", "--export", dir, "--preset", "typedorm:user", "--pk", "PK", "--sk", "SK", "--unique", "email"}, "give --account-sk (or add --confirm"},
	}
	for _, c := range cases {
		r := run(t, append(c.args, "--endpoint-url", closed)...)
		wantError(t, r, cli.ExitError, c.want)
	}
}
