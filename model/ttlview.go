package model

// What the views and the report say of the locks with a time to live
// (PATTERN.md, "Locks with a time to live"), beside the check's rules.

// LockTTL is the TTL of lock item it of constraint ci as a view keeps it
// (Lease.ExpiresAt): epoch seconds, 0 for none, absent or one DynamoDB
// ignores (the check warns of those).
func (s *Schema) LockTTL(ci int, it Item) int64 { return ReadLease(it, s.LockTTLAttr(ci)).ExpiresAt() }

// ExpiresAt is lease l as the views keep it (LockView.ExpiresAt): the
// epoch seconds, 0 for none. A TTL of 0 or below, long past, is kept as
// 1: expired as the check judges it, not mistaken for none.
func (l Lease) ExpiresAt() int64 {
	if l.Timed {
		return max(l.At, 1)
	}
	return 0
}

// KeptLease is the lease a view keeps as expiresAt (Lease.ExpiresAt): 0
// is none.
func KeptLease(expiresAt int64) Lease {
	if expiresAt == 0 {
		return Lease{}
	}
	return LeaseUntil(expiresAt)
}

// Lapsed reports whether a kept TTL (expiresAt, 0: none) has passed at
// now (epoch seconds; 0: no time to judge at).
func Lapsed(expiresAt, now int64) bool {
	return expiresAt != 0 && now != 0 && KeptLease(expiresAt).Verdict(now) == TTLExpired
}

// TTLConsequence says what an expired or expiring lock means: what an
// expired one blocks until DynamoDB deletes it, or what an expiring one
// leaves unprotected when it goes; "" for the other kinds.
func (p Problem) TTLConsequence() string {
	value := p.Constraint + " " + QuoteWord(p.Value)
	switch p.Kind {
	case ExpiredLock:
		return "DynamoDB deletes it eventually, until then it blocks " + value
	case ExpiringLock:
		return "when it goes, " + value + " is unprotected"
	}
	return ""
}

// TTLNote is what the report says of an expired or expiring lock at now,
// its time and what it means: "expired 3 h ago; DynamoDB deletes it
// eventually, until then it blocks email ada@x"; "" for the other kinds.
func (p Problem) TTLNote(now int64) string {
	if c := p.TTLConsequence(); c != "" {
		return TTLSaid(p.ExpiresAt, now) + "; " + c
	}
	return ""
}
