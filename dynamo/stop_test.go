package dynamo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// TestStopWhilePacedSendsNothing (issue 38, 4): under --max-wcu 1, a
// signup (3 items, 6 WCU) goes at once on the full bucket and the next waits
// for the budget; closing the stop channel while it waits leaves it not
// sent, with backend.ErrStopped, and nothing of it in the table: esc in a
// paced bulk fix sent the transaction that waited. The context itself is
// never cancelled, as a batch's is not (its transaction in flight must
// settle).
func TestStopWhilePacedSendsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	s := f.store
	s.SetMaxWCU(1)
	a, b := f.id("a1"), f.id("b2")
	wantCommitted(t, execute(t, s, must(t)(model.Planner{Schema: &s.Schema}.Signup(a, f.attrs("ada@x", "ada")))))

	tx, err := s.Writer.Prepare(must(t)(model.Planner{Schema: &s.Schema}.Signup(b, f.attrs("bob@x", "bob"))), backend.NewToken())
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	type answer struct {
		res model.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := s.Writer.Execute(backend.WithStop(context.Background(), stop), tx)
		done <- answer{res, err}
	}()
	// It waits about 6 s for the budget (the burst was spent): stop it
	// long before, whenever the machine gets there.
	time.Sleep(200 * time.Millisecond)
	close(stop)
	var got answer
	select {
	case got = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Execute did not return after its stop channel closed")
	}
	if got.res.Outcome != model.NotSent || !errors.Is(got.err, backend.ErrStopped) {
		t.Fatalf("stopped while paced: outcome %s, error %v; want not_sent, %v", got.res.Outcome, got.err, backend.ErrStopped)
	}
	f.wantState(f.healthy(a, "ada@x", "ada"))

	// A write whose stop closed before it began is not sent either, even
	// with the budget to pay for it.
	s.SetMaxWCU(0)
	res, err := s.Writer.Execute(backend.WithStop(context.Background(), stop), tx)
	if res.Outcome != model.NotSent || !errors.Is(err, backend.ErrStopped) {
		t.Fatalf("stopped before it began: outcome %s, error %v; want not_sent", res.Outcome, err)
	}
	f.wantState(f.healthy(a, "ada@x", "ada"))
}
