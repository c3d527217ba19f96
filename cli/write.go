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

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/writes"
)

// Exit statuses of the write commands, beyond ExitOK and ExitError.
const (
	ExitCancelled = 3 // a transaction was cancelled (or settled as not committed)
	ExitUnknown   = 4 // an outcome is still unknown; wins over 3
)

// writeFlags are the flags every write command takes.
type writeFlags struct {
	dryRun, yes, asJSON bool
	skipLookup          bool // signup and rename: no holder lookup
}

func (f *writeFlags) register(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "print each transaction as aws dynamodb transact-write-items --cli-input-json input, one per line; send nothing")
	cmd.Flags().BoolVarP(&f.yes, "yes", "y", false, "send without asking")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print one JSON object per transaction")
}

// registerLookup adds --skip-holder-lookup to a command that takes values.
func (f *writeFlags) registerLookup(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.skipLookup, "skip-holder-lookup", false,
		"do not look for accounts that hold a new value without its lock (a consistent scan, or the --index GSI) before sending")
}

// writeOp says what a write command is, before anything is planned: its
// name and keys for the audit log.
type writeOp struct {
	name string
	keys []string
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
		Example: `  locktable signup --set email=ada@lovelace.io --set username=ada
  locktable signup --set email=ada@lovelace.io --set username=ada --id ACCT#a1f9c3 --dry-run`,
		GroupID: "write",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			attrs, err := setFlag(signupSets)
			if err != nil {
				return err
			}
			op := writeOp{name: "signup"}
			if signupID != "" {
				op.keys = []string{signupID}
			}
			return a.runWrite(cmd.Context(), signupF, op, func(ctx context.Context, _ *dynamo.Store, f writes.Flow, h writes.Holders) ([]writes.Write, error) {
				w, err := f.Signup(ctx, signupID, attrs, h)
				return []writes.Write{w}, err
			})
		},
	}
	signup.Flags().StringArrayVar(&signupSets, "set", nil, "ATTR=VALUE (repeat)")
	signup.Flags().StringVar(&signupID, "id", "", "the account's key value (default: the account prefix and the --id-attr value given with --set, else a random id)")
	signupF.register(signup)
	signupF.registerLookup(signup)

	rename := &cobra.Command{
		Use:   "rename KEY --set ATTR=VALUE...",
		Short: "Change unique attributes of an account: new lock put, old lock released, one transaction",
		Example: `  locktable rename ACCT#a1f9c3 --set email=ada@analytical.engine
  locktable rename ACCT#a1f9c3 --set username=countess --yes --json`,
		GroupID:           "write",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			changes, err := setFlag(renameSets)
			if err != nil {
				return err
			}
			if len(changes) == 0 {
				return usageErr("rename: --set ATTR=VALUE is required")
			}
			op := writeOp{name: "rename", keys: args[:1]}
			return a.runWrite(cmd.Context(), renameF, op, func(ctx context.Context, _ *dynamo.Store, f writes.Flow, h writes.Holders) ([]writes.Write, error) {
				w, err := f.Rename(ctx, args[0], changes, nil, nil, h)
				return []writes.Write{w}, err
			})
		},
	}
	rename.Flags().StringArrayVar(&renameSets, "set", nil, "ATTR=VALUE (repeat; an empty VALUE removes it)")
	renameF.register(rename)
	renameF.registerLookup(rename)

	del := &cobra.Command{
		Use:   "delete KEY",
		Short: "Delete an account and release its locks in one guarded transaction",
		Example: `  locktable delete ACCT#a1f9c3
  locktable delete ACCT#a1f9c3 --dry-run`,
		GroupID:           "write",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runWrite(cmd.Context(), deleteF, writeOp{name: "delete", keys: args[:1]}, func(ctx context.Context, _ *dynamo.Store, f writes.Flow, _ writes.Holders) ([]writes.Write, error) {
				w, err := f.Delete(ctx, args[0], nil, nil)
				return []writes.Write{w}, err
			})
		},
	}
	deleteF.register(del)

	repair := &cobra.Command{
		Use:   "repair [--kind KIND] [--constraint ATTR] [--value V]",
		Short: "Check, then repair orphan, missing and foreign locks, each in its own guarded transaction",
		Example: `  locktable repair --dry-run
  locktable repair --kind orphan_lock --constraint email --yes
  locktable repair --kind missing_lock --value ada --json --yes`,
		GroupID: "write",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if kind != "" && !isKind(kind) {
				return usageErr("--kind %q: want one of %v", kind, model.ProblemKinds)
			}
			return a.runWrite(cmd.Context(), repairF, writeOp{name: "repair"}, func(ctx context.Context, s *dynamo.Store, f writes.Flow, _ writes.Holders) ([]writes.Write, error) {
				if constraint != "" && f.Schema.Constraint(constraint) < 0 {
					return nil, usageErr("--constraint %q: not a unique attribute", constraint)
				}
				p := newProgress(a.stderr)
				report, err := s.Checker.Check(ctx, progressLine(p))
				p.done()
				if err != nil {
					return nil, err
				}
				var repairs []writes.Write
				for _, p := range report.Problems {
					if (kind != "" && string(p.Kind) != kind) || (constraint != "" && p.Constraint != constraint) || (value != "" && p.Value != value) {
						continue
					}
					w, err := f.Repair(ctx, p)
					if err != nil {
						return nil, err
					}
					repairs = append(repairs, w)
				}
				return repairs, nil
			})
		},
	}
	repair.Flags().StringVar(&kind, "kind", "", "only problems of this kind")
	repair.Flags().StringVar(&constraint, "constraint", "", "only problems of this unique attribute")
	repair.Flags().StringVar(&value, "value", "", "only problems about this value")
	_ = repair.RegisterFlagCompletionFunc("kind", completeKind)
	_ = repair.RegisterFlagCompletionFunc("constraint", a.completeConstraint)
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

// planner plans a write command's writes through the write flow, with
// the holder lookup the flags ask for.
type planner func(ctx context.Context, s *dynamo.Store, f writes.Flow, h writes.Holders) ([]writes.Write, error)

// runWrite opens the store, plans (the write flow looks for other holders
// of new values and says what it found), and then prints (--dry-run) or,
// once confirmed, sends each write and reports it. Every refusal is
// recorded in the audit log, which is opened first: a write that cannot
// be recorded is not sent.
func (a *app) runWrite(ctx context.Context, f writeFlags, op writeOp, plan planner) error {
	store, refuse, err := a.openForWrite(ctx, op, f.dryRun)
	if err != nil {
		return err
	}
	flow := writes.Flow{Store: store.Writer, Schema: &store.Schema}
	planned, err := plan(ctx, store, flow, writes.Holders{Skip: f.skipLookup})
	if errors.Is(err, model.ErrNoChange) {
		return nil // the account already holds these values: nothing to do
	}
	if err != nil {
		var fe *model.FieldError
		if errors.As(err, &fe) {
			return refuse(usageErr("%v", fe))
		}
		return err
	}
	ready, results := splitReady(planned)
	if len(ready) > 0 && !f.dryRun && !f.yes && !a.canAsk() {
		return usageErr("refusing to write without --yes: no terminal to ask on (see --dry-run)")
	}
	for _, w := range planned {
		a.sayLookup(w.Lookup)
	}
	if f.dryRun {
		return a.dryRun(ready, results)
	}
	if len(ready) > 0 && !f.yes {
		if err := a.confirm(ctx, ready); err != nil {
			return err
		}
	}
	if a.maxWCU > 0 && len(ready) > 0 {
		plans := make([]model.Plan, len(ready))
		for i, w := range ready {
			plans[i] = w.Tx.Plan
		}
		fmt.Fprintf(a.stderr, "paced to %g WCU/s (--max-wcu): %d transactions take %s\n", a.maxWCU, len(ready), model.PaceSaid(plans, a.maxWCU))
	}
	paced := store.PacedWCU() // the probe's, before
	err = a.sendAll(ctx, flow, op, ready, results, f.asJSON)
	if a.maxWCU > 0 && len(ready) > 0 {
		fmt.Fprintf(a.stderr, "paced to %g WCU/s (--max-wcu): the transactions took %g write capacity units, 2 per item written\n", a.maxWCU, store.PacedWCU()-paced)
	}
	return err
}

// splitReady parts the planned writes into those ready to send and the
// results of those that will not be (a holder lookup refused them).
func splitReady(planned []writes.Write) (ready []writes.Write, unsent []model.Result) {
	for _, w := range planned {
		if !w.Ready() {
			unsent = append(unsent, w.Unsent())
			continue
		}
		ready = append(ready, w)
	}
	return ready, unsent
}

// sendAll sends the ready writes one transaction at a time and reports
// them after results. An interrupt between two transactions stops it, and
// a write that certainly failed ends it: either way what was done before
// is reported.
func (a *app) sendAll(ctx context.Context, flow writes.Flow, op writeOp, ready []writes.Write, results []model.Result, asJSON bool) error {
	sent := 0
	p := newProgress(a.stderr)
	defer p.done()
	for _, w := range ready {
		if ctx.Err() != nil {
			break // interrupted between transactions: report what was done
		}
		if len(ready) > 1 {
			p.update(op.name, int64(sent), int64(len(ready)), "transactions sent")
		}
		res, err := flow.Send(ctx, w)
		if err != nil {
			// Certainly not applied: say what was done before it, then why.
			_ = a.report(results, asJSON)
			return err
		}
		results = append(results, res)
		sent++
	}
	p.done()
	err := a.report(results, asJSON)
	if sent < len(ready) {
		fmt.Fprintf(a.stderr, "locktable: interrupted: %d of %d transactions not sent\n", len(ready)-sent, len(ready))
		if err == nil {
			err = &exitError{code: ExitError} // Main maps it to 130 or 143
		}
	}
	return err
}

// dryRun prints each ready write's request as the AWS CLI takes it, and
// on stderr the same request in words, as a confirmation shows it, and
// each value a holder lookup refused (exit 3 if any).
func (a *app) dryRun(ready []writes.Write, results []model.Result) error {
	for _, w := range ready {
		b, err := w.Tx.Request.CLIInput()
		if err != nil {
			return err
		}
		fmt.Fprintln(a.stdout, model.EscapeJSON(string(b)))
		a.sayPreview(w.Tx)
	}
	refused := false
	for _, r := range results {
		if r.Outcome != model.Cancelled {
			continue
		}
		for _, rs := range r.Reasons {
			refused = true
			fmt.Fprintln(a.stderr, "locktable: would be refused: "+model.OneLine(rs.Message))
		}
	}
	if refused {
		return &exitError{code: ExitCancelled}
	}
	return nil
}

// sayPreview says on stderr what tx does, action by action, with each
// condition its request carries in words (backend.Tx.Slots).
func (a *app) sayPreview(tx backend.Tx) {
	fmt.Fprintf(a.stderr, "%s %s:\n", tx.Plan.Operation, model.Printable(strings.Join(tx.Plan.Keys, ", ")))
	for i, sl := range tx.Slots {
		fmt.Fprintf(a.stderr, "  %d. %s\n", i, model.Printable(sl.Does))
		for _, c := range sl.Conditions {
			fmt.Fprintf(a.stderr, "       %s\n", model.Printable(c))
		}
	}
	if tx.Plan.Note != "" {
		fmt.Fprintf(a.stderr, "  note: %s\n", model.Printable(tx.Plan.Note))
	}
}

// sayLookup says on stderr how a holder lookup looked, how much it read
// and what it found (or that --skip-holder-lookup skipped it).
func (a *app) sayLookup(l writes.Lookup) {
	switch {
	case l.Skipped:
		fmt.Fprintln(a.stderr, "holder lookup skipped (--skip-holder-lookup): an account holding a new value without its lock would not stop this write")
	case l.Ran:
		fmt.Fprintln(a.stderr, l.String())
	}
}

// probe asks the backend what it supports before a write, says on stderr
// what it lacks, and refuses to write without transactions.
func (a *app) probe(ctx context.Context, s *dynamo.Store) error {
	c, err := s.Probe(ctx)
	if err != nil {
		return err
	}
	if !c.Transactions {
		return usageErr("refusing to write: %s has %s", s.Endpoint, c.Missing()[0])
	}
	for _, m := range c.Missing() {
		fmt.Fprintf(a.stderr, "locktable: %s has %s\n", s.Endpoint, m)
	}
	return nil
}

// openForWrite opens the store for a write command: guardWrite, then the
// tables and the capability probe.
func (a *app) openForWrite(ctx context.Context, op writeOp, dryRun bool) (*dynamo.Store, func(error) error, error) {
	store, refuse, err := a.guardWrite(ctx, op, dryRun)
	if err != nil {
		return nil, nil, err
	}
	return store, refuse, a.ready(ctx, store, refuse, dryRun)
}

// ready checks a guarded store's tables and, unless it is a dry run,
// what the backend can do (the first requests a write command sends).
func (a *app) ready(ctx context.Context, store *dynamo.Store, refuse func(error) error, dryRun bool) error {
	if err := store.Verify(ctx); err != nil {
		return err
	}
	if !dryRun {
		if err := a.probe(ctx, store); err != nil {
			return refuse(err)
		}
	}
	return nil
}

// guardWrite builds the store of every command that writes: the audit log
// first (a write that cannot be recorded is not sent), then the guards
// (--read-only, a remote endpoint without --write), before any request.
// refuse records a refusal in the audit log and returns it. A dry run
// opens no audit log and is not refused: it sends nothing.
func (a *app) guardWrite(ctx context.Context, op writeOp, dryRun bool) (*dynamo.Store, func(error) error, error) {
	s, err := a.schema()
	if err != nil {
		return nil, nil, err
	}
	var audit *dynamo.AuditLog
	refuse := func(err error) error {
		if audit != nil {
			_ = audit.Record(dynamo.AuditEntry{Event: dynamo.EventRefused, Operation: op.name, Table: s.Table, Keys: op.keys, Reason: err.Error()})
		}
		return err
	}
	if !dryRun {
		if audit, err = a.openAudit(); err != nil {
			return nil, nil, err
		}
		if a.readOnly {
			return nil, nil, refuse(a.mayWrite(backend.Endpoint{}))
		}
	}
	store, err := a.backend(ctx, s) // builds the client; sends nothing
	if err != nil {
		return nil, nil, err
	}
	if !dryRun {
		if err := a.mayWrite(store.Endpoint); err != nil {
			return nil, nil, refuse(err)
		}
		store.Audit, store.Undo = audit, a.undo
	}
	return store, refuse, nil
}

// confirm asks on a terminal (y/N); without one it refuses (exit 2). A
// single plan that says what must be typed back (model.Plan.MustType: a
// delete's account key, a lock's owner) asks for that instead.
func (a *app) confirm(ctx context.Context, ready []writes.Write) error {
	if !a.canAsk() {
		return usageErr("refusing to write without --yes: no terminal to ask on (see --dry-run)")
	}
	in := a.stdin.(*os.File)
	txs := make([]backend.Tx, len(ready))
	for i, w := range ready {
		txs[i] = w.Tx
	}
	for _, tx := range txs {
		a.sayPreview(tx)
	}
	prompt := fmt.Sprintf("send %d transaction(s)? [y/N] ", len(txs))
	confirmed := func(answer string) bool { return answer == "y" || strings.EqualFold(answer, "yes") }
	if len(txs) == 1 && txs[0].Plan.MustType != "" {
		prompt = fmt.Sprintf("type %s to confirm: ", txs[0].Plan.TypeBack())
		confirmed = txs[0].Plan.TypedBack
	}
	fmt.Fprint(a.stderr, prompt)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(in).ReadString('\n')
		answer <- line
	}()
	var line string
	select {
	case line = <-answer:
	case <-ctx.Done():
		fmt.Fprintln(a.stderr)
		return context.Cause(ctx) // nothing was sent
	}
	if !confirmed(strings.TrimSpace(line)) {
		return usageErr("not confirmed: nothing was sent")
	}
	return nil
}

// canAsk reports whether stdin is a terminal to ask for confirmation on.
func (a *app) canAsk() bool {
	in, ok := a.stdin.(*os.File)
	return ok && term.IsTerminal(int(in.Fd()))
}

// auditPath is --audit-log, or $XDG_STATE_HOME/locktable/audit.log
// (~/.local/state/locktable/...).
func (a *app) auditPath() (string, error) {
	if a.auditLog != "" {
		return a.auditLog, nil
	}
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", usageErr("no home directory for the audit log: pass --audit-log")
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "locktable", "audit.log"), nil
}

// openAudit opens the audit log (auditPath) and, when it is a regular
// file, the undo journal beside it (a.undo). It fails closed: no audit
// log, no write.
func (a *app) openAudit() (*dynamo.AuditLog, error) {
	path, err := a.auditPath()
	if err != nil {
		return nil, err
	}
	log, f, err := dynamo.OpenAuditLog(path, a.clock)
	if err != nil {
		return nil, usageErr("%v (--audit-log; nothing was sent)", err)
	}
	a.closers = append(a.closers, func() { f.Close() })
	if err := a.openUndo(f); err != nil {
		return nil, err
	}
	return log, nil
}

// report prints the results and picks the exit status: 4 if any outcome is
// unknown, else 3 if any was cancelled, else 0.
func (a *app) report(results []model.Result, asJSON bool) error {
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
		case r.Outcome == model.Unknown:
			code = ExitUnknown
		case r.Outcome == model.Cancelled && code != ExitUnknown:
			code = ExitCancelled
		}
	}
	if code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

func writeResult(w io.Writer, r model.Result) {
	keys := model.Printable(strings.Join(r.Keys, ", "))
	switch r.Outcome {
	case model.Skipped:
		fmt.Fprintf(w, "skipped   %s\n", model.Printable(r.Note))
		return
	case model.Unknown:
		fmt.Fprintf(w, "UNKNOWN   %s %s (token %s): no answer came and the keys did not settle it; check the keys (locktable check) before trying again\n", r.Operation, keys, r.Token)
	default:
		fmt.Fprintf(w, "%-9s %s %s (token %s)\n", r.Outcome, r.Operation, keys, r.Token)
	}
	if r.Note != "" {
		fmt.Fprintf(w, "  %s\n", model.Printable(r.Note))
	}
	for _, rs := range r.Reasons {
		if rs.Slot >= 0 {
			fmt.Fprintf(w, "  slot %d (%s): %s: %s\n", rs.Slot, model.Printable(rs.Action), model.Printable(rs.Code), model.Printable(rs.Message))
		} else {
			fmt.Fprintf(w, "  %s: %s\n", model.Printable(rs.Code), model.Printable(rs.Message))
		}
	}
}
