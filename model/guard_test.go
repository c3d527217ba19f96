package model

import (
	"reflect"
	"slices"
	"testing"
)

// TestGuardsTakeExpiredLocksOver: where a lock table has a TTL attribute,
// each put of a lock (signup, rename's new value, undo's lock put back)
// is guarded by "no lock, or an expired one" on that table's own
// attribute; an account's put, and a lock table without TTL, keep
// attribute_not_exists. GuardAt sets the second it judges at on a copy.
func TestGuardsTakeExpiredLocksOver(t *testing.T) {
	two := planSchema(LayoutTables, func(s *Schema) {
		s.TTLAttr = "ttl"
		s.Constraints = slices.Clone(s.Constraints)
		s.Constraints[1].TTLAttr = "expires"
	})
	one := planSchema(LayoutSingle, func(s *Schema) { s.TTLAttr = "ttl" })
	for _, c := range []struct {
		s    *Schema
		id   string
		want []Cond
	}{
		{one, "ACCT#a", []Cond{{Kind: CondNotExists, Attr: "PK"}, {Kind: CondFreeOrExpired, Attr: "PK", TTL: "ttl"}, {Kind: CondFreeOrExpired, Attr: "PK", TTL: "ttl"}}},
		// Layout 2: the account table's TTL is not the lock tables'.
		{two, "dev-a", []Cond{{Kind: CondNotExists, Attr: "id"}, {Kind: CondNotExists, Attr: "MacAddress"}, {Kind: CondFreeOrExpired, Attr: "RegistrationCode", TTL: "expires"}}},
	} {
		attrs := map[string]string{c.s.Constraints[0].Attr: "v0", c.s.Constraints[1].Attr: "v1"}
		p, err := Planner{c.s}.Signup(c.id, attrs)
		if err != nil {
			t.Fatal(err)
		}
		var got []Cond
		for _, a := range p.Actions {
			got = append(got, a.Conds...)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s signup: %+v, want %+v", c.s.Layout, got, c.want)
		}
		// Undo of that signup's delete: the same guards on the puts back.
		var items []UndoItem
		for _, a := range p.Actions {
			items = append(items, UndoItem{Table: a.Table, Key: a.Key, Before: a.Item})
		}
		u, err := Planner{c.s}.Undo(UndoRecord{Token: "t", Operation: "delete", Items: items}, func(string, map[string]string) Item { return nil })
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		for _, a := range u.Actions {
			got = append(got, a.Conds...)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s undo of a delete: %+v, want %+v", c.s.Layout, got, c.want)
		}
		at := GuardAt(p.Actions[2].Conds, 1796167200)
		if c.want[2].Kind == CondFreeOrExpired && (at[0].Now != 1796167200 || p.Actions[2].Conds[0].Now != 0) {
			t.Errorf("GuardAt: %+v, the plan's %+v", at, p.Actions[2].Conds)
		}
	}
	free := Cond{Kind: CondFreeOrExpired, Attr: "PK", TTL: "ttl", Now: 1796167200}
	if got, want := free.Sentence(func(a string) bool { return a == "PK" }), "only if no item with this key exists, or its ttl is not after 1796167200 "+
		"(2026-12-01 23:20:00 UTC): an expired lock still blocks the value until DynamoDB deletes it, so it is taken over"; got != want {
		t.Errorf("Sentence = %q, want %q", got, want)
	}
}

// TestExplainAReservation: a lock put cancelled by a lock whose TTL is
// after the second the guard judged at names the reservation, until when
// and by which lock (and its owner, where it names one); any other lock
// there is explained as before.
func TestExplainAReservation(t *testing.T) {
	s := planSchema(LayoutSingle, func(s *Schema) { s.TTLAttr = "ttl" })
	p, err := Planner{s}.Signup("ACCT#a", map[string]string{"email": "ada@x.io"})
	if err != nil {
		t.Fatal(err)
	}
	put := p.Actions[1]
	put.Conds = GuardAt(put.Conds, 1796167200) // 2026-12-01 23:20 UTC
	lock := func(owner string, ttl Value) Item {
		it := Item{"PK": S("UNIQ#EMAIL#ada@x.io"), "SK": S("LOCK"), "ttl": ttl}
		if owner != "" {
			it["owner"] = S(owner)
		}
		return it
	}
	noTTL := planSchema(LayoutSingle)
	plain, err := Planner{noTTL}.Signup("ACCT#a", map[string]string{"email": "ada@x.io"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    *Schema
		a    Action
		now  Item
		want string
	}{
		{s, put, lock("", N("1796167920")), "email ada@x.io is reserved until 2026-12-01 23:32:00 UTC (12 min more) by lock UNIQ#EMAIL#ada@x.io"},
		{s, put, lock("ACCT#b", N("1796174400")), "email ada@x.io is reserved until 2026-12-02 01:20:00 UTC (2 h more) by lock UNIQ#EMAIL#ada@x.io (owner ACCT#b)"},
		{s, put, lock("ACCT#b", S("1796174400")), "email ada@x.io is taken by ACCT#b"},
		{s, put, Item{"PK": S("UNIQ#EMAIL#ada@x.io"), "SK": S("LOCK"), "owner": S("ACCT#b")}, "email ada@x.io is taken by ACCT#b"},
		{noTTL, plain.Actions[1], lock("ACCT#b", N("1796174400")), "email ada@x.io is taken by ACCT#b"},
	} {
		if got := (Classifier{c.s}).Explain(c.a, c.now); got != c.want {
			t.Errorf("Explain(%v) = %q, want %q", c.now, got, c.want)
		}
	}
}
