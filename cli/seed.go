package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/dynamo"
)

func (a *app) seedCommand() *cobra.Command {
	var o dynamo.SeedOptions
	cmd := &cobra.Command{
		Use:   "seed",
		Short: "Create the tables if missing and write sample accounts through the pattern (--anomalies plants problems)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.schema()
			if err != nil {
				return err
			}
			if o.Accounts < 0 || o.Accounts > dynamo.MaxSeedAccounts {
				return usageErr("--accounts %d: want 0 to %d", o.Accounts, dynamo.MaxSeedAccounts)
			}
			if a.readOnly {
				return a.mayWrite(dynamo.Endpoint{})
			}
			store, err := a.backend(cmd.Context(), s)
			if err != nil {
				return err
			}
			if err := a.mayWrite(store.Endpoint); err != nil {
				return err
			}
			res, err := store.Seed(cmd.Context(), o)
			if err != nil {
				return err
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
	cmd.Flags().BoolVar(&o.Anomalies, "anomalies", false, "also plant every kind of problem, as buggy code would")
	cmd.Flags().BoolVar(&o.Indexes, "indexes", false, "create the account table with a GSI per unique attribute, named by-ATTR (for --index ATTR=by-ATTR)")
	return cmd
}
