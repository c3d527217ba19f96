package model

import "testing"

// TestCondHolds: each kind of condition holds, or not, of the item at its
// action's key as DynamoDB evaluates the expression built from it.
func TestCondHolds(t *testing.T) {
	lock := Item{"PK": S("UNIQ#EMAIL#ada@x.io"), "owner": S("ACCT#a1"), "expires": N("1000")}
	cases := []struct {
		name string
		c    Cond
		now  Item
		want bool
	}{
		{"not exists: no item", Cond{Kind: CondNotExists, Attr: "PK"}, nil, true},
		{"not exists: an item", Cond{Kind: CondNotExists, Attr: "PK"}, lock, false},
		{"exists: an item", Cond{Kind: CondExists, Attr: "PK"}, lock, true},
		{"exists: no item", Cond{Kind: CondExists, Attr: "PK"}, nil, false},
		{"equals: the value", Cond{Kind: CondEquals, Attr: "owner", Value: S("ACCT#a1")}, lock, true},
		{"equals: another value", Cond{Kind: CondEquals, Attr: "owner", Value: S("ACCT#b2")}, lock, false},
		{"equals: a number is not its string", Cond{Kind: CondEquals, Attr: "expires", Value: S("1000")}, lock, false},
		{"equals: absent, and it is", Cond{Kind: CondEquals, Attr: "note", Absent: true}, lock, true},
		{"equals: absent, but it is there", Cond{Kind: CondEquals, Attr: "owner", Absent: true}, lock, false},
		{"absent or differs: no item", Cond{Kind: CondAbsentOrDiffers, Attr: "email", Value: S("a"), Key: "PK"}, nil, true},
		{"absent or differs: no attribute", Cond{Kind: CondAbsentOrDiffers, Attr: "email", Value: S("a"), Key: "PK"}, lock, true},
		{"absent or differs: another value", Cond{Kind: CondAbsentOrDiffers, Attr: "owner", Value: S("ACCT#b2"), Key: "PK"}, lock, true},
		{"absent or differs: the value", Cond{Kind: CondAbsentOrDiffers, Attr: "owner", Value: S("ACCT#a1"), Key: "PK"}, lock, false},
		{"not after: before", Cond{Kind: CondNotAfter, Attr: "expires", Value: N("1001")}, lock, true},
		{"not after: the second itself", Cond{Kind: CondNotAfter, Attr: "expires", Value: N("1000")}, lock, true},
		{"not after: after", Cond{Kind: CondNotAfter, Attr: "expires", Value: N("999")}, lock, false},
		{"not after: no attribute", Cond{Kind: CondNotAfter, Attr: "ttl", Value: N("999")}, lock, false},
		{"not after: a string", Cond{Kind: CondNotAfter, Attr: "owner", Value: N("999")}, lock, false},
		{"free or expired: no lock", Cond{Kind: CondFreeOrExpired, Attr: "PK", TTL: "expires", Now: 5}, nil, true},
		{"free or expired: expired", Cond{Kind: CondFreeOrExpired, Attr: "PK", TTL: "expires", Now: 1000}, lock, true},
		{"free or expired: live", Cond{Kind: CondFreeOrExpired, Attr: "PK", TTL: "expires", Now: 999}, lock, false},
		{"free or expired: no TTL", Cond{Kind: CondFreeOrExpired, Attr: "PK", TTL: "ttl", Now: 5000}, lock, false},
		{"free or expired: a TTL that is no number", Cond{Kind: CondFreeOrExpired, Attr: "PK", TTL: "owner", Now: 5000}, lock, false},
	}
	for _, tc := range cases {
		if got := tc.c.Holds(tc.now); got != tc.want {
			t.Errorf("%s: Holds = %v, want %v", tc.name, got, tc.want)
		}
	}
	both := []Cond{{Kind: CondExists, Attr: "PK"}, {Kind: CondEquals, Attr: "owner", Value: S("ACCT#a1")}}
	if !AllHold(both, lock) || AllHold(both, nil) || !AllHold(nil, nil) {
		t.Error("AllHold does not AND the conditions")
	}
}
