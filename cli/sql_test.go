package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/export"
	"github.com/locktable/locktable/dynamo/export/exporttest"
	"github.com/locktable/locktable/model"
)

// duckDBDir returns where `make duckdb` installed @duckdb/node-api (the
// Makefile exports DUCKDB_NODE_DIR).
func duckDBDir(t *testing.T) string {
	t.Helper()
	return nodePackage(t, "DUCKDB_NODE_DIR", filepath.Join("..", ".tools", "duckdb"), filepath.Join("@duckdb", "node-api"), "duckdb")
}

// nodePackage returns the directory a make target installed npm package
// pkg into: $env, else dir. Without it, or without node, the test is
// skipped on a developer's machine and fails in CI.
func nodePackage(t *testing.T, env, dir, pkg, target string) string {
	t.Helper()
	if d := os.Getenv(env); d != "" {
		dir = d
	}
	dir, _ = filepath.Abs(dir)
	_, errPkg := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json"))
	_, errNode := exec.LookPath("node")
	if errPkg != nil || errNode != nil {
		msg := fmt.Sprintf("%s for node not found (%v, %v): run `make %s`, or `make test`", pkg, errPkg, errNode, target)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// duckDB runs query in DuckDB after the setup statements and returns its
// rows.
func duckDB(t *testing.T, dir string, setup []string, query string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := runNode("duckdb.cjs", "DUCKDB_NODE_DIR", dir, map[string]any{"setup": setup, "query": query}, &rows); err != nil {
		t.Fatalf("duckdb: %v\nquery:\n%s", err, query)
	}
	return rows
}

// runNode runs testdata/script with $env set to dir, in as JSON on its
// stdin, and decodes its stdout into out.
func runNode(script, env, dir string, in, out any) error {
	b, _ := json.Marshal(in)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", script))
	cmd.Env = append(os.Environ(), env+"="+dir)
	cmd.Stdin = bytes.NewReader(b)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: %.2000s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("printed %v: %.300s", err, stdout.String())
	}
	return nil
}

// problemLines renders problems (check --json's, or the query's rows) one
// a line, absent and null fields alike left out, an invalid_value's value
// as check renders that DynamoDB JSON, expires_at as a number.
func problemLines(t *testing.T, problems []map[string]any) []string {
	t.Helper()
	var lines []string
	for _, p := range problems {
		for k, v := range p {
			if v == nil {
				delete(p, k)
			}
		}
		if at, ok := p["expires_at"].(string); ok { // DuckDB's node API renders a BIGINT as a string
			n, err := strconv.ParseInt(at, 10, 64)
			if err != nil {
				t.Fatalf("expires_at %q is not a number", at)
			}
			p["expires_at"] = n
		}
		if p["kind"] == string(model.InvalidValue) {
			var v model.Value
			if err := json.Unmarshal([]byte(p["value"].(string)), &v); err != nil {
				t.Fatalf("invalid_value %q is not DynamoDB JSON: %v", p["value"], err)
			}
			p["value"] = v.DynamoJSON()
		}
		b, _ := json.Marshal(p)
		lines = append(lines, string(b))
	}
	return lines
}

// TestDuckDBQueryIsCheckExport: on random tables with every kind of
// problem, in both layouts, the DuckDB query over the exports finds what
// check --export reports, and orders it as check does. With TTL
// attributes (every TTL case: exporttest.TablesAt), the query's --now is
// the export's time, which check --export judges at by default; without,
// no lock expires.
func TestDuckDBQueryIsCheckExport(t *testing.T) {
	duck := duckDBDir(t)
	for name, plain := range exporttest.Schemas() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for seed := range uint64(4) {
				s := plain
				if seed > 0 { // seed 0 without TTL attributes
					s = exporttest.WithTTL(plain)
				}
				tables := exporttest.Tables(rand.New(rand.NewPCG(seed, 11)), &s, 25)
				dir, tableFlags, setup := duckExports(t, &s, tables)
				args := append([]string{"sql", "--dialect", "duckdb"}, tableFlags...)
				if s.HasTTL() {
					args = append(args, "--now", strconv.FormatInt(model.Epoch(exporttest.TTLNow), 10))
				}
				q := run(t, append(args, offlineFlags(&s)...)...)
				if q.code != 0 || q.stderr != "" {
					t.Fatalf("sql: exit %d, stderr %q", q.code, q.stderr)
				}
				c := run(t, append([]string{"check", "--json", "--export", dir}, offlineFlags(&s)...)...)
				if c.code != cli.ExitProblems {
					t.Fatalf("check --export: exit %d, stderr %q", c.code, c.stderr)
				}
				var report struct{ Problems []map[string]any }
				if err := json.Unmarshal([]byte(c.stdout), &report); err != nil {
					t.Fatal(err)
				}
				want := problemLines(t, report.Problems)
				rows := duckDB(t, duck, setup, q.stdout)
				got := problemLines(t, rows)
				// The order is check's: constraint, value, kind.
				for i := 1; i < len(rows); i++ {
					a, b := rows[i-1], rows[i]
					ca, cb := s.Constraint(a["constraint"].(string)), s.Constraint(b["constraint"].(string))
					if ca > cb || ca == cb && (a["value"].(string) > b["value"].(string) || a["value"] == b["value"] && a["kind"].(string) > b["kind"].(string)) {
						t.Errorf("seed %d: row %d is out of check's order:\n%s\n%s", seed, i, got[i-1], got[i])
					}
				}
				slices.Sort(want)
				slices.Sort(got)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					for i := range max(len(got), len(want)) {
						if i >= len(got) || i >= len(want) || got[i] != want[i] {
							t.Fatalf("seed %d: the query found %d problems, check %d; first difference:\n got %.400s\nwant %.400s\nquery:\n%s",
								seed, len(got), len(want), strings.Join(got[min(i, len(got)):], "\n"), strings.Join(want[min(i, len(want)):], "\n"), q.stdout)
						}
					}
				}
				wantEveryKind(t, fmt.Sprintf("seed %d", seed), &s, rows)
			}
		})
	}
}

// duckExports writes tables as the exports of s's tables, taken at
// exporttest.TTLNow, under a new directory, and returns it, the flags
// naming each export as a DuckDB view, and the setup that makes them.
func duckExports(t *testing.T, s *model.Schema, tables map[string][]model.Item) (dir string, tableFlags, setup []string) {
	t.Helper()
	dir = t.TempDir()
	for i, table := range s.Tables() {
		exportDir, err := export.Write(dir, export.Options{Table: table, ExportTime: exporttest.TTLNow, Files: 2}, tables[table])
		if err != nil {
			t.Fatal(err)
		}
		view := fmt.Sprintf("export_%d", i)
		setup = append(setup, fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_json('%s/data/*.json.gz', columns={Item: 'JSON'})", view, exportDir))
		tableFlags = append(tableFlags, "--export-table", table+"="+view)
	}
	return dir, tableFlags, setup
}

// wantEveryKind fails unless the problems hold every kind, the TTL kinds
// only where s has a TTL attribute.
func wantEveryKind(t *testing.T, what string, s *model.Schema, problems []map[string]any) {
	t.Helper()
	kinds := map[string]bool{}
	for _, p := range problems {
		kinds[p["kind"].(string)] = true
	}
	for _, k := range model.ProblemKinds {
		ttl := k == model.ExpiredLock || k == model.ExpiringLock
		if kinds[string(k)] != (!ttl || s.HasTTL()) {
			t.Fatalf("%s (TTL attributes %v): the tables hold %v", what, s.HasTTL(), kinds)
		}
	}
}

// TestSQLUsage: casefold and unknown dialects are refused in words; ElectroDB's preset is written; the
// Athena query reads the same relations with Trino's functions.
func TestSQLUsage(t *testing.T) {
	t.Parallel()
	wantError(t, run(t, "sql", "--dialect", "duckdb", "--normalize", "email=casefold"), cli.ExitError, "casefold", "no SQL equivalent")
	wantError(t, run(t, "sql", "--dialect", "mysql"), cli.ExitError, "want athena or duckdb")
	wantError(t, run(t, "sql", "--dialect", "duckdb", "--preset", "onetable:User", "--pk", "pk", "--sk", "sk"), cli.ExitError,
		"sql reads nothing from DynamoDB, so --preset onetable:User cannot read", "give --account-sk, --unique ATTR")
	// ElectroDB: accounts of any sort key named by their whole key, as
	// model.WholeKeyID escapes it; each constraint's locks by its own
	// sort key.
	r := run(t, "sql", "--dialect", "athena", "--preset", "electrodb:agent", "--pk", "pk", "--sk", "sk", "--unique", "email",
		"--constraint-entity", "service=mi6")
	for _, want := range []string{`replace(replace(pk, '\', '\\'), '|', '\|') || '|' || sk`,
		`sk = '$constraint_1#name_email#entity_agent' AND substr(pk, 1, 11) = '$mi6#value_'`} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("sql --preset electrodb:agent: exit %d, the query lacks %q:\n%s%s", r.code, want, r.stdout, r.stderr)
		}
	}
	// Accounts by type and =PK, scoped locks: Trino's strpos and ||.
	typed := exporttest.Schemas()["type-flags"]
	r = run(t, append([]string{"sql", "--dialect", "athena"}, offlineFlags(&typed)...)...)
	if r.code != 0 {
		t.Fatalf("exit %d, %s", r.code, r.stderr)
	}
	for _, want := range []string{`sk = pk AND substr(pk, 1, 5) = 'UNIQ#' AND strpos(substr(pk, 6), '#EMAIL#') > 1`,
		`coalesce(json_extract_scalar(x3, '$["S"]') = 'person', FALSE)`, `json_extract_scalar(x5, '$["S"]') || '#EMAIL#' || lower(`,
		`MAP(ARRAY['PK', 'SK'], ARRAY['UNIQ#' || lock_value, 'UNIQ#' || lock_value])`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the Athena query lacks %q:\n%s", want, r.stdout)
		}
	}
	r = run(t, "sql", "--dialect", "athena", "--layout", "tables", "--export-table", "devices=db.devices_x", "--export-table", "unique_mac_addresses=macs")
	if r.code != 0 {
		t.Fatalf("exit %d, %s", r.code, r.stderr)
	}
	for _, want := range []string{"FROM db.devices_x", "FROM macs", `FROM "unique_registration_codes"`, `json_extract_scalar(x0, '$["S"]')`, "array_agg(id) FILTER (WHERE role = 'hold')", "MAP(ARRAY['MacAddress'], ARRAY['' || lock_value])"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the Athena query lacks %q:\n%s", want, r.stdout)
		}
	}
}
