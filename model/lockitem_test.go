package model

import "testing"

// TestClassifierLock: a lock item reads as the locks view lists it, with
// its owner and TTL; an account is no lock.
func TestClassifierLock(t *testing.T) {
	sc := DefaultSchema(LayoutSingle)
	sc.TTLAttr, sc.TTLGiven = "ttl", true
	c := Classifier{&sc}
	l, ok := c.Lock(sc.Table, Item{"PK": S("UNIQ#EMAIL#ada@x.io"), "SK": S("LOCK"), "owner": S("ACCT#a1"), "ttl": N("1700000000")})
	if !ok || l.Constraint != 0 || l.Value != "ada@x.io" || l.Owner != "ACCT#a1" || l.ExpiresAt != 1700000000 ||
		l.Key["PK"] != "UNIQ#EMAIL#ada@x.io" || l.Item["owner"].S != "ACCT#a1" {
		t.Errorf("the lock reads %+v, %v", l, ok)
	}
	if _, ok := c.Lock(sc.Table, Item{"PK": S("ACCT#a1"), "SK": S("PROFILE"), "email": S("ada@x.io")}); ok {
		t.Error("an account reads as a lock")
	}
}
