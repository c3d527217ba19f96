package check

import (
	"context"
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/events"
)

// TestRejudgeReadsOnlyTheKeys: after a fix, Rejudge reads the fixed
// problems' keys and drops from the report those they no longer show,
// keeping the others; it stands in for no check while one runs, and its
// answer is dropped once a check has started since.
func TestRejudgeReadsOnlyTheKeys(t *testing.T) {
	b := uitest.Holding(dynamotest.Lock("UNIQ#HANDLE#gone1", "ACCT#x1"), dynamotest.Lock("UNIQ#HANDLE#gone2", "ACCT#x2"))
	report, err := b.Check(context.Background(), nil)
	if err != nil || len(report.Problems) != 2 {
		t.Fatalf("the fixture's report: %v, %v", report.Problems, err)
	}
	sc := b.Schema()
	m := New(context.Background(), b, events.NewPump(), &sc, 0, nil)
	m.run = 1
	m, _ = m.Update(DoneMsg{run: 1, report: report})
	// gone1 is fixed; gone2 is not, but is asked about too.
	b = uitest.Holding(dynamotest.Lock("UNIQ#HANDLE#gone2", "ACCT#x2"))
	cmd := m.Rejudge(b, report.Problems, 0, 0)
	if cmd == nil {
		t.Fatal("no rejudge after a finished check")
	}
	msg := cmd()
	if n := b.Control.Calls("Check"); n != 0 {
		t.Errorf("the rejudge ran %d checks", n)
	}
	next, rcmd := m.Update(msg)
	if rcmd == nil || len(next.Report().Problems) != 1 || next.Report().Problems[0].Value != "gone2" || next.Bar().Counts[model.OrphanLock] != 1 {
		t.Fatalf("after the rejudge: %v", next.Report().Problems)
	}
	if r, ok := rcmd().(ReportMsg); !ok || len(r.Report.Problems) != 1 {
		t.Errorf("the views are not handed the report: %T", rcmd())
	}
	m.bar.Running = true
	if m.Rejudge(b, report.Problems, 0, 0) != nil {
		t.Error("a rejudge while a check runs, which may have read the keys before the write")
	}
	m.bar.Running, m.run = false, 2 // a check started (and ended) since
	if stale, _ := m.Update(msg); len(stale.Report().Problems) != 2 {
		t.Error("a rejudge answered after a newer check changed its report")
	}
}

// TestAmendAndLapse: what a follow of the stream judged goes into the
// report (a problem that appeared is added once, one resolved leaves),
// and an expiring lock whose TTL passes becomes an expired one, as the
// check would find it; neither stands in for a check that runs.
func TestAmendAndLapse(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	orphan := model.Problem{Kind: model.OrphanLock, Constraint: "email", Value: "a@x", Owner: "ACCT#a"}
	expiring := model.Problem{Kind: model.ExpiringLock, Constraint: "email", Value: "b@x", Accounts: []string{"ACCT#b"}, ExpiresAt: 1000}
	missing := model.Problem{Kind: model.MissingLock, Constraint: "email", Value: "c@x", Accounts: []string{"ACCT#c"}}
	m := New(context.Background(), nil, events.NewPump(), &sc, 0, nil)
	if next, cmd := m.Amend([]model.Problem{missing}, nil); cmd != nil || next.Report() != nil {
		t.Fatal("amended with no report")
	}
	m.run = 1
	m, _ = m.Update(DoneMsg{run: 1, report: model.Report{Now: 900, Problems: []model.Problem{orphan, expiring}}})

	m, cmd := m.Amend([]model.Problem{missing, missing}, []model.Problem{orphan})
	if cmd == nil {
		t.Fatal("the views are not handed the amended report")
	}
	if got := m.Bar().Counts; got[model.MissingLock] != 1 || got[model.OrphanLock] != 0 || got[model.ExpiringLock] != 1 {
		t.Fatalf("after the amend: %v", m.Report().Problems)
	}
	if _, cmd := m.Lapse(nil, 999, 0); cmd != nil {
		t.Error("a lock lapsed before its TTL")
	}
	m, cmd = m.Lapse(nil, 1001, 0)
	if got := m.Bar().Counts; cmd == nil || got[model.ExpiredLock] != 1 || got[model.ExpiringLock] != 0 {
		t.Fatalf("after the lapse: %v", m.Report().Problems)
	}
	// While a check runs, what the follow judged waits for its report,
	// in order: a problem that appeared and was resolved since is not
	// there.
	m.bar.Running, m.run = true, 2
	if _, cmd := m.Amend(nil, []model.Problem{missing}); cmd != nil {
		t.Error("amended while a check runs")
	}
	m, _ = m.Amend(nil, []model.Problem{missing})
	m, _ = m.Amend([]model.Problem{orphan}, nil)
	m, _ = m.Amend(nil, []model.Problem{orphan})
	m, _ = m.Amend([]model.Problem{orphan}, nil)
	m, _ = m.Update(DoneMsg{run: 2, report: model.Report{Problems: []model.Problem{missing}}})
	if got := m.Bar().Counts; got[model.MissingLock] != 0 || got[model.OrphanLock] != 1 || len(m.Report().Problems) != 1 {
		t.Errorf("the check's report, amended: %v", m.Report().Problems)
	}
}

// TestALapsedReservationIsConfirmed: a reservation (a lock whose TTL is
// ahead, nobody holding its value) whose TTL passes leaves the header's
// count at once, and its lock is read again: still there and nobody's,
// it is the expired_lock a check would find; completed since (the
// signup put the lock for good and the account), it is nothing.
func TestALapsedReservationIsConfirmed(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	if err := sc.SetTTLAttr(sc.Table, "ttl"); err != nil {
		t.Fatal(err)
	}
	reserved := func(v string) (model.Item, model.Problem) {
		lock := dynamotest.Lock("UNIQ#EMAIL#"+v, "ACCT#"+v)
		lock["ttl"] = model.N("1000")
		return lock, model.Problem{Kind: model.ExpiredLock, Constraint: "email", Value: v, Owner: "ACCT#" + v, ExpiresAt: 1000,
			Lock: map[string]string{"PK": "UNIQ#EMAIL#" + v, "SK": "LOCK"}}
	}
	stale, p1 := reserved("r1@x")
	_, p2 := reserved("r2@x")
	b := uitest.New(sc)
	b.Put(sc.Table, stale, dynamotest.Lock("UNIQ#EMAIL#r2@x", "ACCT#r2@x"), dynamotest.Account("ACCT#r2@x", "r2@x", ""))
	m := New(context.Background(), nil, events.NewPump(), &sc, 0, nil)
	m.run = 1
	m, _ = m.Update(DoneMsg{run: 1, report: model.Report{Now: 900, Reservations: 2, Reserved: []model.Problem{p1, p2}, Problems: []model.Problem{}}})
	if _, cmd := m.Lapse(b, 999, 0); cmd != nil {
		t.Error("a reservation lapsed before its TTL")
	}
	m, cmd := m.Lapse(b, 1001, 0)
	if cmd == nil || m.Report().Reservations != 0 || len(m.Report().Reserved) != 0 {
		t.Fatalf("after the lapse: %d reservations, %d listed", m.Report().Reservations, len(m.Report().Reserved))
	}
	for _, msg := range runAll(cmd) {
		m, _ = m.Update(msg)
	}
	if got := m.Report().Problems; len(got) != 1 || got[0].Kind != model.ExpiredLock || got[0].Value != "r1@x" {
		t.Errorf("after the lapse's reads: %+v, want r1's expired_lock alone (r2's signup completed)", got)
	}
}

// runAll runs cmd and the commands of a batch it returns, and returns
// their messages.
func runAll(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	batch, ok := msg.(tea.BatchMsg)
	if !ok {
		return []tea.Msg{msg}
	}
	var msgs []tea.Msg
	for _, c := range batch {
		msgs = append(msgs, runAll(c)...)
	}
	return msgs
}

// TestALapsedLockIsReadWithItsHolders (found by the UI's model-based
// proof at full scale): a lock with a TTL the stream told (Lapsing), its
// value held by an account the report names, lapses: its reads take that
// holder in, so the expired_lock found names it (read without it, it
// said nobody held the value, and the follow's tracker, told so, missed
// a second holder's duplicate later).
func TestALapsedLockIsReadWithItsHolders(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	if err := sc.SetTTLAttr(sc.Table, "ttl"); err != nil {
		t.Fatal(err)
	}
	lock := dynamotest.Lock("UNIQ#EMAIL#v@x", "")
	lock["ttl"] = model.N("1000")
	b := uitest.New(sc)
	b.Put(sc.Table, lock, dynamotest.Account("ACCT#x", "v@x", ""))
	held := model.Problem{Kind: model.ExpiringLock, Constraint: "email", Value: "v@x", ExpiresAt: 1000, Accounts: []string{"ACCT#x"},
		Lock: map[string]string{"PK": "UNIQ#EMAIL#v@x", "SK": "LOCK"}}
	m := New(context.Background(), nil, events.NewPump(), &sc, 0, nil)
	m.run = 1
	m, _ = m.Update(DoneMsg{run: 1, report: model.Report{Now: 900, Problems: []model.Problem{held}}})
	told := model.Classifier{Schema: &sc}.LockProblem(model.ExpiredLock, 0, "v@x", "")
	told.ExpiresAt = 1000
	m = m.Lapsing([]model.Problem{told})
	m, there := lapseAt(m, b, 1001)
	if len(there) != 1 || !slices.Equal(there[0].Accounts, []string{"ACCT#x"}) {
		t.Errorf("the lapsed lock's reads found %+v; want its expired_lock held by ACCT#x", there)
	}
}

// TestARewrittenLockLapsesAtItsNewTTL (found by the UI's model-based
// proof at full scale, seed 5927782383951870173 op 688): a lock the
// stream told twice, its TTL moved nearer by the second write, lapses at
// the second's TTL: Lapsing kept the first it was told of, and the lock
// stayed unread, not shown expired, until the first TTL passed.
func TestARewrittenLockLapsesAtItsNewTTL(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	if err := sc.SetTTLAttr(sc.Table, "ttl"); err != nil {
		t.Fatal(err)
	}
	lock := dynamotest.Lock("UNIQ#EMAIL#v@x", "")
	lock["ttl"] = model.N("1000")
	b := uitest.New(sc)
	b.Put(sc.Table, lock)
	m := New(context.Background(), nil, events.NewPump(), &sc, 0, nil)
	m.run = 1
	m, _ = m.Update(DoneMsg{run: 1, report: model.Report{Now: 900}})
	told := func(at int64) model.Problem {
		p := model.Classifier{Schema: &sc}.LockProblem(model.ExpiredLock, 0, "v@x", "")
		p.ExpiresAt = at
		return p
	}
	m = m.Lapsing([]model.Problem{told(5000)}) // the first write: far ahead
	m = m.Lapsing([]model.Problem{told(1000)}) // the lock rewritten
	m, there := lapseAt(m, b, 1001)
	if len(there) != 1 || there[0].Kind != model.ExpiredLock {
		t.Errorf("at 1001 the rewritten lock's reads found %+v; want its expired_lock (its TTL 1000)", there)
	}
	if got := m.Report().Counts()[model.ExpiredLock]; got != 1 {
		t.Errorf("the report counts %d expired locks; want 1", got)
	}
}

// lapseAt lapses m at now, reading b, and returns it once every read has
// come back, with what the reads found there.
func lapseAt(m Model, b Reader, now int64) (Model, []model.Problem) {
	m, cmd := m.Lapse(b, now, 0)
	var there []model.Problem
	for _, msg := range runAll(cmd) {
		if r, ok := msg.(RejudgedMsg); ok {
			_, there, _ = r.Judged()
		}
		m, _ = m.Update(msg)
	}
	return m, there
}
