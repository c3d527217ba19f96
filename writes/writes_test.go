package writes_test

import (
	"context"
	"strings"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/writes"
)

// TestFlowOnDynoxide runs the flow's writes on a real table: a signup
// sent; a second signup for a value held without its lock refused before
// sending, with the lookup's words naming the holder; a value whose lock
// exists sent and cancelled by its guard; an undo planned and sent; a
// repair the reads no longer show skipped.
func TestFlowOnDynoxide(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	f := writes.Flow{Store: store.Writer, Schema: &store.Schema}
	journal, file, err := dynamo.OpenUndoJournal(t.TempDir()+"/undo.log", clock.System())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	store.Undo = journal

	w, err := f.Signup(ctx, "ACCT#a1", map[string]string{"email": "ada@x.io", "username": "ada"}, writes.Holders{})
	if err != nil || !w.Ready() || !w.Lookup.Ran {
		t.Fatalf("signup: %+v %v", w, err)
	}
	if got := w.Lookup.String(); !strings.Contains(got, "holder lookup for email=ada@x.io, username=ada: consistent scan of the accounts") || !strings.Contains(got, "no other account holds them") {
		t.Errorf("lookup words %q", got)
	}
	if res, err := f.Send(ctx, w); err != nil || res.Outcome != model.Committed {
		t.Fatalf("signup sent: %v %v", res, err)
	}

	// ACCT#b2 holds bob@x.io without its lock: a signup for it is refused.
	dynamotest.Put(t, client, store.Schema.Table, dynamotest.Account("ACCT#b2", "bob@x.io", ""))
	w, err = f.Signup(ctx, "ACCT#c3", map[string]string{"email": "bob@x.io"}, writes.Holders{})
	if err != nil || w.Ready() || w.Refused == nil || w.Refused.Outcome != model.Cancelled {
		t.Fatalf("a value held without its lock: %+v %v", w, err)
	}
	if got := w.Lookup.Findings(); !strings.Contains(got, "held by ACCT#b2 without its lock") {
		t.Errorf("findings %q", got)
	}
	if res, _ := f.Send(ctx, w); res.Outcome != model.Cancelled {
		t.Errorf("sending a refused write: %v", res)
	}
	if _, found, _ := store.Pages.Account(ctx, "ACCT#c3"); found {
		t.Fatal("the refused signup was written")
	}

	// ada@x.io is locked by ACCT#a1: sent, and its guard refuses it.
	w, err = f.Signup(ctx, "ACCT#d4", map[string]string{"email": "ada@x.io"}, writes.Holders{})
	if err != nil || !w.Ready() || !strings.Contains(w.Lookup.Findings(), "locked by ACCT#a1") {
		t.Fatalf("a locked value: %+v %v", w, err)
	}
	if res, err := f.Send(ctx, w); err != nil || res.Outcome != model.Cancelled || !strings.Contains(res.Reasons[0].Message, "taken by ACCT#a1") {
		t.Fatalf("a locked value sent: %v %v", res, err)
	}

	// The last committed write, the first signup, taken back.
	w, err = f.Undo(ctx, "", "", writes.Holders{})
	if err != nil || !w.Ready() {
		t.Fatalf("undo: %+v %v", w, err)
	}
	if res, err := f.Send(ctx, w); err != nil || res.Outcome != model.Committed {
		t.Fatalf("undo sent: %v %v", res, err)
	}
	if _, found, _ := store.Pages.Account(ctx, "ACCT#a1"); found {
		t.Fatal("the undone signup's account is still there")
	}

	// The check's missing lock of ACCT#b2, fixed before the repair: skipped.
	report, err := store.Checker.Check(ctx, nil)
	if err != nil || len(report.Problems) == 0 {
		t.Fatalf("check: %v %v", report.Problems, err)
	}
	dynamotest.Put(t, client, store.Schema.Table, model.Item{"PK": model.S("UNIQ#EMAIL#bob@x.io"), "SK": model.S("LOCK"), "owner": model.S("ACCT#b2")})
	w, err = f.Repair(ctx, report.Problems[0])
	if err != nil || w.Ready() || w.Skip != backend.SkipGone {
		t.Fatalf("repair of a fixed problem: %+v %v", w, err)
	}
	if res, _ := f.Send(ctx, w); res.Outcome != model.Skipped || !strings.Contains(res.Note, "missing_lock email=bob@x.io") {
		t.Errorf("the skip's outcome: %v", res)
	}
}
