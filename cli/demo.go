package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/replay"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/model/mistake"
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
			if p := store.Schema.Preset; p != "" {
				// The replays write the plain layouts' items; a
				// library's table holds its own mistakes (seed
				// --anomalies, the demo's ElectroDB table).
				return refuse(usageErr("demo break replays on the plain layouts, not on --preset %s: the preset's seeded table (seed --anomalies, or --demo --preset electrodb:ENTITY) already holds such mistakes", p))
			}
			if err := a.ready(ctx, store, refuse, false); err != nil {
				return err
			}
			replay, err := replayMistake(ctx, store, kind)
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

// replayMistake replays kind on store, recorded in the audit log as one
// operation: an intent before anything is sent (nothing is, when it cannot
// be recorded), then its outcome. The caller has made sure the store may
// take it (the demo or a loopback endpoint, writable).
func replayMistake(ctx context.Context, store *dynamo.Store, kind mistake.Kind) (mistake.Replay, error) {
	record := func(e dynamo.AuditEntry) error {
		e.Operation, e.Table = "demo break "+kind.Name, store.Schema.Table
		return store.Audit.Record(e)
	}
	if err := record(dynamo.AuditEntry{Event: dynamo.EventIntent}); err != nil {
		return mistake.Replay{}, usageErr("%v: nothing was written", err)
	}
	replay, err := replay.Run(ctx, store, kind)
	outcome := dynamo.AuditEntry{Event: dynamo.EventOutcome, Keys: replay.Accounts, Outcome: model.Committed}
	if err != nil {
		outcome.Outcome, outcome.Reason = model.Unknown, err.Error()
	}
	_ = record(outcome)
	return replay, err
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
	lines, err := r.Lines(false)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}
