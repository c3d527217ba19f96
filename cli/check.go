package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

func (a *app) checkCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Scan the table and report every integrity problem (exit 0 none, 1 problems, 2 error)",
		Example: `  locktable check
  locktable check --target prod --json | jq '.problems[] | select(.kind == "missing_lock")'
  locktable check --endpoint-url http://localhost:8000 --table accounts --segments 8
  locktable check --layout tables --table devices --unique mac_address=@unique_mac_addresses/MacAddress`,
		GroupID: "read",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.schema()
			if err != nil {
				return err
			}
			store, err := a.open(cmd.Context(), s)
			if err != nil {
				return err
			}
			var progress func(dynamo.CheckProgress)
			if f, ok := a.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
				progress = progressLine(a.stderr)
			}
			report, err := store.Check(cmd.Context(), progress)
			if err != nil {
				return err
			}
			if hint := report.SchemaHint(&s); hint != "" {
				fmt.Fprintln(a.stderr, "locktable: hint: "+hint)
			}
			if asJSON {
				err = writeJSON(a.stdout, report)
			} else {
				err = writeReport(a.stdout, report)
			}
			if err != nil {
				return err
			}
			if len(report.Problems) > 0 {
				return &exitError{code: ExitProblems}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	return cmd
}

// progressLine returns a progress callback that redraws one stderr line at
// most ten times a second, and clears it when the check is done.
func progressLine(w io.Writer) func(dynamo.CheckProgress) {
	var last time.Time
	return func(p dynamo.CheckProgress) {
		if p.Phase == dynamo.PhaseDone {
			fmt.Fprint(w, "\r\x1b[K")
			return
		}
		if time.Since(last) < 100*time.Millisecond {
			return
		}
		last = time.Now()
		of := ""
		if p.Approx > 0 {
			of = fmt.Sprintf(" of ~%d", p.Approx)
		}
		fmt.Fprintf(w, "\r\x1b[K%s: %d%s items scanned", p.Phase, p.Scanned, of)
	}
}

// writeJSON prints v as one line of JSON. Values come from the table, so
// characters that could reorder or hide text on a terminal are written as
// \u escapes: the same JSON value, safe to cat.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, model.EscapeJSON(buf.String()))
	return err
}

// writeReport prints the human report: a summary, each kind with its count,
// then one line per problem.
func writeReport(w io.Writer, r model.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "table %s: %d items scanned, %d accounts, %d locks\n", model.Printable(r.Table), r.ScannedItems, r.Accounts, r.Locks)
	counts := r.Counts()
	for _, k := range model.ProblemKinds {
		fmt.Fprintf(&b, "%-16s %d\n", k, counts[k])
	}
	if len(r.Problems) == 0 {
		b.WriteString("no problems\n")
	} else {
		b.WriteString("\n")
	}
	for _, p := range r.Problems {
		b.WriteString(problemLine(p))
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// problemLine renders one problem on one line, every table-sourced string
// made printable.
func problemLine(p model.Problem) string {
	parts := []string{fmt.Sprintf("%-16s %s %s", p.Kind, p.Constraint, quote(p.Value))}
	if p.Lock != nil {
		var pairs []string
		for _, k := range slices.Sorted(maps.Keys(p.Lock)) {
			pairs = append(pairs, k+"="+p.Lock[k])
		}
		lock := strings.Join(pairs, ",")
		if p.LockTable != "" {
			lock = p.LockTable + ":" + lock
		}
		parts = append(parts, "lock "+quote(lock))
	}
	if p.Owner != "" {
		parts = append(parts, "owner "+quote(p.Owner))
	}
	if len(p.Accounts) > 0 {
		held := make([]string, len(p.Accounts))
		for i, id := range p.Accounts {
			held[i] = quote(id)
		}
		parts = append(parts, "accounts "+strings.Join(held, ","))
	}
	return strings.Join(parts, "  ")
}

// quote makes a table value printable, quoted (model.Quote) when it is
// empty or holds a space or a quote.
func quote(s string) string {
	if p := model.Printable(s); p != "" && !strings.ContainsAny(p, " \"") {
		return p
	}
	return model.Quote(s)
}
