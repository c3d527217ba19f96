package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

// Exit statuses of the write commands, beyond ExitOK and ExitError.
const (
	ExitCancelled = 3 // a transaction was cancelled (or settled as not committed)
	ExitUnknown   = 4 // an outcome is still unknown; wins over 3
)

// writeFlags are the flags every write command takes.
type writeFlags struct {
	dryRun, yes, asJSON bool
}

func (f *writeFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "print each transaction as aws dynamodb transact-write-items --cli-input-json input, one per line; send nothing")
	cmd.Flags().BoolVarP(&f.yes, "yes", "y", false, "send without asking")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print one JSON object per transaction")
}

// setFlag parses repeated --set ATTR=VALUE.
func setFlag(sets []string) (map[string]string, error) {
	m := map[string]string{}
	for _, s := range sets {
		attr, v, ok := strings.Cut(s, "=")
		if !ok || attr == "" {
			return nil, usageErr("--set %q: want ATTR=VALUE", s)
		}
		if err := model.ValidateAttrName(attr); err != nil {
			return nil, usageErr("--set: attribute %v", err)
		}
		m[attr] = v
	}
	return m, nil
}

func (a *app) writeCommands() []*cobra.Command {
	var (
		signupF, renameF, deleteF, repairF writeFlags
		signupSets, renameSets             []string
		signupID                           string
		kind, constraint, value            string
	)
	signup := &cobra.Command{
		Use:   "signup --set ATTR=VALUE... [--id KEY]",
		Short: "Create an account with its locks in one guarded transaction",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			attrs, err := setFlag(signupSets)
			if err != nil {
				return err
			}
			return a.runWrite(cmd.Context(), signupF, false, func(ctx context.Context, s *dynamo.Store) ([]dynamo.Repair, error) {
				id := signupID
				if id == "" {
					id = s.Schema.AccountPrefix + dynamo.NewToken()[:12]
				}
				p, err := s.Schema.Signup(id, attrs)
				return []dynamo.Repair{{Plan: p}}, err
			})
		},
	}
	signup.Flags().StringArrayVar(&signupSets, "set", nil, "ATTR=VALUE (repeat)")
	signup.Flags().StringVar(&signupID, "id", "", "the account's key value (default: the account prefix and a random id)")
	signupF.register(signup)

	rename := &cobra.Command{
		Use:   "rename KEY --set ATTR=VALUE...",
		Short: "Change unique attributes of an account: new lock put, old lock released, one transaction",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			changes, err := setFlag(renameSets)
			if err != nil {
				return err
			}
			if len(changes) == 0 {
				return usageErr("rename: --set ATTR=VALUE is required")
			}
			return a.runWrite(cmd.Context(), renameF, false, func(ctx context.Context, s *dynamo.Store) ([]dynamo.Repair, error) {
				p, err := s.PlanRename(ctx, args[0], changes, nil)
				return []dynamo.Repair{{Plan: p}}, err
			})
		},
	}
	rename.Flags().StringArrayVar(&renameSets, "set", nil, "ATTR=VALUE (repeat; an empty VALUE removes it)")
	renameF.register(rename)

	del := &cobra.Command{
		Use:   "delete KEY",
		Short: "Delete an account and release its locks in one guarded transaction",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runWrite(cmd.Context(), deleteF, true, func(ctx context.Context, s *dynamo.Store) ([]dynamo.Repair, error) {
				p, err := s.PlanDelete(ctx, args[0], nil)
				return []dynamo.Repair{{Plan: p}}, err
			})
		},
	}
	deleteF.register(del)

	repair := &cobra.Command{
		Use:   "repair [--kind KIND] [--constraint ATTR] [--value V]",
		Short: "Check, then repair orphan, missing and foreign locks, each in its own guarded transaction",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if kind != "" && !isKind(kind) {
				return usageErr("--kind %q: want one of %v", kind, model.ProblemKinds)
			}
			return a.runWrite(cmd.Context(), repairF, false, func(ctx context.Context, s *dynamo.Store) ([]dynamo.Repair, error) {
				if constraint != "" && s.Schema.Constraint(constraint) < 0 {
					return nil, usageErr("--constraint %q: not a unique attribute", constraint)
				}
				report, err := s.Check(ctx, nil)
				if err != nil {
					return nil, err
				}
				var repairs []dynamo.Repair
				for _, p := range report.Problems {
					if (kind != "" && string(p.Kind) != kind) || (constraint != "" && p.Constraint != constraint) || (value != "" && p.Value != value) {
						continue
					}
					r, err := s.PlanRepair(ctx, p)
					if err != nil {
						return nil, err
					}
					repairs = append(repairs, r)
				}
				return repairs, nil
			})
		},
	}
	repair.Flags().StringVar(&kind, "kind", "", "only problems of this kind")
	repair.Flags().StringVar(&constraint, "constraint", "", "only problems of this unique attribute")
	repair.Flags().StringVar(&value, "value", "", "only problems about this value")
	repairF.register(repair)
	return []*cobra.Command{signup, rename, del, repair}
}

func isKind(k string) bool {
	for _, pk := range model.ProblemKinds {
		if string(pk) == k {
			return true
		}
	}
	return false
}

// runWrite opens the store, plans, and then prints (--dry-run) or, once
// allowed and confirmed, executes each plan and reports it. typed says the
// operation asks for the key to be typed back rather than y/N.
func (a *app) runWrite(ctx context.Context, f writeFlags, typed bool, plan func(context.Context, *dynamo.Store) ([]dynamo.Repair, error)) error {
	s, err := a.schema()
	if err != nil {
		return err
	}
	if !f.dryRun && a.readOnly {
		return a.mayWrite(dynamo.Endpoint{})
	}
	// Refuse before any request: backend only builds the client.
	store, err := a.backend(ctx, s)
	if err != nil {
		return err
	}
	if !f.dryRun {
		if err := a.mayWrite(store.Endpoint); err != nil {
			return err
		}
	}
	if err := store.Verify(ctx); err != nil {
		return err
	}
	repairs, err := plan(ctx, store)
	if errors.Is(err, model.ErrNoChange) {
		return nil // the account already holds these values: nothing to do
	}
	if err != nil {
		var fe *model.FieldError
		if errors.As(err, &fe) {
			return usageErr("%v", fe)
		}
		return err
	}
	var txs []dynamo.Tx
	var results []dynamo.Result
	for _, r := range repairs {
		if r.Skip != "" {
			results = append(results, dynamo.Result{Operation: "repair", Keys: problemKeys(r.Problem), Outcome: dynamo.Skipped,
				Reasons: []dynamo.Reason{}, Note: string(r.Problem.Kind) + " " + r.Problem.Constraint + "=" + model.Printable(r.Problem.Value) + ": " + r.Skip})
			continue
		}
		tx, err := store.Prepare(r.Plan, dynamo.NewToken())
		if err != nil {
			return err
		}
		txs = append(txs, tx)
	}
	if f.dryRun {
		for _, tx := range txs {
			b, err := dynamo.CLIJSON(tx.Input)
			if err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, model.EscapeJSON(string(b)))
		}
		return nil
	}
	if len(txs) > 0 && !f.yes {
		if err := a.confirm(txs, typed); err != nil {
			return err
		}
	}
	if err := a.openAudit(store); err != nil {
		return err
	}
	for _, tx := range txs {
		res, err := store.Execute(ctx, tx)
		if err != nil {
			// Refused outright: say what was done before it, then why.
			_ = a.report(results, f.asJSON)
			return err
		}
		results = append(results, res)
	}
	return a.report(results, f.asJSON)
}

func problemKeys(p model.Problem) []string {
	keys := append([]string{}, p.Accounts...)
	if p.Owner != "" {
		keys = append(keys, p.Owner)
	}
	return keys
}

// confirm asks on a terminal (y/N); without one it refuses (exit 2). A
// delete asks for the account's key to be typed back instead.
func (a *app) confirm(txs []dynamo.Tx, typed bool) error {
	in, ok := a.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return usageErr("refusing to write without --yes: no terminal to ask on (see --dry-run)")
	}
	for _, tx := range txs {
		fmt.Fprintf(a.stderr, "%s %s:\n", tx.Plan.Operation, model.Printable(strings.Join(tx.Plan.Keys, ", ")))
		for i, act := range tx.Plan.Actions {
			fmt.Fprintf(a.stderr, "  %d. %s\n", i, model.Printable(act.Purpose(&a.lastSchema)))
		}
	}
	r := bufio.NewReader(in)
	want := "y"
	prompt := fmt.Sprintf("send %d transaction(s)? [y/N] ", len(txs))
	if typed && len(txs) == 1 && len(txs[0].Plan.Keys) > 0 {
		want = txs[0].Plan.Keys[0]
		prompt = fmt.Sprintf("type %s to confirm: ", model.Printable(want))
	}
	fmt.Fprint(a.stderr, prompt)
	line, _ := r.ReadString('\n')
	if got := strings.TrimSpace(line); got != want && !(want == "y" && strings.EqualFold(got, "yes")) {
		return usageErr("not confirmed: nothing was sent")
	}
	return nil
}

// openAudit points the store's audit log at --audit-log, or at
// $XDG_STATE_HOME/locktable/audit.log (~/.local/state/locktable/...).
func (a *app) openAudit(s *dynamo.Store) error {
	path := a.auditLog
	if path == "" {
		dir := os.Getenv("XDG_STATE_HOME")
		if dir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return usageErr("no home directory for the audit log: pass --audit-log")
			}
			dir = filepath.Join(home, ".local", "state")
		}
		path = filepath.Join(dir, "locktable", "audit.log")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return usageErr("audit log: %v", err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return usageErr("--audit-log: %v", err)
	}
	a.closers = append(a.closers, func() { f.Close() })
	s.Audit = f
	return nil
}

// report prints the results and picks the exit status: 4 if any outcome is
// unknown, else 3 if any was cancelled, else 0.
func (a *app) report(results []dynamo.Result, asJSON bool) error {
	code := ExitOK
	for _, r := range results {
		if asJSON {
			if err := writeJSON(a.stdout, r); err != nil {
				return err
			}
		} else {
			writeResult(a.stdout, r)
		}
		switch {
		case r.Outcome == dynamo.Unknown:
			code = ExitUnknown
		case r.Outcome == dynamo.Cancelled && code != ExitUnknown:
			code = ExitCancelled
		}
	}
	if code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

func writeResult(w io.Writer, r dynamo.Result) {
	keys := model.Printable(strings.Join(r.Keys, ", "))
	switch r.Outcome {
	case dynamo.Skipped:
		fmt.Fprintf(w, "skipped   %s\n", model.Printable(r.Note))
		return
	case dynamo.Unknown:
		fmt.Fprintf(w, "UNKNOWN   %s %s (token %s): no answer came and the keys did not settle it; check the keys (locktable check) before trying again\n", r.Operation, keys, r.Token)
	default:
		fmt.Fprintf(w, "%-9s %s %s (token %s)\n", r.Outcome, r.Operation, keys, r.Token)
	}
	for _, rs := range r.Reasons {
		if rs.Slot >= 0 {
			fmt.Fprintf(w, "  slot %d (%s): %s: %s\n", rs.Slot, model.Printable(rs.Action), model.Printable(rs.Code), model.Printable(rs.Message))
		} else {
			fmt.Fprintf(w, "  %s: %s\n", model.Printable(rs.Code), model.Printable(rs.Message))
		}
	}
}
