package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/seed"
	"github.com/locktable/locktable/model"
)

// seedJSON is seed --json's one object.
type seedJSON struct {
	Tables   []string `json:"tables"`
	Endpoint string   `json:"endpoint"`
	seed.Result
}

func (a *app) seedCommand() *cobra.Command {
	var o seed.Options
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "seed",
		Short: "Create the tables if missing and write sample accounts through the pattern (--anomalies plants problems)",
		Example: `  locktable seed --endpoint-url http://localhost:8000 --accounts 1000 --anomalies
  locktable seed --target local --indexes
  locktable seed --endpoint-url http://localhost:8000 --table mi6 --preset electrodb:agent --unique email --constraint-entity service=mi6 --anomalies`,
		GroupID: "write",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.seedPresetTable = true
			s, err := a.schema()
			if err != nil {
				return err
			}
			if o.Accounts < 0 || o.Accounts > seed.MaxAccounts {
				return usageErr("--accounts %d: want 0 to %d", o.Accounts, seed.MaxAccounts)
			}
			// Seeding writes outside the guarded transactions (it plants
			// problems on purpose), so the audit log records it as one
			// operation: refused, or intent then outcome.
			store, _, err := a.guardWrite(cmd.Context(), writeOp{name: "seed", keys: s.Tables()}, false)
			if err != nil {
				return err
			}
			record := func(event string, outcome model.Outcome, why error) error {
				e := dynamo.AuditEntry{Event: event, Operation: "seed", Table: s.Table, Keys: s.Tables(), Outcome: outcome}
				if why != nil {
					e.Reason = why.Error()
				}
				return store.Audit.Record(e)
			}
			if err := record(dynamo.EventIntent, "", nil); err != nil {
				return usageErr("%v: nothing was written", err)
			}
			p := newProgress(a.stderr)
			o.Progress = func(n int) { p.update("seed", int64(n), int64(o.Accounts), "accounts written") }
			res, err := seed.Run(cmd.Context(), store, o)
			res.Created = append(a.presetCreated, res.Created...)
			p.done()
			if err != nil {
				_ = record(dynamo.EventOutcome, model.Unknown, err)
				return err
			}
			if err := record(dynamo.EventOutcome, model.Committed, nil); err != nil {
				fmt.Fprintf(a.stderr, "locktable: seeded, but %v\n", err)
			}
			if asJSON {
				if res.Created == nil {
					res.Created = []string{}
				}
				return writeJSON(a.stdout, seedJSON{Tables: s.Tables(), Endpoint: store.Endpoint.String(), Result: res})
			}
			created := ""
			if len(res.Created) > 0 {
				created = "; created " + strings.Join(res.Created, ", ")
			}
			fmt.Fprintf(a.stdout, "seeded %s at %s: %d accounts, %d anomaly cases%s\n",
				strings.Join(s.Tables(), ", "), store.Endpoint, res.Accounts, res.AnomalyCases, created)
			return nil
		},
	}
	cmd.Flags().IntVar(&o.Accounts, "accounts", 100, "healthy accounts to write")
	cmd.Flags().BoolVar(&asJSON, "json", false, `print what was written as one JSON object: {"tables","endpoint","created","accounts","anomaly_cases"}`)
	cmd.Flags().BoolVar(&o.Anomalies, "anomalies", false, "also plant every kind of problem, as buggy code would")
	cmd.Flags().BoolVar(&o.Indexes, "indexes", false, "create the account table with a GSI per unique attribute, named by-ATTR (for --index ATTR=by-ATTR)")
	return cmd
}
