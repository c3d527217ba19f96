package model

import (
	"strconv"
	"testing"
)

// TestJudgeTTLsAsTheCensus: an account's lock row is judged by the
// census's TTL rules at the now it is given, and says what the census
// reports of the value: expired whoever owns it, expiring when the account
// outlives the reserved lock (not foreign then), reserved when it expires
// no later, a TTL DynamoDB ignores judged as none.
func TestJudgeTTLsAsTheCensus(t *testing.T) {
	s := withTTL(DefaultSchema(LayoutSingle))
	at := func(d int64) Value { return N(strconv.FormatInt(testNow+d, 10)) }
	none := Value{Kind: KindNULL} // no TTL attribute
	ttlLock := func(owner string, ttl Value) row {
		r := lock("UNIQ#EMAIL#v@x")
		if owner != "" {
			r.item["owner"] = S(owner)
		}
		if ttl.Kind != KindNULL {
			r.item["ttl"] = ttl
		}
		return r
	}
	account := func(ttl Value) row {
		r := acct("ACCT#a", "email", "v@x")
		if ttl.Kind != KindNULL {
			r.item["ttl"] = ttl
		}
		return r
	}
	for _, tt := range []struct {
		name string
		rows []row
		want LockStatus
		kind ProblemKind // what the census reports of v@x ("" nothing)
	}{
		{"no TTL", []row{account(none), ttlLock("ACCT#a", none)}, LockOK, ""},
		{"expired, its own", []row{account(none), ttlLock("ACCT#a", at(-3*3600))}, LockExpired, ExpiredLock},
		{"expired at now", []row{account(none), ttlLock("ACCT#a", at(0))}, LockExpired, ExpiredLock},
		{"expired, another's", []row{account(none), ttlLock("ACCT#z", at(-60))}, LockExpired, ExpiredLock},
		{"reserved, the account never expires", []row{account(none), ttlLock("ACCT#a", at(3600))}, LockExpiring, ExpiringLock},
		{"reserved, the account expires later", []row{account(at(7200)), ttlLock("ACCT#a", at(3600))}, LockExpiring, ExpiringLock},
		{"reserved, the account expires with it", []row{account(at(3600)), ttlLock("ACCT#a", at(3600))}, LockReserved, ""},
		{"reserved, the account expires before", []row{account(at(600)), ttlLock("", at(3600))}, LockReserved, ""},
		{"reserved, another's, outlived", []row{account(none), ttlLock("ACCT#z", at(3600))}, LockExpiring, ExpiringLock},
		{"reserved, another's, not outlived", []row{account(at(60)), ttlLock("ACCT#z", at(3600))}, LockForeign, ForeignLock},
		{"a TTL in milliseconds", []row{account(none), ttlLock("ACCT#a", N("1764600000000"))}, LockOK, ""},
		{"a TTL of 0: long past", []row{account(none), ttlLock("ACCT#a", N("0"))}, LockExpired, ExpiredLock},
		{"a TTL below 0", []row{account(none), ttlLock("ACCT#a", N("-5"))}, LockExpired, ExpiredLock},
		{"a TTL that is a string", []row{account(none), ttlLock("ACCT#a", S("soon"))}, LockOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			items := map[string]Item{}
			for _, r := range tt.rows {
				items[r.item["PK"].S] = r.item
			}
			lockAt := func(r KeyRef) (Item, bool) { it, ok := items[r.Key["PK"]]; return it, ok }
			holds := func(owner string, ci int, v string) bool {
				h, hv := s.Held(ci, items[owner])
				return h == HoldsValue && hv == v
			}
			a := Classifier{&s}.Judge(items["ACCT#a"], lockAt, holds, testNow)
			l := a.Locks[0]
			if l.Status != tt.want || a.Now != testNow {
				t.Errorf("status %s (judged at %d), want %s at %d", l.Status, a.Now, tt.want, int64(testNow))
			}
			if lease := ReadLease(items["UNIQ#EMAIL#v@x"], "ttl"); lease.Timed && max(lease.At, 1) != l.ExpiresAt || !lease.Timed && l.ExpiresAt != 0 {
				t.Errorf("expires at %d, want %d", l.ExpiresAt, lease.At)
			}
			var kinds []ProblemKind
			for _, p := range censusOf(&s, tt.rows).Problems() {
				if p.Value == "v@x" {
					kinds = append(kinds, p.Kind)
				}
			}
			if (tt.kind == "" && len(kinds) != 0) || (tt.kind != "" && (len(kinds) != 1 || kinds[0] != tt.kind)) {
				t.Errorf("the census reports %v of v@x, the row %s: want %q", kinds, l.Status, tt.kind)
			}
		})
	}
}

// TestTTLNote: an expired or expiring problem says when, and what it
// means, as the report and the problems view say it; other kinds nothing.
func TestTTLNote(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	expired := Classifier{&s}.HolderProblem(ExpiredLock, 0, "ada@x", "ACCT#a", []string{"ACCT#a"})
	expired.ExpiresAt = testNow - 3*3600
	expiring := Classifier{&s}.HolderProblem(ExpiringLock, 0, "bob x", "ACCT#b", []string{"ACCT#b"})
	expiring.ExpiresAt = testNow + 12*60 + 30
	for _, tt := range []struct {
		p    Problem
		want string
	}{
		{expired, "expired 3 h ago; DynamoDB deletes it eventually, until then it blocks email ada@x"},
		{expiring, `reserved 12 min more; when it goes, email "bob x" is unprotected`},
		{Classifier{&s}.HolderProblem(MissingLock, 0, "c@x", "", []string{"ACCT#c"}), ""},
	} {
		if got := tt.p.TTLNote(testNow); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.p.Kind, got, tt.want)
		}
	}
}
