package model

// What the views and the report say of the locks with a time to live
// (PATTERN.md, "Locks with a time to live"), beside the check's rules.

// LockTTL is the TTL of lock item it of constraint ci in epoch seconds, 0
// for none: absent, or one DynamoDB ignores (the check warns of those).
func (s *Schema) LockTTL(ci int, it Item) int64 { return ttlOf(it, s.LockTTLAttr(ci)) }

// AccountTTL is account item it's TTL in epoch seconds, 0 for none.
func (s *Schema) AccountTTL(it Item) int64 { return ttlOf(it, s.TTLAttr) }

// ttlOf is ReadTTL as the views keep it: the epoch seconds, 0 for none.
// A TTL of 0 or below, long past, is kept as 1: expired as the check
// judges it, not mistaken for none.
func ttlOf(it Item, attr string) int64 {
	if at, state, _ := ReadTTL(it, attr); state == TTLAt {
		return max(at, 1)
	}
	return 0
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
