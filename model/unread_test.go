package model

import "testing"

// TestUnreadClaimsNoVerdict: an account drawn before its locks are read
// says what it holds and no more: a lock of a value held is LockUnread
// (neither a problem nor sound), a value that cannot be locked is invalid
// (the account alone shows it: the one verdict it has), no value expects
// no lock.
func TestUnreadClaimsNoVerdict(t *testing.T) {
	t.Parallel()
	sc := DefaultSchema(LayoutSingle)
	for _, c := range []struct {
		name  string
		item  Item
		email LockStatus
		value string
	}{
		{"a value held", Item{"PK": S("ACCT#a"), "SK": S("PROFILE"), "email": S("Ada@X.io")}, LockUnread, "Ada@X.io"},
		{"no value", Item{"PK": S("ACCT#a"), "SK": S("PROFILE")}, LockNone, ""},
		{"a number", Item{"PK": S("ACCT#a"), "SK": S("PROFILE"), "email": N("5")}, LockInvalid, ""},
	} {
		a := Classifier{Schema: &sc}.Unread(c.item, 100)
		l := a.Locks[0]
		if a.ID != "ACCT#a" || a.Now != 100 || l.Status != c.email || l.Value != c.value || l.Item != nil || l.Owner != "" {
			t.Errorf("%s: %+v, want the email lock %s of %q, nothing read", c.name, a, c.email, c.value)
		}
		if l.Status != LockInvalid && l.Status.Problematic() || l.Status == LockUnread && l.Status.Sound() {
			t.Errorf("%s: %s claims a verdict", c.name, l.Status)
		}
	}
}
