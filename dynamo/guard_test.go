package dynamo_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/model"
)

// ttlFixture is a fixture of layout l with TTL attributes whose requests
// are built, and TTLs judged, at now (a clocktest time, a whole second).
func ttlFixture(t *testing.T, l model.Layout, now time.Time) fixture {
	f := newFixture(t, l, dynamotest.WithTTL)
	f.store.Clock = clock.Fixed(now)
	return f
}

// expiring is lock r with its TTL attribute at epoch second at.
func (f fixture) expiring(r row, at time.Time) row {
	table := f.store.Schema.Tables()[r.table]
	r.item[f.store.Schema.TTLAttrOf(table)] = model.N(strconv.FormatInt(at.Unix(), 10))
	return r
}

// TestGuardTakesAnExpiredLockOver: on tables with TTL, a lock whose TTL
// has passed still blocks its value until DynamoDB deletes it; the
// guards take it over, in both layouts. A signup of an expired value
// commits and leaves a permanent lock naming the new account; one of a
// live reservation is cancelled, naming it; a rename onto an expired
// value commits; the undo of a delete puts its locks back over expired
// ones; racers for an expired value: one commits, and the lock it leaves
// stops the others. At each clocktest clock.
func TestGuardTakesAnExpiredLockOver(t *testing.T) {
	clocktest.Each(t, func(t *testing.T, now time.Time) {
		for _, l := range layouts {
			t.Run(string(l), func(t *testing.T) {
				t.Parallel()
				guardTakesAnExpiredLockOver(t, l, now)
			})
		}
	})
}

// guardTakesAnExpiredLockOver is TestGuardTakesAnExpiredLockOver in layout
// l, its store's clock at now.
func guardTakesAnExpiredLockOver(t *testing.T, l model.Layout, now time.Time) {
	ctx := context.Background()
	f := ttlFixture(t, l, now)
	s := f.store
	a, b := f.id("a1"), f.id("b2")
	ago, ahead := now.Add(-3*time.Hour), now.Add(12*time.Minute)

	f.put(f.expiring(f.lock(0, "ada@x", f.id("gone")), ago), f.expiring(f.lock(1, "ada", ""), ago))
	wantCommitted(t, execute(t, s, must(t)(s.Schema.Signup(a, f.attrs("ada@x", "ada")))))
	f.wantState(f.healthy(a, "ada@x", "ada"))

	reserved := f.expiring(f.lock(0, "held@x", ""), ahead)
	f.put(reserved)
	p := must(t)(s.Schema.Signup(b, f.attrs("held@x", "bob")))
	lock := p.Actions[1].KeyText(&s.Schema)
	wantCancelled(t, execute(t, s, p), 1, p.Actions[1].Purpose(&s.Schema),
		fmt.Sprintf("%s held@x is reserved until %s (12 min more) by lock %s", f.attr(0), model.TTLTime(ahead.Unix()), lock))
	f.wantState(f.healthy(a, "ada@x", "ada"), []row{reserved})

	kept := []row{reserved}

	wantCommitted(t, execute(t, s, must(t)(s.Schema.Signup(b, f.attrs("bob@x", "bob")))))
	f.put(f.expiring(f.lock(0, "new@x", f.id("gone")), ago))
	pr, err := s.Writer.PlanRename(ctx, b, map[string]string{f.attr(0): "new@x"}, nil, nil)
	wantCommitted(t, execute(t, s, must(t)(pr, err)))
	f.wantState(f.healthy(a, "ada@x", "ada"), f.healthy(b, "new@x", "bob"), kept)

	journal, file, err := dynamo.OpenUndoJournal(filepath.Join(t.TempDir(), "undo.log"), s.Clock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	s.Undo = journal
	pd, err := s.Writer.PlanDelete(ctx, a, nil, nil)
	wantCommitted(t, execute(t, s, must(t)(pd, err)))
	// ada's values are reserved again, and the reservations lapse.
	f.put(f.expiring(f.lock(0, "ada@x", ""), ago), f.expiring(f.lock(1, "ada", f.id("z")), ago))
	pu, err := s.Journal.UndoToken(ctx, "")
	wantCommitted(t, execute(t, s, must(t)(pu, err)))
	f.wantState(f.healthy(a, "ada@x", "ada"), f.healthy(b, "new@x", "bob"), kept)

	f.put(f.expiring(f.lock(0, "race@x", ""), ago))
	const n = 5
	results, errs := make([]model.Result, n), make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		tx, err := s.Writer.Prepare(must(t)(s.Schema.Signup(f.id(fmt.Sprintf("r%d", i)), f.attrs("race@x", ""))), backend.NewToken())
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			<-start
			results[i], errs[i] = s.Writer.Execute(ctx, tx)
		})
	}
	close(start)
	wg.Wait()
	winner := ""
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("racer %d: %v", i, errs[i])
		}
		if r.Outcome == model.Committed {
			if winner != "" {
				t.Fatalf("racers %s and %d both committed", winner, i)
			}
			winner = f.id(fmt.Sprintf("r%d", i))
		}
	}
	if winner == "" {
		t.Fatalf("no racer committed: %+v", results)
	}
	for _, r := range results {
		if r.Outcome != model.Committed && (r.Outcome != model.Cancelled || len(r.Reasons) != 1 ||
			r.Reasons[0].Message != f.attr(0)+" race@x is taken by "+winner) {
			t.Errorf("a losing racer: %s %+v; want cancelled, taken by %s", r.Outcome, r.Reasons, winner)
		}
	}
	f.wantState(f.healthy(a, "ada@x", "ada"), f.healthy(b, "new@x", "bob"), kept,
		[]row{f.account(winner, "race@x", ""), f.lock(0, "race@x", winner)})
	f.noProblems()
}
