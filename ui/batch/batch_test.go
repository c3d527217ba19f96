package batch

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/styles"
	"github.com/locktable/locktable/ui/write"
)

// bench is a batch (paced within maxWCU, if given) on an in-memory table with one problem of each kind
// that repair fixes, two orphans, and a duplicate a person decides; and
// what the batch told the root.
type bench struct {
	t        *testing.T
	b        *uitest.Backend
	m        Model
	report   model.Report
	outcomes []write.OutcomeMsg
	written  []write.WrittenMsg
	settled  []SettledMsg
	sends    []tea.Cmd // sends not run yet, in order
}

func newBench(t *testing.T, maxWCU ...float64) *bench {
	t.Helper()
	b := uitest.Holding(
		dynamotest.Account("ACCT#a1", "ada@x.io", "ada"), dynamotest.Lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), // ada's username lock is missing
		dynamotest.Account("ACCT#b2", "bob@x.io", "bob"), dynamotest.Lock("UNIQ#EMAIL#bob@x.io", "ACCT#b2"), dynamotest.Lock("UNIQ#HANDLE#bob", "ACCT#z9"), // foreign
		dynamotest.Lock("UNIQ#HANDLE#gone1", "ACCT#x1"), dynamotest.Lock("UNIQ#HANDLE#gone2", ""), // orphans, one ownerless
		dynamotest.Account("ACCT#d4", "dup@x.io", "dave"), dynamotest.Lock("UNIQ#EMAIL#dup@x.io", "ACCT#d4"), dynamotest.Lock("UNIQ#HANDLE#dave", "ACCT#d4"),
		dynamotest.Account("ACCT#e5", "dup@x.io", "eve"), dynamotest.Lock("UNIQ#HANDLE#eve", "ACCT#e5"),
	)
	r, err := b.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, st := b.Schema(), styles.New(true)
	bn := &bench{t: t, b: b, report: r}
	bn.m = New(context.Background(), b, &sc, &st, dialog.DefaultKeyMap(), func() *model.Report { return &bn.report }, append(maxWCU, 0)[0])
	bn.m.SetSize(120, 60)
	return bn
}

// run runs cmd as the runtime would; the sends of the batch are kept in
// sends, to be run one at a time (next), as a slow network answers.
func (bn *bench) run(cmd tea.Cmd) {
	if cmd == nil || strings.Contains(runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()).Name(), "bubbles/v2/cursor.") {
		return // the cursor's blink only animates
	}
	msg := cmd()
	if cmds, ok := uitest.Sequence(msg); ok {
		for _, c := range cmds {
			bn.run(c)
		}
		return
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			bn.run(c)
		}
	case write.SendingMsg:
		// The root notes what the write leaves; nothing here to do.
	case write.OutcomeMsg:
		bn.outcomes = append(bn.outcomes, msg)
	case write.WrittenMsg:
		bn.written = append(bn.written, msg)
	case SettledMsg:
		bn.settled = append(bn.settled, msg)
	case SentMsg:
		bn.sends = append(bn.sends, func() tea.Msg { return msg })
	case PlannedMsg:
		bn.update(msg)
	}
}

func (bn *bench) update(msg tea.Msg) {
	var cmd tea.Cmd
	bn.m, cmd = bn.m.Update(msg)
	bn.run(cmd)
}

// next hands the batch the answer of the send in flight.
func (bn *bench) next() {
	bn.t.Helper()
	if len(bn.sends) == 0 {
		bn.t.Fatal("no transaction in flight")
	}
	s := bn.sends[0]
	bn.sends = bn.sends[1:]
	bn.update(s())
}

func (bn *bench) typeText(s string) {
	for _, r := range s {
		bn.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (bn *bench) screen() string { return ansi.Strip(bn.m.View()) }

// TestPreviewListsEveryTransaction: the preview lists every repair the
// batch sends, planned as repair plans them (the ownerless orphan's claim
// among them), counted by kind, and what it does not send (the duplicate
// a person decides), and asks for their number.
func TestPreviewListsEveryTransaction(t *testing.T) {
	bn := newBench(t)
	bn.update(FixMsg{Problems: bn.report.Problems})
	s := bn.screen()
	for _, want := range []string{
		"fix 5 marked problems",
		"4 transactions (missing_lock 1, foreign_lock 1, orphan_lock 2), sent one at a time in this order; 1 not sent",
		"type 4 (the number of transactions) to send:",
		"step 1 of 3, claim the lock",
		"claim lock UNIQ#HANDLE#gone2",
		"only if it has no owner",
		"not sent (1):",
		"skipped: duplicate_value email=dup@x.io",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the preview lacks %q:\n%s", want, s)
		}
	}
	if n := strings.Count(s, ". repair "); n != 4 {
		t.Errorf("%d transactions listed, want 4:\n%s", n, s)
	}
}

// TestTypedCountSends: enter sends only once the number of transactions
// is typed; then each is sent in order, one at a time, under a progress
// bar, each outcome to the writes log in one group; closing asks for the
// rows written to be read again and unmarks what was sent.
func TestTypedCountSends(t *testing.T) {
	bn := newBench(t)
	bn.update(FixMsg{Problems: bn.report.Problems})
	bn.typeText("5")
	bn.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if len(bn.sends) != 0 || !strings.Contains(bn.screen(), "type 4 exactly to send") {
		t.Fatalf("a wrong count sent, or did not say so:\n%s", bn.screen())
	}
	bn.update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	bn.typeText("4")
	bn.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	for i := range 4 {
		if len(bn.sends) != 1 {
			t.Fatalf("before answer %d, %d transactions in flight; want one at a time", i, len(bn.sends))
		}
		if s := bn.screen(); !strings.Contains(s, "sent "+string(rune('0'+i))+" of 4 transactions") || !strings.Contains(s, "█") && i > 0 {
			t.Errorf("progress before answer %d:\n%s", i, s)
		}
		bn.next()
	}
	if s := bn.screen(); !strings.Contains(s, "sent 4 of 4 transactions: 4 committed") {
		t.Fatalf("the report:\n%s", s)
	}
	groups := map[string]bool{}
	for _, o := range bn.outcomes {
		groups[o.Group] = true
		if o.GroupTitle != "fix 5 marked problems" {
			t.Errorf("outcome titled %q", o.GroupTitle)
		}
	}
	if len(bn.outcomes) != 4 || len(groups) != 1 || groups[""] {
		t.Errorf("%d outcomes in groups %v; want 4 in one", len(bn.outcomes), groups)
	}
	if r, _ := bn.b.Check(context.Background(), nil); len(r.Problems) != 1 || r.Problems[0].Kind != model.DuplicateValue {
		t.Errorf("after the batch: %v; want the duplicate alone", r.Problems)
	}
	bn.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if bn.m.Open() || len(bn.written) != 1 || !bn.written[0].Committed || len(bn.settled) != 1 || len(bn.settled[0].Sent) != 4 {
		t.Fatalf("closing: open %v, written %v, settled %v", bn.m.Open(), bn.written, bn.settled)
	}
}

// TestEscStopsBeforeTheNext: esc while a transaction is in flight lets
// it be settled and reported, and sends no other; the report says what
// was sent, and only what was sent is unmarked.
func TestEscStopsBeforeTheNext(t *testing.T) {
	bn := newBench(t)
	bn.update(FixMsg{Problems: bn.report.Problems})
	bn.typeText("4")
	bn.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	bn.next()
	bn.update(tea.KeyPressMsg{Code: tea.KeyEscape}) // the second is in flight
	if !strings.Contains(bn.screen(), "stopping") {
		t.Errorf("esc does not say it stops:\n%s", bn.screen())
	}
	bn.next()
	if len(bn.sends) != 0 {
		t.Fatalf("a transaction sent after esc")
	}
	s := bn.screen()
	if !strings.Contains(s, "sent 2 of 4 transactions: 2 committed; stopped (esc), 2 not sent (still marked)") || strings.Count(s, "→ not sent") != 2 {
		t.Errorf("the report:\n%s", s)
	}
	bn.update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if len(bn.settled) != 1 || len(bn.settled[0].Sent) != 2 || !reflect.DeepEqual(bn.settled[0].Sent, []model.Problem{bn.m.ready[0].problem, bn.m.ready[1].problem}) {
		t.Errorf("settled %v; want the two sent", bn.settled)
	}
}

// TestEscStopsTheOneWaiting (issue 38, 4): under --max-wcu, the next
// transaction's send begins at once and waits for the budget, so esc came
// while it waited, and it was sent all the same. Here its send runs only
// after esc, as a send held by the budget does: it must not be sent, and
// the report says so.
func TestEscStopsTheOneWaiting(t *testing.T) {
	bn := newBench(t, 2)
	bn.update(FixMsg{Problems: bn.report.Problems})
	bn.typeText("4")
	bn.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	bn.next()           // the first answered, the second sent
	var waiting tea.Cmd // the third's send, kept from running
	bn.m, waiting = bn.m.Update(bn.sends[0]())
	bn.sends = nil
	problems := func() []model.Problem {
		r, err := bn.b.Check(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.Problems
	}
	before := problems()
	bn.update(tea.KeyPressMsg{Code: tea.KeyEscape}) // while the second waits
	bn.run(waiting)
	bn.next()
	if after := problems(); !reflect.DeepEqual(before, after) {
		t.Errorf("the transaction waiting when esc came was sent: the problems went from\n%v\nto\n%v", before, after)
	}
	if s := strings.Join(strings.Fields(bn.screen()), " "); !strings.Contains(s, "sent 2 of 4 transactions: 2 committed; stopped (esc) while the next waited for --max-wcu 2, so it was not sent either, 2 not sent (still marked)") {
		t.Errorf("the report:\n%s", s)
	}
}

// TestFailedWriteStops: a write that certainly failed stops the batch,
// as repair stops, and says why.
func TestFailedWriteStops(t *testing.T) {
	bn := newBench(t)
	bn.update(FixMsg{Problems: bn.report.Problems})
	bn.typeText("4")
	bn.b.Control.Fail("Execute", errors.New("no connection"))
	bn.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	bn.next()
	if len(bn.sends) != 0 || !strings.Contains(bn.screen(), "a write failed: no connection, 3 not sent") {
		t.Errorf("after a failed write, %d sends; report:\n%s", len(bn.sends), bn.screen())
	}
}

// TestPreviewFitsANarrowTerminal: at 80 columns no line of the batch is
// wider than the terminal; the count line wraps rather than being cut
// ("0 not sent (li" at 80x24 in the demo).
func TestPreviewFitsANarrowTerminal(t *testing.T) {
	bn := newBench(t)
	bn.m.SetSize(80, 24)
	bn.update(FixMsg{Problems: bn.report.Problems})
	v := bn.m.View()
	for _, l := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a line of %d cells at 80: %q", w, ansi.Strip(l))
		}
	}
	if s := strings.Join(strings.Fields(bn.screen()), " "); !strings.Contains(s, "1 not sent (listed last)") {
		t.Errorf("the count line lost its end:\n%s", bn.screen())
	}
}

// TestPreviewIsToldOfAChange: a key a previewed transaction writes that
// someone else writes meanwhile (the table's stream told) is said in the
// preview before anything is sent; a key of none is not.
func TestPreviewIsToldOfAChange(t *testing.T) {
	bn := newBench(t)
	bn.update(FixMsg{Problems: bn.report.Problems})
	sc := bn.b.Schema()
	bn.m.Changed([]model.KeyRef{{Table: sc.Table, Key: sc.AccountKey("ACCT#nobody")}})
	if strings.Contains(bn.screen(), "changed under this batch") {
		t.Fatalf("told of a key no transaction has:\n%s", bn.screen())
	}
	bn.m.Changed([]model.KeyRef{{Table: sc.Table, Key: map[string]string{"PK": "UNIQ#HANDLE#gone1", "SK": "LOCK"}}})
	if s := strings.Join(strings.Fields(bn.screen()), " "); !strings.Contains(s, "changed under this batch: someone else wrote UNIQ#HANDLE#gone1 LOCK") {
		t.Errorf("the preview does not say its lock changed:\n%s", bn.screen())
	}
}

// TestPacedBatchSaysSo: under --max-wcu the preview says the budget, the
// write capacity the batch takes (2 units for each item it writes) and
// the least time that takes; the progress says it is paced, so that a
// slow bar is not taken for a stuck one.
func TestPacedBatchSaysSo(t *testing.T) {
	bn := newBench(t, 2)
	bn.update(FixMsg{Problems: bn.report.Problems})
	// missing: put the lock (1 item); foreign: put the lock (1); the
	// orphans: delete one (1), claim the ownerless one (1) and then delete
	// it or give it back (1): 5 items, 10 WCU.
	if s := bn.screen(); !strings.Contains(s, "paced within --max-wcu 2: 10 write capacity units, at least 5 s") {
		t.Errorf("the preview does not say the pace:\n%s", s)
	}
	bn.typeText("4")
	bn.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if s := bn.screen(); !strings.Contains(s, "sent 0 of 4 transactions, paced within --max-wcu 2") {
		t.Errorf("the progress does not say it is paced:\n%s", s)
	}
}

// TestPreviewSaysNothingOfNoneUnsent (issue 38, 12): a batch that sends
// every problem marked said "0 not sent (listed last)", with nothing
// listed; it says nothing of what it does not send then.
func TestPreviewSaysNothingOfNoneUnsent(t *testing.T) {
	bn := newBench(t)
	var fixable []model.Problem
	for _, p := range bn.report.Problems {
		if p.Kind != model.DuplicateValue {
			fixable = append(fixable, p)
		}
	}
	bn.update(FixMsg{Problems: fixable})
	s := strings.Join(strings.Fields(bn.screen()), " ")
	if !strings.Contains(s, "4 transactions (missing_lock 1, foreign_lock 1, orphan_lock 2), sent one at a time in this order") {
		t.Fatalf("the preview does not count its transactions:\n%s", bn.screen())
	}
	if strings.Contains(s, "not sent") {
		t.Errorf("the preview speaks of what it does not send, sending all:\n%s", bn.screen())
	}
}
