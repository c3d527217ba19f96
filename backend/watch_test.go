package backend

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/locktable/locktable/model"
)

// watched is a tracker over items in memory, for layout 1.
type watched struct {
	sc  model.Schema
	src *items
	t   *Tracker
}

func newWatched(finder HolderFinder) *watched {
	w := &watched{sc: model.DefaultSchema(model.LayoutSingle)}
	w.src = &items{sc: &w.sc, held: map[string]model.Item{}}
	w.t = NewTracker(&w.sc, w.src, finder, func() int64 { return 0 })
	return w
}

func account(id, email, username string) model.Item {
	return model.Item{"PK": model.S(id), "SK": model.S("PROFILE"), "email": model.S(email), "username": model.S(username)}
}

func lockItem(pk, owner string) model.Item {
	it := model.Item{"PK": model.S(pk), "SK": model.S("LOCK")}
	if owner != "" {
		it["owner"] = model.S(owner)
	}
	return it
}

func (w *watched) remove(it model.Item) {
	delete(w.src.held, model.KeyRef{Table: w.sc.Table, Key: w.sc.KeyOf(w.sc.Table, it)}.ID())
}

// change is the stream record of a write of old to new (either nil).
func (w *watched) change(event model.ChangeEvent, old, new model.Item) model.Change {
	img := new
	if img == nil {
		img = old
	}
	return model.Change{Event: event, Table: w.sc.Table, Keys: model.KeyItem(w.sc.KeyOf(w.sc.Table, img)), Sequence: "1", Old: old, New: new}
}

func (w *watched) judge(t *testing.T, changes ...model.Change) []string {
	t.Helper()
	events, err := w.t.Judge(context.Background(), changes)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, fmt.Sprintf("%s %s %s %s owner=%s by %s %s", e.Kind, e.Problem.Kind, e.Problem.Constraint, e.Problem.Value,
			e.Problem.Owner, e.Cause.Event, e.Cause.Keys[w.sc.PK].S))
	}
	slices.Sort(got)
	return got
}

func wantEvents(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// TestTrackerOrphansOfADeletedAccount: deleting an account that held
// locks makes each of them an orphan, caused by the delete; removing a
// lock resolves its orphan.
func TestTrackerOrphansOfADeletedAccount(t *testing.T) {
	w := newWatched(nil)
	a := account("ACCT#a", "a@x.io", "ada")
	email, handle := lockItem("UNIQ#EMAIL#a@x.io", "ACCT#a"), lockItem("UNIQ#HANDLE#ada", "ACCT#a")
	for _, it := range []model.Item{a, email, handle} {
		w.src.put(w.sc.Table, it)
	}
	w.remove(a)
	wantEvents(t, "the delete", w.judge(t, w.change(model.ChangeRemove, a, nil)),
		"appeared orphan_lock email a@x.io owner=ACCT#a by REMOVE ACCT#a",
		"appeared orphan_lock username ada owner=ACCT#a by REMOVE ACCT#a")
	wantEvents(t, "the same delete again", w.judge(t, w.change(model.ChangeRemove, a, nil)))
	w.remove(email)
	wantEvents(t, "the email lock removed", w.judge(t, w.change(model.ChangeRemove, email, nil)),
		"resolved orphan_lock email a@x.io owner=ACCT#a by REMOVE UNIQ#EMAIL#a@x.io")
	if k := known(w.t); len(k) != 1 || k[0].Value != "ada" {
		t.Errorf("known %+v, want the username orphan", k)
	}
}

// TestTrackerSeesNoStateBetweenATransactionsRecords: a signup's account
// record is judged when the reads already see its locks: nothing is
// raised, whichever of its records comes first.
func TestTrackerSeesNoStateBetweenATransactionsRecords(t *testing.T) {
	w := newWatched(nil)
	a := account("ACCT#a", "a@x.io", "ada")
	email, handle := lockItem("UNIQ#EMAIL#a@x.io", "ACCT#a"), lockItem("UNIQ#HANDLE#ada", "ACCT#a")
	for _, it := range []model.Item{a, email, handle} {
		w.src.put(w.sc.Table, it)
	}
	wantEvents(t, "the account's record", w.judge(t, w.change(model.ChangeInsert, nil, a)))
	wantEvents(t, "the locks' records", w.judge(t, w.change(model.ChangeInsert, nil, email), w.change(model.ChangeInsert, nil, handle)))
}

// TestTrackerMissingAndInvalid: an account written without its lock has
// it missing; a value of another type is invalid until it is a string.
func TestTrackerMissingAndInvalid(t *testing.T) {
	w := newWatched(nil)
	a := account("ACCT#a", "a@x.io", "ada")
	w.src.put(w.sc.Table, lockItem("UNIQ#EMAIL#a@x.io", "ACCT#a"))
	w.src.put(w.sc.Table, a)
	wantEvents(t, "an account without its username lock", w.judge(t, w.change(model.ChangeInsert, nil, a)),
		"appeared missing_lock username ada owner= by INSERT ACCT#a")
	bad := account("ACCT#a", "a@x.io", "ada")
	bad["username"] = model.N("7")
	w.src.put(w.sc.Table, bad)
	wantEvents(t, "the username made a number", w.judge(t, w.change(model.ChangeModify, a, bad)),
		`appeared invalid_value username {"N":"7"} owner= by MODIFY ACCT#a`,
		"resolved missing_lock username ada owner= by MODIFY ACCT#a")
	w.src.put(w.sc.Table, a)
	w.src.put(w.sc.Table, lockItem("UNIQ#HANDLE#ada", "ACCT#a"))
	wantEvents(t, "the username and its lock back", w.judge(t, w.change(model.ChangeModify, bad, a)),
		`resolved invalid_value username {"N":"7"} owner= by MODIFY ACCT#a`)
}

// byValue is a HolderFinder over the accounts of w.
type byValue struct {
	w     *watched
	asked int
}

func (f *byValue) LookupHolders(_ context.Context, wanted []Wanted) (HolderLookup, error) {
	f.asked++
	l := NewLookup("test")
	for _, it := range f.w.src.held {
		if (model.Classifier{Schema: &f.w.sc}).Classify(f.w.sc.Table, it).Kind == model.EntryAccount {
			l.AddHolder(&f.w.sc, wanted, it)
		}
	}
	return l, nil
}

// TestTrackerOwnerlessOrphans: a lock that names no owner is an orphan
// only once nobody is found holding its value by value (the finder); with
// no finder it is not reported at all.
func TestTrackerOwnerlessOrphans(t *testing.T) {
	lock := lockItem("UNIQ#HANDLE#ada", "")
	none := newWatched(nil)
	none.src.put(none.sc.Table, lock)
	wantEvents(t, "no finder", none.judge(t, none.change(model.ChangeInsert, nil, lock)))

	w := newWatched(nil)
	f := &byValue{w: w}
	w.t.finder = f
	w.src.put(w.sc.Table, lock)
	wantEvents(t, "nobody holds ada", w.judge(t, w.change(model.ChangeInsert, nil, lock)),
		"appeared orphan_lock username ada owner= by INSERT UNIQ#HANDLE#ada")
	b := account("ACCT#b", "b@x.io", "ada")
	w.src.put(w.sc.Table, b)
	w.src.put(w.sc.Table, lockItem("UNIQ#EMAIL#b@x.io", "ACCT#b"))
	wantEvents(t, "an account took ada, its lock unowned", w.judge(t, w.change(model.ChangeModify, lock, lock)),
		"resolved orphan_lock username ada owner= by MODIFY UNIQ#HANDLE#ada")
	if f.asked != 2 {
		t.Errorf("the finder was asked %d times, want 2", f.asked)
	}
}

// TestTrackerKnowsACheck: problems a check found are known, so a write
// that resolves one says so, and one still there is not said again.
func TestTrackerKnowsACheck(t *testing.T) {
	w := newWatched(nil)
	email, handle := lockItem("UNIQ#EMAIL#a@x.io", "ACCT#a"), lockItem("UNIQ#HANDLE#ada", "ACCT#a")
	w.src.put(w.sc.Table, email)
	w.src.put(w.sc.Table, handle)
	census := model.NewCensus(&w.sc, 0)
	census.Add(w.sc.Table, email)
	census.Add(w.sc.Table, handle)
	w.t.Know(census.Problems(), w.t.Batch())
	if len(known(w.t)) != 2 {
		t.Fatalf("known %+v, want the two orphans", known(w.t))
	}
	w.remove(email)
	wantEvents(t, "the email orphan deleted, the username one touched",
		w.judge(t, w.change(model.ChangeRemove, email, nil), w.change(model.ChangeModify, handle, handle)),
		"resolved orphan_lock email a@x.io owner=ACCT#a by REMOVE UNIQ#EMAIL#a@x.io")
}

// TestTrackerTellsExistingFromAppeared: a problem first seen after a
// write that changed nothing the check reads of its item (an attribute
// of its own) was there before: "existing", not "appeared". Where the
// stream carries no images, nobody can tell: "appeared" as before. In a
// batch, one write that may have made it (the email changed outside the
// pattern) makes it appear, though a later one only touched the name.
func TestTrackerTellsExistingFromAppeared(t *testing.T) {
	a := account("ACCT#a", "a@x.io", "ada") // its email lock never written
	renamed := account("ACCT#a", "a@x.io", "ada")
	renamed["name"] = model.S("Ada")
	setup := func() *watched {
		w := newWatched(nil)
		w.src.put(w.sc.Table, lockItem("UNIQ#HANDLE#ada", "ACCT#a"))
		w.src.put(w.sc.Table, renamed)
		return w
	}
	w := setup()
	wantEvents(t, "an attribute of an account whose email lock was missing already", w.judge(t, w.change(model.ChangeModify, a, renamed)),
		"existing missing_lock email a@x.io owner= by MODIFY ACCT#a")
	w = setup()
	keysOnly := w.change(model.ChangeModify, a, renamed)
	keysOnly.Old, keysOnly.New = nil, nil
	wantEvents(t, "the same, from a stream of keys only", w.judge(t, keysOnly),
		"appeared missing_lock email a@x.io owner= by MODIFY ACCT#a")

	w = setup()
	b := account("ACCT#a", "b@x.io", "ada")
	w.src.put(w.sc.Table, lockItem("UNIQ#EMAIL#a@x.io", "ACCT#a"))
	b2 := account("ACCT#a", "b@x.io", "ada")
	b2["name"] = model.S("Ada")
	w.src.put(w.sc.Table, b2)
	wantEvents(t, "an email changed outside the pattern, then another attribute",
		w.judge(t, w.change(model.ChangeModify, renamed, b), w.change(model.ChangeModify, b, b2)),
		"appeared missing_lock email b@x.io owner= by MODIFY ACCT#a",
		"appeared orphan_lock email a@x.io owner=ACCT#a by MODIFY ACCT#a")
}

// TestTrackerWaitsForTheWriteThatMadeIt: records arrive after the writes
// they tell of, and a batch may be judged when a later write to one of
// its items is made but not yet streamed (a device inserted, then
// deleted). The reads then show what the batch's images do not: the
// tracker does not judge that now, naming the insert; the delete's
// record, when it comes, is named.
func TestTrackerWaitsForTheWriteThatMadeIt(t *testing.T) {
	w := newWatched(nil)
	a := account("ACCT#a", "a@x.io", "ada")
	email, handle := lockItem("UNIQ#EMAIL#a@x.io", "ACCT#a"), lockItem("UNIQ#HANDLE#ada", "ACCT#a")
	w.src.put(w.sc.Table, email)
	w.src.put(w.sc.Table, handle) // the account is deleted already
	wantEvents(t, "the insert, judged after the delete was made", w.judge(t, w.change(model.ChangeInsert, nil, a),
		w.change(model.ChangeInsert, nil, email), w.change(model.ChangeInsert, nil, handle)))
	w.t.Know(nil, w.t.Batch()) // a check finished meanwhile (the TUI tells its tracker): the insert waits on
	wantEvents(t, "the delete", w.judge(t, w.change(model.ChangeRemove, a, nil)),
		"appeared orphan_lock email a@x.io owner=ACCT#a by REMOVE ACCT#a",
		"appeared orphan_lock username ada owner=ACCT#a by REMOVE ACCT#a")
}

// TestTrackerWaitingGoesOnInAnother (issue 40): the changes that wait
// for a later record, handed to another tracker (a watch started again
// from a checkpoint: Waiting, then Wait), are judged there with the next
// batch, as they would have been here.
func TestTrackerWaitingGoesOnInAnother(t *testing.T) {
	w := newWatched(nil)
	a := account("ACCT#a", "a@x.io", "ada")
	handle := lockItem("UNIQ#HANDLE#ada", "ACCT#a")
	w.src.put(w.sc.Table, handle) // the account, signed up without its email lock, is deleted already
	wantEvents(t, "the insert, judged after the delete was made", w.judge(t, w.change(model.ChangeInsert, nil, a),
		w.change(model.ChangeInsert, nil, handle)))
	waiting := w.t.Waiting()
	if len(waiting) != 2 {
		t.Fatalf("%d changes wait; want the insert's 2", len(waiting))
	}
	w.t = NewTracker(&w.sc, w.src, nil, func() int64 { return 0 })
	w.t.Wait(waiting)
	// Put back as inserted (the delete's record, and the put's, to come):
	// the insert is judged with the next batch, another item's.
	w.src.put(w.sc.Table, a)
	b := account("ACCT#b", "b@x.io", "bea")
	w.src.put(w.sc.Table, b)
	w.src.put(w.sc.Table, lockItem("UNIQ#EMAIL#b@x.io", "ACCT#b"))
	w.src.put(w.sc.Table, lockItem("UNIQ#HANDLE#bea", "ACCT#b"))
	wantEvents(t, "the next batch, judged by the tracker started again", w.judge(t, w.change(model.ChangeModify, b, b)),
		"appeared missing_lock email a@x.io owner= by INSERT ACCT#a")
}

// TestTrackerNamesTheWriteThatMayHaveMadeIt: an account inserted without
// its username lock, then given another email before the insert's record
// is judged: the insert waits for the second write's record (the reads
// show its email), and then the missing username lock is laid at the
// insert, the one write that may have made it (the second left the
// username as it was), while the new email's missing lock is laid at the
// second write.
func TestTrackerNamesTheWriteThatMayHaveMadeIt(t *testing.T) {
	w := newWatched(nil)
	a := account("ACCT#a", "a@x.io", "ada")
	b := account("ACCT#a", "b@x.io", "ada")
	w.src.put(w.sc.Table, lockItem("UNIQ#EMAIL#a@x.io", "ACCT#a"))
	w.src.put(w.sc.Table, b)
	wantEvents(t, "the insert, read after the second write", w.judge(t, w.change(model.ChangeInsert, nil, a)))
	second := w.change(model.ChangeModify, a, b)
	second.Sequence = "2"
	events, err := w.t.Judge(context.Background(), []model.Change{second})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]model.ChangeEvent{}
	for _, e := range events {
		got[string(e.Kind)+" "+string(e.Problem.Kind)+" "+e.Problem.Value] = e.Cause.Event
	}
	want := map[string]model.ChangeEvent{
		"appeared missing_lock ada":    model.ChangeInsert,
		"appeared missing_lock b@x.io": model.ChangeModify,
		"appeared orphan_lock a@x.io":  model.ChangeModify,
	}
	if !maps.Equal(got, want) {
		t.Errorf("after the second write's record: %v, want %v", got, want)
	}
}

// TestTrackerJudgesEveryValueOfTwoRenames: an account renamed twice
// outside the pattern, both records in one batch: its first email's lock
// is an orphan at once. Only the first record touched that value, but
// the reads show what the second left, so nothing waits (a judgement
// that compared the reads with the first record alone waited forever).
func TestTrackerJudgesEveryValueOfTwoRenames(t *testing.T) {
	w := newWatched(nil)
	a, b, c := account("ACCT#a", "a@x.io", "ada"), account("ACCT#a", "b@x.io", "ada"), account("ACCT#a", "c@x.io", "ada")
	w.src.put(w.sc.Table, lockItem("UNIQ#EMAIL#a@x.io", "ACCT#a"))
	w.src.put(w.sc.Table, lockItem("UNIQ#HANDLE#ada", "ACCT#a"))
	w.src.put(w.sc.Table, c)
	first, second := w.change(model.ChangeModify, a, b), w.change(model.ChangeModify, b, c)
	second.Sequence = "2"
	wantEvents(t, "the two renames", w.judge(t, first, second),
		"appeared missing_lock email c@x.io owner= by MODIFY ACCT#a",
		"appeared orphan_lock email a@x.io owner=ACCT#a by MODIFY ACCT#a")
	if len(w.t.pending) != 0 {
		t.Errorf("%d changes wait: nothing should", len(w.t.pending))
	}
}

// known are the problems tracker t has found and not seen resolved, in
// the check's order.
func known(t *Tracker) []model.Problem {
	var ps []model.Problem
	for _, k := range t.known {
		ps = append(ps, k...)
	}
	model.SortProblems(ps)
	return ps
}

// TestTrackerSaysWhatChangedOfAProblem (found by the UI's model-based
// proof, TestTheScreenAgreesWithTheTable): a known problem found again
// with other details (here an orphan lock handed to another owner who
// does not hold its value either; there an expired lock put again as a
// reservation, expired_lock become expiring_lock, the same problem) made
// no event, so the report the UI draws kept the old details. It is told
// as changed; a watch prints nothing for it.
func TestTrackerSaysWhatChangedOfAProblem(t *testing.T) {
	w := newWatched(nil)
	before := lockItem("UNIQ#EMAIL#a@x.io", "ACCT#a")
	w.src.put(w.sc.Table, before)
	wantEvents(t, "the orphan put", w.judge(t, w.change(model.ChangeInsert, nil, before)),
		"appeared orphan_lock email a@x.io owner=ACCT#a by INSERT UNIQ#EMAIL#a@x.io")
	after := lockItem("UNIQ#EMAIL#a@x.io", "ACCT#b")
	w.src.put(w.sc.Table, after)
	wantEvents(t, "handed to another owner", w.judge(t, w.change(model.ChangeModify, before, after)),
		"changed orphan_lock email a@x.io owner=ACCT#b by MODIFY UNIQ#EMAIL#a@x.io")
	wantEvents(t, "touched, nothing changed", w.judge(t, w.change(model.ChangeModify, after, after)))
}

// failingReads is a source whose every read fails (throttled, timed out).
type failingReads struct{}

func (failingReads) ReadConsistent(context.Context, []model.KeyRef, func(string, model.Item)) error {
	return fmt.Errorf("read: throttled")
}

// TestTrackerKeepsWhatWaitsWhenAJudgementFails: a judgement whose reads
// fail loses none of the changes that waited for a later record: their
// records were handed on before, and a Lambda event source sends again
// only the batch that failed.
func TestTrackerKeepsWhatWaitsWhenAJudgementFails(t *testing.T) {
	w := newWatched(nil)
	a := account("ACCT#a", "a@x.io", "ada")
	w.src.put(w.sc.Table, lockItem("UNIQ#EMAIL#a@x.io", "ACCT#a")) // the account is deleted already
	w.judge(t, w.change(model.ChangeInsert, nil, a))
	if len(w.t.pending) != 1 {
		t.Fatalf("%d changes wait; want the insert", len(w.t.pending))
	}
	w.t.src = failingReads{}
	if _, err := w.t.Judge(context.Background(), []model.Change{w.change(model.ChangeRemove, a, nil)}); err == nil {
		t.Fatal("a judgement whose reads failed did not fail")
	}
	if len(w.t.pending) != 1 || w.t.pending[0].Event != model.ChangeInsert {
		t.Fatalf("after a failed judgement %d changes wait (%+v); want the insert still", len(w.t.pending), w.t.pending)
	}
	w.t.src = w.src
	wantEvents(t, "the delete, sent again", w.judge(t, w.change(model.ChangeRemove, a, nil)),
		"appeared orphan_lock email a@x.io owner=ACCT#a by REMOVE ACCT#a")
}
