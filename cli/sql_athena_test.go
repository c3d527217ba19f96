package cli_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/export/exporttest"
	"github.com/locktable/locktable/model"
)

// trinoParse parses each query (by name) with the Trino grammar through
// testdata/trino.mjs and returns each one's syntax errors; it needs
// dt-sql-parser (`make trino-parser`, which exports
// TRINO_PARSER_NODE_DIR).
func trinoParse(t *testing.T, queries map[string]string) map[string][]string {
	t.Helper()
	dir := ""
	if matches, _ := filepath.Glob(filepath.Join("..", ".tools", "dt-sql-parser-*")); len(matches) > 0 {
		dir = matches[len(matches)-1]
	}
	dir = nodePackage(t, "TRINO_PARSER_NODE_DIR", dir, "dt-sql-parser", "trino-parser")
	var errs map[string][]string
	if err := runNode("trino.mjs", "TRINO_PARSER_NODE_DIR", dir, queries, &errs); err != nil {
		t.Fatalf("trino.mjs: %v", err)
	}
	return errs
}

// TestAthenaQueryParses: the Athena query of every shape of table, with
// and without TTL attributes, is Trino SQL; DuckDB's spellings are not
// (the parser tells them apart).
func TestAthenaQueryParses(t *testing.T) {
	t.Parallel()
	queries := map[string]string{}
	for name, plain := range exporttest.Schemas() {
		for _, s := range []model.Schema{plain, exporttest.WithTTL(plain)} {
			args := append([]string{"sql", "--dialect", "athena"}, offlineFlags(&s)...)
			key := name
			if s.HasTTL() {
				args, key = append(args, "--now", "1709296200"), name+"-ttl"
			}
			r := run(t, args...)
			if r.code != 0 {
				t.Fatalf("%s: exit %d, %s", key, r.code, r.stderr)
			}
			queries[key] = r.stdout
		}
	}
	// DuckDB's spellings of an empty list and a map, as its query writes
	// them: not Trino's.
	queries["duckdb"] = "SELECT CAST([] AS VARCHAR[]) AS accounts, MAP {'PK': 'UNIQ#' || v} AS lock FROM t"
	errs := trinoParse(t, queries)
	for name, q := range queries {
		switch {
		case name == "duckdb" && len(errs[name]) == 0:
			t.Errorf("the Trino grammar reads DuckDB's query: it checks nothing")
		case name != "duckdb" && len(errs[name]) > 0:
			t.Errorf("%s: the Athena query is not Trino SQL: %s\n%s", name, strings.Join(errs[name], "\n"), q)
		}
	}
}

// TestAthenaQueryJudgesTTLsAsDuckDB: the Athena query reads each table's
// TTL attribute as the DuckDB query does (which TestDuckDBQueryJudgesTTLs
// runs), and judges it with the same predicates: the lines that group,
// judge and select the problems are DuckDB's, spelled in Trino's
// functions.
func TestAthenaQueryJudgesTTLsAsDuckDB(t *testing.T) {
	t.Parallel()
	trino := strings.NewReplacer("len(", "cardinality(", "list_contains(", "contains(", "CAST([] AS VARCHAR[])", "CAST(ARRAY[] AS ARRAY(VARCHAR))",
		"list_sort(list_distinct(list(", "array_sort(array_distinct(array_agg(")
	for _, layout := range []model.Layout{model.LayoutSingle, model.LayoutTables} {
		s := exporttest.WithTTL(model.DefaultSchema(layout))
		now := strconv.FormatInt(model.Epoch(exporttest.TTLNow), 10)
		query := func(d string) []string {
			r := run(t, append([]string{"sql", "--dialect", d, "--now", now}, cli.SchemaFlags(&s)...)...)
			if r.code != 0 {
				t.Fatalf("%s %s: exit %d, %s", layout, d, r.code, r.stderr)
			}
			return strings.Split(r.stdout, "\n")
		}
		athena, duck := query("athena"), query("duckdb")
		if len(athena) != len(duck) {
			t.Fatalf("%s: %d lines, DuckDB's %d", layout, len(athena), len(duck))
		}
		for i, line := range duck {
			if strings.HasPrefix(line, "grouped AS") || strings.HasPrefix(line, "judged AS") || strings.HasPrefix(line, "problems AS") ||
				strings.Contains(line, "AS expires_at") || strings.HasPrefix(line, "--") {
				if want := trino.Replace(line); athena[i] != want {
					t.Errorf("%s line %d:\n got %s\nwant %s", layout, i+1, athena[i], want)
				}
			}
		}
		text := strings.Join(athena, "\n")
		col := fmt.Sprintf("x%d", slices.Index(s.ReadNames(s.Table), s.TTLAttr)) // the account table's TTL attribute
		for _, want := range []string{
			"locked AND coalesce(lock_at <= " + now + ", FALSE) AS expired",
			"locked AND coalesce(lock_at > " + now + ", FALSE) AND cardinality(holders) >= 1 AND (never OR coalesce(latest > lock_at, FALSE)) AS expiring",
			"(kind = 'orphan_lock' AND grp = '' AND locked AND cardinality(holders) = 0 AND lock_at IS NULL)",
			"NOT contains(holders, owner) AND NOT expired AND NOT expiring)",
			"(kind = 'expired_lock' AND grp = '' AND expired)", "(kind = 'expiring_lock' AND grp = '' AND expiring)",
			`json_extract(Item, '$["` + s.TTLAttr + `"]') AS ` + col,
			`CAST(ceil(CASE WHEN TRY_CAST(json_extract_scalar(` + col + `, '$["N"]') AS DOUBLE) <= ` + strconv.Itoa(model.MaxTTL) + ` THEN TRY_CAST(json_extract_scalar(` + col + `, '$["N"]') AS DOUBLE) END) AS BIGINT) AS ttl FROM a0`,
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the Athena query lacks %q:\n%s", layout, want, text)
			}
		}
		// Layout 2: each lock table's own attribute, read where the
		// DuckDB query reads it.
		for _, c := range s.Constraints {
			if c.InAccountTable() {
				continue
			}
			if want := `json_extract(Item, '$["` + c.TTLAttr + `"]') AS x2 FROM "` + c.LockTable + `"`; !strings.Contains(text, want) ||
				!strings.Contains(text, `TRY_CAST(json_extract_scalar(x2, '$["N"]') AS DOUBLE) END) AS BIGINT) AS ttl FROM (SELECT json_extract(Item, '$["`+c.KeyAttr+`"]')`) {
				t.Errorf("%s: the Athena query does not read %s's TTL attribute: lacks %q", layout, c.LockTable, want)
			}
		}
	}
}
