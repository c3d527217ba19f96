package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/mistake"
	"github.com/locktable/locktable/model"
)

func (a *app) demoCommand() *cobra.Command {
	demo := &cobra.Command{
		Use:   "demo",
		Short: "Show the pattern at work: replay the articles' mistakes (demo break KIND)",
		Example: `  locktable demo break missing-lock --endpoint-url http://localhost:8000
  locktable demo break foreign-lock --demo --json`,
		GroupID: "write",
		Args:    cobra.NoArgs,
	}
	var asJSON bool
	brk := &cobra.Command{
		Use:   "break KIND",
		Short: "Replay one way of getting uniqueness wrong on fresh accounts, so that check shows its problem (demo or loopback only)",
		Long: `break replays, on fresh accounts, one mistake the articles describe, with
the very requests buggy code sends, and prints each beside the guarded
transaction locktable would send instead. locktable check then shows the
problem it leaves, and nothing else new:

` + kindsHelp() + `
It writes outside the guarded transactions on purpose, so it runs only
against --demo or a loopback endpoint (never elsewhere, even with --write,
and never under --read-only); the audit log records it as one operation.`,
		Example: `  locktable demo break rename-leak --endpoint-url http://localhost:8000
  locktable demo break gsi-duplicate --endpoint-url http://localhost:8000 --json`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: mistake.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, ok := mistake.Find(args[0])
			if !ok {
				return usageErr("demo break %q: want one of %s", args[0], strings.Join(mistake.Names(), ", "))
			}
			ctx := cmd.Context()
			op := writeOp{name: "demo break " + kind.Name}
			store, refuse, err := a.guardWrite(ctx, op, false)
			if err != nil {
				return err
			}
			if !store.Endpoint.Demo && !store.Endpoint.Loopback {
				return refuse(usageErr("demo break writes problems on purpose: only on --demo or a loopback endpoint, not %s (--write does not change that)", store.Endpoint))
			}
			if err := a.ready(ctx, store, refuse, false); err != nil {
				return err
			}
			record := func(e dynamo.AuditEntry) error {
				e.Operation, e.Table = op.name, store.Schema.Table
				return store.Audit.Record(e)
			}
			if err := record(dynamo.AuditEntry{Event: dynamo.EventIntent}); err != nil {
				return usageErr("%v: nothing was written", err)
			}
			replay, err := mistake.Run(ctx, store, kind)
			outcome := dynamo.AuditEntry{Event: dynamo.EventOutcome, Keys: replay.Accounts, Outcome: dynamo.Committed}
			if err != nil {
				outcome.Outcome, outcome.Reason = dynamo.Unknown, err.Error()
			}
			_ = record(outcome)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, replay)
			}
			return writeReplay(a.stdout, replay)
		},
	}
	brk.Flags().BoolVar(&asJSON, "json", false, `print what was done as one JSON object: {"kind","problem","story","setup","accounts","sent":[{"call","input"}],"guarded","found"}`)
	demo.AddCommand(brk)
	return demo
}

// kindsHelp lists the kinds for break's help.
func kindsHelp() string {
	var b strings.Builder
	for _, k := range mistake.Kinds {
		fmt.Fprintf(&b, "  %-14s %s: %s\n", k.Name, k.Problem, k.Story)
	}
	return b.String()
}

// writeReplay prints a replayed mistake: the story, what it sent, what
// locktable would send, and what the keys show now.
func writeReplay(w io.Writer, r mistake.Replay) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", r.Kind, r.Story)
	for _, s := range r.Setup {
		fmt.Fprintf(&b, "set up: %s\n", model.Printable(s))
	}
	b.WriteString("sent, outside any transaction (aws dynamodb put-item / delete-item --cli-input-json):\n")
	for _, u := range r.Sent {
		doc, err := u.MarshalJSON()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "  %s\n", model.EscapeJSON(string(doc)))
	}
	b.WriteString("locktable would send instead (aws dynamodb transact-write-items --cli-input-json):\n")
	for _, g := range r.Guarded {
		fmt.Fprintf(&b, "  %s\n", model.EscapeJSON(string(g)))
	}
	fmt.Fprintf(&b, "now (consistent reads of the keys involved): %d problem(s); locktable check shows them, locktable repair fixes what it can\n", len(r.Found))
	for _, p := range r.Found {
		line := fmt.Sprintf("%s %s=%s", p.Kind, p.Constraint, p.Value)
		if len(p.Accounts) > 0 {
			line += " held by " + strings.Join(p.Accounts, ", ")
		}
		if p.Owner != "" {
			line += "; the lock names " + p.Owner
		}
		fmt.Fprintf(&b, "  %s\n", model.Printable(line))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
