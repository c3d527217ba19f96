package dynamo_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/model"
)

// TestPutRequestGuardsAtTheStoresClock: an unguarded put of a lock (what
// seed and demo break send) under the guard a signup uses takes an expired
// lock over judged at the store's clock, as Prepare's guards are, not at
// the machine's: its :now is the store's second, in both layouts.
func TestPutRequestGuardsAtTheStoresClock(t *testing.T) {
	t.Parallel()
	clocktest.Each(t, func(t *testing.T, at time.Time) {
		for _, l := range layouts {
			sc := model.DefaultSchema(l)
			dynamotest.WithTTL(&sc)
			store := dynamo.NewStore(nil, backend.Endpoint{}, sc, clock.Fixed(at))
			p, err := sc.Signup(sc.IDKeyPrefix()+"a1", map[string]string{sc.Constraints[0].Attr: "ada@x", sc.Constraints[1].Attr: "ada"})
			if err != nil {
				t.Fatal(err)
			}
			guarded := 0
			for _, a := range p.Actions {
				if a.Kind != model.ActPut || a.Constraint < 0 {
					continue
				}
				if _, ok := a.TakeOver(); !ok {
					t.Fatalf("%s: the signup's put of lock %d takes no expired lock over: %+v", l, a.Constraint, a.Conds)
				}
				u, err := store.Seeder.PutRequest(a.Table, a.Item, a.Conds...)
				if err != nil {
					t.Fatal(err)
				}
				put := u.Put
				m := freeOrExpired.FindStringSubmatch(deref(put.ConditionExpression))
				now := ""
				if m != nil {
					now = value(put.ExpressionAttributeValues[m[3]]).S
				}
				if m == nil || put.ExpressionAttributeNames[m[1]] != sc.LockPK(a.Constraint) || put.ExpressionAttributeNames[m[2]] != sc.LockTTLAttr(a.Constraint) ||
					now != strconv.FormatInt(at.Unix(), 10) {
					t.Errorf("%s lock %d: %s %v, :now %q; want attribute_not_exists(%s) OR %s <= %d", l, a.Constraint, deref(put.ConditionExpression),
						put.ExpressionAttributeNames, now, sc.LockPK(a.Constraint), sc.LockTTLAttr(a.Constraint), at.Unix())
				}
				guarded++
			}
			if guarded != len(sc.Constraints) {
				t.Errorf("%s: %d guarded lock puts, want %d", l, guarded, len(sc.Constraints))
			}
		}
	})
}
