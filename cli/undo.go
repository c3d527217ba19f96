package cli

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/writes"
)

// openUndo opens the undo journal beside the audit log f, when f is a
// regular file (an audit log on a device or a pipe has no place beside
// it: writes are then not recorded for undo). Like the audit log, it
// fails closed.
func (a *app) openUndo(f *os.File) error {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	j, jf, err := dynamo.OpenUndoJournal(dynamo.UndoPath(f.Name()), a.clock)
	if err != nil {
		return usageErr("%v (beside --audit-log; nothing was sent)", err)
	}
	a.closers = append(a.closers, func() { jf.Close() })
	a.undo = j
	return nil
}

func (a *app) undoCommand() *cobra.Command {
	var (
		f    writeFlags
		last bool
	)
	cmd := &cobra.Command{
		Use:   "undo [TOKEN | --last]",
		Short: "Undo a write (by its token, or the last one) in one guarded transaction, if its items are still as it left them",
		Long: `undo inverts one committed write, found by its token (printed by every
write, and in the audit log) or with --last the newest committed write to
this table at this endpoint: a rename is renamed back, a deleted account
is put back with its locks, a repair's lock is put back or handed back, a
signup's account and locks are deleted. It is one guarded transaction that
commits only if every item is still exactly as that write left it;
otherwise it is cancelled (exit 3), naming what changed since.

What undo needs (the items a write changes, before and after) is kept in
the undo journal beside the audit log (--audit-log PATH, journal
PATH.undo), recorded and synced before each write is sent. An undo is a
write too: undo --last right after an undo undoes it again (a redo), and
undoing the same token twice is cancelled, since its items are no longer
as it left them.`,
		Example: `  locktable undo --last --dry-run
  locktable undo 3f0c9a51d2e84b7a9c1e55aa01b2c3d4 --yes --json`,
		GroupID:           "write",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			token := ""
			switch {
			case len(args) == 1 && last:
				return usageErr("undo: give a TOKEN or --last, not both")
			case len(args) == 1:
				token = args[0]
			case !last:
				return usageErr("undo: give the TOKEN of a write, or --last")
			}
			path, err := a.auditPath()
			if err != nil {
				return err
			}
			op := writeOp{name: "undo"}
			if token != "" {
				op.keys = []string{token}
			}
			return a.runWrite(cmd.Context(), f, op, func(ctx context.Context, _ *dynamo.Store, f writes.Flow, h writes.Holders) ([]writes.Write, error) {
				w, err := f.Undo(ctx, dynamo.UndoPath(path), token, h)
				return []writes.Write{w}, err
			})
		},
	}
	cmd.Flags().BoolVar(&last, "last", false, "undo the newest committed write to this table at this endpoint")
	f.register(cmd)
	f.registerLookup(cmd)
	return cmd
}
