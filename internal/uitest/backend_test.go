package uitest

import (
	"context"
	"maps"
	"strconv"
	"testing"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestGuardOnALockWithTTL: the fake evaluates the guard that takes an
// expired lock over as DynamoDB does, at the second its request was built
// (the backend's Clock): a lock whose TTL is a number not after it is
// taken over and replaced by a permanent lock; a later TTL, a string,
// milliseconds block the value; 0 and below are long past (taken over);
// and a reservation is explained as the store explains it.
func TestGuardOnALockWithTTL(t *testing.T) {
	now := time.Date(2026, 12, 1, 23, 53, 0, 0, time.UTC)
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.TTLAttr, sc.TTLGiven = "ttl", true
	at := func(d time.Duration) model.Value { return model.N(strconv.FormatInt(now.Add(d).Unix(), 10)) }
	for _, c := range []struct {
		name string
		ttl  model.Value
		want string // the reason; "" for committed
	}{
		{"expired 3 h ago", at(-3 * time.Hour), ""},
		{"expiring this second", at(0), ""},
		// Compared as a decimal, as DynamoDB does: half a second later is
		// after now (model.ReadLease rounds it up to the next second: reserved).
		{"half a second later", model.N(strconv.FormatInt(now.Unix(), 10) + ".5"), "email ada@x is reserved until 2026-12-01 23:53:01 UTC (1 s more) by lock UNIQ#EMAIL#ada@x"},
		{"reserved 12 min more", at(12 * time.Minute), "email ada@x is reserved until 2026-12-02 00:05:00 UTC (12 min more) by lock UNIQ#EMAIL#ada@x"},
		{"a string", model.S("0"), "email ada@x is taken (its lock names no owner)"},
		// Long past: expired, for the check as for the guard.
		{"zero", model.N("0"), ""},
		{"negative", model.N("-5"), ""},
		{"the first second", model.N("1"), ""},
		{"milliseconds", model.N(strconv.FormatInt(now.Add(-time.Hour).UnixMilli(), 10)), "email ada@x is taken (its lock names no owner)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := New(sc)
			b.Clock = clock.Fixed(now)
			lock := model.Item{"PK": model.S("UNIQ#EMAIL#ada@x"), "SK": model.S("LOCK"), "ttl": c.ttl}
			b.Put(sc.Table, lock)
			p, err := model.Planner{Schema: &sc}.Signup("ACCT#a", map[string]string{"email": "ada@x"})
			if err != nil {
				t.Fatal(err)
			}
			tx, err := b.Prepare(p, backend.NewToken())
			if err != nil {
				t.Fatal(err)
			}
			res, err := b.Execute(context.Background(), tx)
			if err != nil {
				t.Fatal(err)
			}
			after, _ := b.Item(sc.Table, map[string]string{"PK": "UNIQ#EMAIL#ada@x", "SK": "LOCK"})
			if c.want == "" {
				if res.Outcome != model.Committed || !maps.EqualFunc(after, p.Actions[1].Item, func(a, b model.Value) bool { return a.DynamoJSON() == b.DynamoJSON() }) {
					t.Fatalf("%s %+v; lock %v: want committed, the lock ACCT#a's without a TTL", res.Outcome, res.Reasons, after)
				}
				return
			}
			if res.Outcome != model.Cancelled || len(res.Reasons) != 1 || res.Reasons[0].Message != c.want {
				t.Fatalf("%s %+v; want cancelled: %s", res.Outcome, res.Reasons, c.want)
			}
		})
	}
}
