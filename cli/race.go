package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/writes"
)

// raceJSON is race --json's one object.
type raceJSON struct {
	Attr      string         `json:"attribute"`
	Value     string         `json:"value"`
	Op        string         `json:"op"`
	Committed int            `json:"committed"`
	Racers    []model.Result `json:"racers"`
	// Violations are the racers reported cancelled whose writes were
	// found in the table before the cleanup: guards that did not hold.
	Violations []writes.Violation `json:"violations"`
	Cleanup    []model.Result     `json:"cleanup"`
}

func (a *app) raceCommand() *cobra.Command {
	var (
		sets   []string
		n      int
		op     string
		keep   bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "race --set ATTR=VALUE [--n 20] [--op signup|rename]",
		Short: "Race N guarded transactions for one value and show the guard hold: one commits, the rest are cancelled slot by slot (exit 0; 1 if more committed, or a cancelled one wrote)",
		Long: `race starts N transactions at once that all claim one value of a unique
attribute: signups of new accounts (--op signup), or renames of N accounts
it first creates (--op rename). Each is the guarded transaction locktable
sends (no holder lookup: the guards alone decide). It reports every racer,
committed or cancelled with its slot in words. Before anything is deleted,
consistent reads look for what each cancelled racer would have written (its
new account, a lock naming it, its account holding the value): a cancelled
transaction writes nothing, so any of them found is a violation. It exits 0
when at most one committed and no cancelled racer wrote, 1 otherwise (a
backend or table whose guards do not hold). The racers' accounts are
deleted afterwards, by guarded deletes, unless --keep. It writes: loopback, --demo or --write only; every write is audited.`,
		Example: `  locktable race --demo --set email=race@x.io --n 20
  locktable race --endpoint-url http://localhost:8000 --set username=ada --op rename --json`,
		GroupID: "write",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			attr, value, err := raceFlags(sets, n, op)
			if err != nil {
				return err
			}
			return a.race(cmd.Context(), raceRun{attr: attr, value: value, op: op, n: n, keep: keep, asJSON: asJSON})
		},
	}
	cmd.Flags().StringArrayVar(&sets, "set", nil, "ATTR=VALUE: the value every racer claims")
	cmd.Flags().IntVar(&n, "n", 20, "racers (2 to 100)")
	cmd.Flags().StringVar(&op, "op", "signup", "signup (new accounts claim the value) or rename (accounts created first each rename to it)")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the racers' accounts")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the race as one JSON object")
	return cmd
}

// raceFlags checks race's flags: one value to race for, 2 to 100 racers,
// signups or renames.
func raceFlags(sets []string, n int, op string) (attr, value string, err error) {
	attrs, err := setFlag(sets)
	switch {
	case err != nil:
		return "", "", err
	case len(attrs) != 1:
		return "", "", usageErr("--set ATTR=VALUE: one value to race for")
	case n < 2 || n > 100:
		return "", "", usageErr("--n %d: want 2 to 100 racers", n)
	case op != "signup" && op != "rename":
		return "", "", usageErr("--op %q: want signup or rename", op)
	}
	for k, v := range attrs {
		attr, value = k, v
	}
	return attr, value, nil
}

// raceRun is a race as its flags ask for it.
type raceRun struct {
	attr, value, op string
	n               int
	keep, asJSON    bool
}

// race runs r: its racers sent at once, the cancelled ones read back,
// the racers' accounts deleted (unless keep), the race printed; exit 1
// when the guards did not hold.
func (a *app) race(ctx context.Context, r raceRun) error {
	store, refuse, err := a.openForWrite(ctx, writeOp{name: "race"}, false)
	if err != nil {
		return err
	}
	if store.Schema.Constraint(r.attr) < 0 {
		return refuse(usageErr("--set %s: not a unique attribute (--unique)", r.attr))
	}
	out := raceJSON{Attr: r.attr, Value: r.value, Op: r.op, Racers: []model.Result{}, Violations: []writes.Violation{}, Cleanup: []model.Result{}}
	flow := writes.Flow{Store: store.Writer, Schema: &store.Schema}
	ids, racers, setup, err := racers(ctx, flow, r.attr, r.value, r.op, r.n)
	out.Cleanup = append(out.Cleanup, setup...)
	if err != nil {
		// No race was run, so --keep has nothing to keep: the accounts
		// made for it so far are deleted.
		a.deleteRacers(ctx, flow, ids)
		return err
	}
	results, errs := flow.Race(ctx, racers, nil)
	txs := make([]backend.Tx, len(racers))
	for i, w := range racers {
		txs[i] = w.Tx
	}
	out.Racers, out.Committed = raceResults(results, errs)
	// Before the cleanup, which would delete the evidence: a racer
	// reported cancelled must have written nothing.
	out.Violations, err = writes.RaceViolations(ctx, store.Pages, &store.Schema, txs, results)
	if !r.keep {
		out.Cleanup = append(out.Cleanup, a.deleteRacers(ctx, flow, ids)...)
	}
	if err != nil {
		return err // without the reads back there is no verdict to give
	}
	if r.asJSON {
		err = writeJSON(a.stdout, out)
	} else {
		err = writeRace(a.stdout, out)
	}
	if err != nil {
		return err
	}
	if _, held := writes.RaceVerdict(out.Committed, out.Violations); !held {
		return &exitError{code: ExitProblems}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("racers could not send: %w", err)
	}
	return nil
}

// raceResults are the racers' results, a racer's error among its
// reasons, and how many committed.
func raceResults(results []model.Result, errs []error) (racers []model.Result, committed int) {
	racers = []model.Result{}
	for i, r := range results {
		if errs[i] != nil {
			r.Reasons = append(r.Reasons, model.Reason{Slot: -1, Code: string(r.Outcome), Message: errs[i].Error()})
		}
		if r.Outcome == model.Committed {
			committed++
		}
		racers = append(racers, r)
	}
	return racers, committed
}

// racers prepares the race through the write flow (writes.Flow.Racers
// and RenameRacers, as the TUI's race): the racers' account ids and
// writes, and, for renames, the signups that create the accounts first
// (their results). On an error the ids are still those of every account
// it may have created, for the caller to delete; a value the schema
// refuses is a usage error.
func racers(ctx context.Context, f writes.Flow, attr, value, op string, n int) (ids []string, ws []writes.Write, setup []model.Result, err error) {
	if op == "signup" {
		ws, err = f.Racers(map[string]string{attr: value}, n, nil)
		for _, w := range ws {
			ids = append(ids, w.Tx.Plan.Actions[0].Account)
		}
	} else {
		ids, ws, setup, err = f.RenameRacers(ctx, attr, value, n)
	}
	if fe := (*model.FieldError)(nil); errors.As(err, &fe) || errors.Is(err, model.ErrNoChange) {
		err = usageErr("%v", err)
	}
	return ids, ws, setup, err
}

// deleteRacers deletes the racers' accounts that exist, saying on stderr
// which could not be.
func (a *app) deleteRacers(ctx context.Context, f writes.Flow, ids []string) []model.Result {
	var done []model.Result
	for _, id := range ids {
		if res, err := deleteRacer(ctx, f, id); err == nil && res.Operation != "" {
			done = append(done, res)
		} else if err != nil {
			fmt.Fprintf(a.stderr, "locktable: could not delete racer %s: %v\n", model.Printable(id), err)
		}
	}
	return done
}

// deleteRacer deletes a racer's account with its locks, if it exists.
func deleteRacer(ctx context.Context, f writes.Flow, id string) (model.Result, error) {
	w, err := f.Delete(ctx, id, nil, nil)
	if fe := (*model.FieldError)(nil); errors.As(err, &fe) {
		return model.Result{}, nil // never created: its signup lost the race
	}
	if err != nil {
		return model.Result{}, err
	}
	return f.Send(ctx, w)
}

// writeRace prints one line per racer, a cancelled one found written
// marked under it, then the verdict.
func writeRace(w io.Writer, r raceJSON) error {
	written := map[int]writes.Violation{}
	for _, v := range r.Violations {
		written[v.Racer] = v
	}
	var b strings.Builder
	for i, res := range r.Racers {
		fmt.Fprintf(&b, "racer %2d  %-9s %s\n", i+1, res.Outcome, model.Printable(res.Keys[0]))
		for _, rs := range res.Reasons {
			if rs.Slot >= 0 {
				fmt.Fprintf(&b, "          slot %d, %s: %s\n", rs.Slot, model.Printable(rs.Action), model.Printable(rs.Message))
			} else {
				fmt.Fprintf(&b, "          %s: %s\n", model.Printable(rs.Code), model.Printable(rs.Message))
			}
		}
		if v, ok := written[i+1]; ok {
			fmt.Fprintf(&b, "          WRITTEN although cancelled: %s\n", model.Printable(strings.Join(v.Found, "; ")))
		}
	}
	verdict, _ := writes.RaceVerdict(r.Committed, r.Violations)
	fmt.Fprintf(&b, "%d of %d racers for %s=%s committed: %s", r.Committed, len(r.Racers), r.Attr, model.Printable(r.Value), verdict)
	if len(r.Cleanup) > 0 {
		fmt.Fprintf(&b, " (%d cleanup writes)", len(r.Cleanup))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
