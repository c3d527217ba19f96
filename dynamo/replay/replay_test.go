package replay

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/model/mistake"
)

// TestLapsedReservationAtTheStoresClock: demo break lapsed-reservation
// writes each reservation's TTL relative to the store's clock (lapsed a
// minute before it), and judges what it left at that clock: an
// expired_lock per value, whatever day the machine says it is. In both
// layouts, the lock tables with TTL attributes of their own in layout 2.
func TestLapsedReservationAtTheStoresClock(t *testing.T) {
	t.Parallel()
	var kind mistake.Kind
	for _, k := range mistake.Kinds {
		if k.Name == "lapsed-reservation" {
			kind = k
		}
	}
	clocktest.Each(t, func(t *testing.T, at time.Time) {
		for _, l := range []model.Layout{model.LayoutSingle, model.LayoutTables} {
			t.Run(string(l), func(t *testing.T) {
				t.Parallel()
				ctx := context.Background()
				store, _ := dynamotest.TTLStoreAt(t, l, at)
				out, err := Run(ctx, store, kind)
				if err != nil {
					t.Fatal(err)
				}
				if len(out.Accounts) != 1 {
					t.Fatalf("replayed on accounts %v, want one", out.Accounts)
				}
				a, found, err := store.Pages.Account(ctx, out.Accounts[0])
				if err != nil || !found {
					t.Fatalf("account %s: found %v, %v", out.Accounts[0], found, err)
				}
				want := model.N(strconv.FormatInt(at.Add(reservationTTL-reservedAgo).Unix(), 10))
				for _, lv := range a.Locks {
					attr := store.Schema.LockTTLAttr(lv.Constraint)
					if got := lv.Item[attr]; got.Kind != want.Kind || got.S != want.S {
						t.Errorf("the %s lock's %s is %q, want %s: %s before the store's clock %s", store.Schema.Constraints[lv.Constraint].Attr, attr,
							got.S, want.S, reservedAgo-reservationTTL, at)
					}
				}
				expired := 0
				for _, p := range out.Found {
					if p.Kind != model.ExpiredLock {
						t.Errorf("found a %s (%s=%s), want only expired_lock", p.Kind, p.Constraint, p.Value)
						continue
					}
					expired++
				}
				if expired != len(store.Schema.Constraints) {
					t.Errorf("found %d expired_lock, want one per value (%d): %+v", expired, len(store.Schema.Constraints), out.Found)
				}
			})
		}
	})
}
