package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/dynamo/export"
)

func (a *app) sqlCommand() *cobra.Command {
	var (
		dialect string
		tables  []string
		now     nowFlag
	)
	cmd := &cobra.Command{
		Use:   "sql --dialect athena|duckdb [--export-table [TABLE=]RELATION]...",
		Short: "Print one SQL query that finds every problem in DynamoDB exports (Athena, DuckDB)",
		Long: `Prints one SQL query, written from the schema flags, that finds every problem
kind over the tables' exports to S3 (DYNAMODB_JSON), with the columns of
check --json's problems (kind, constraint, value, lock, lock_table, owner,
accounts) in check's order. Nothing is read: run the query where the
export is (Athena, DuckDB).

Each export table has one row per item and a column Item, the item in
DynamoDB JSON as JSON text (the "Item" of each line of the export's data
files). RELATION is used as written; by default each table's own name,
quoted. Layout 2 has one export per table: name each with TABLE=RELATION.
--normalize lower is SQL's lower(); casefold is refused. A --preset reads
nothing from the table here: give --pk, --sk, --account-sk and --unique
(electrodb: --constraint-entity service=SERVICE too).

With --ttl-attr, TTLs are judged at --now, a literal in the query, as
check --export judges them: give the export's time (exportTime in its
manifest-summary.json, which check --export uses by default), since the
items are as of then. The query reports problems only: no count of
reservations, and no warning for a TTL DynamoDB ignores (judged as none).`,
		Example: `  # DuckDB, straight from the export's files
  locktable sql --dialect duckdb --export-table "read_json('exports/AWSDynamoDB/01709294400000-ab12cd34/data/*.json.gz', columns={Item: 'JSON'})" | duckdb

  # Athena: a table of the data files' lines, and Item from each
  locktable sql --dialect athena --export-table "(SELECT json_extract(line, '$.Item') AS Item FROM accounts_export)"

  # layout 2: one export table per DynamoDB table
  locktable sql --dialect duckdb --layout tables --export-table devices=devices_x \
    --export-table unique_mac_addresses=macs_x --export-table unique_registration_codes=codes_x

  # reservations: TTLs judged as of the export's time
  locktable sql --dialect duckdb --ttl-attr expires_at \
    --now "$(jq -r .exportTime exports/AWSDynamoDB/01709294400000-ab12cd34/manifest-summary.json)"`,
		GroupID: "read",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.schema()
			if err != nil {
				return err
			}
			if err := offlinePreset(&s, "sql", ""); err != nil {
				return err
			}
			d, err := export.ParseDialect(dialect)
			if err != nil {
				return usageErr("%v", err)
			}
			if s.HasTTL() && !now.set {
				// check --export's default, the export's time, is in a
				// file this command does not read.
				return usageErr("--ttl-attr: give --now, the time TTLs are judged at: the export's time (exportTime in its %s), as check --export judges them", export.SummaryFile)
			}
			relations := map[string]string{}
			for _, t := range s.Tables() {
				relations[t] = export.Ident(t)
			}
			for _, x := range tables {
				table, rel, ok := strings.Cut(x, "=")
				if !ok || !slices.Contains(s.Tables(), table) {
					table, rel = s.Table, x // a relation may hold "=" (read_json(..., format='...'))
				}
				if strings.TrimSpace(rel) == "" {
					return usageErr("--export-table %q: name a relation", x)
				}
				relations[table] = rel
			}
			q, err := export.Query(&s, d, relations, now.at)
			if err != nil {
				return usageErr("%v", err)
			}
			_, err = fmt.Fprint(a.stdout, q)
			return err
		},
	}
	cmd.Flags().StringVar(&dialect, "dialect", "", "athena (Athena engine 3, Trino) or duckdb")
	cmd.Flags().Var(&now, "now", "with --ttl-attr: judge TTLs at this time (epoch seconds or RFC 3339): the export's time")
	cmd.Flags().StringArrayVar(&tables, "export-table", nil, "[TABLE=]RELATION: the SQL relation holding TABLE's export (default: the account table; repeat; default relation: the table's name)")
	return cmd
}
