package model

// LockStatus is what a lock row says about one constraint of one account,
// in the words of PATTERN.md's problem kinds.
type LockStatus string

// The statuses a lock row can show.
const (
	LockOK        LockStatus = "ok"
	LockMissing   LockStatus = "missing"   // missing_lock: the account holds v, no lock exists
	LockForeign   LockStatus = "foreign"   // foreign_lock: the lock names an owner who does not hold v
	LockDuplicate LockStatus = "duplicate" // duplicate_value: v has other holders
	LockInvalid   LockStatus = "invalid"   // invalid_value
	LockOrphan    LockStatus = "orphan"    // orphan_lock: nobody holds v
	LockNone      LockStatus = "none"      // the account holds no value: no lock expected
	LockExpired   LockStatus = "expired"   // expired_lock: its TTL has passed, it still blocks the value
	LockExpiring  LockStatus = "expiring"  // expiring_lock: reserved, and a holder outlives it
	// LockReserved is a sound lock whose TTL is ahead: a reservation (a
	// signup in progress), or a lock whose holders expire with it. Not a
	// problem.
	LockReserved LockStatus = "reserved"
	// LockUnread is a lock expected for a value the account holds that is
	// not read yet (the first rows are drawn before their locks): no
	// verdict, not a problem, not sound either.
	LockUnread LockStatus = "reading"
)

// Problematic reports whether the status is one of the problem kinds.
func (s LockStatus) Problematic() bool {
	return s != LockOK && s != LockNone && s != LockReserved && s != LockUnread
}

// Sound reports whether the status says the lock is as it should be, for
// now: ok, or reserved (ok until its TTL).
func (s LockStatus) Sound() bool { return s == LockOK || s == LockReserved }

// LockView is one constraint of an account: the lock it should have and
// what was found there.
type LockView struct {
	Constraint int
	Value      string // the normalized value held; "" for none or invalid
	Item       Item   // the lock as read; nil when missing
	Owner      string
	Status     LockStatus
	// ExpiresAt is the lock's TTL in epoch seconds, 0 for none (or one
	// DynamoDB ignores): expired at or before the account view's Now.
	ExpiresAt int64
	// Alt says the lock was found in its constraint's other spelling
	// (Constraint.AltPrefix).
	Alt bool
}

// Lock is one lock item as the locks view lists it.
type Lock struct {
	Constraint int
	Value      string // the key minus the prefix, as stored
	Table      string
	Key        map[string]string
	Item       Item
	Owner      string // "" when the lock names none (or a non-string one)
	ExpiresAt  int64  // the lock's TTL in epoch seconds (Schema.LockTTL), 0 for none
}

// AccountView is an account with its locks, as the browser shows it.
type AccountView struct {
	ID    string
	Item  Item
	Locks []LockView // one per constraint, in constraint order
	// Now is the time, in epoch seconds, the locks' TTLs were judged at
	// (Judge's now): when the account was read.
	Now int64
}

// Problematic reports whether any of the account's locks shows a problem.
func (a AccountView) Problematic() bool {
	for _, l := range a.Locks {
		if l.Status.Problematic() {
			return true
		}
	}
	return false
}

// Duplicate reports whether the account shares a value with another.
func (a AccountView) Duplicate() bool {
	for _, l := range a.Locks {
		if l.Status == LockDuplicate {
			return true
		}
	}
	return false
}

// ExpectedLocks returns the keys of the locks account it should have, in
// each spelling they may have.
func (s Classifier) ExpectedLocks(it Item) []KeyRef {
	var refs []KeyRef
	for ci := range s.Schema.Constraints {
		if h, v := s.Schema.Held(ci, it); h == HoldsValue {
			refs = append(refs, s.Schema.LockKeys(ci, v)...)
		}
	}
	return refs
}

// Unread builds the view of account it before its locks are read, at now
// (epoch seconds): what it holds, each lock of a value held LockUnread,
// an invalid value LockInvalid (the account alone says so), no value
// LockNone. Judge builds it once the locks are read.
func (s Classifier) Unread(it Item, now int64) AccountView {
	id := ""
	if _, ok := it[s.Schema.PK]; ok {
		id = s.Schema.AccountID(it)
	}
	a := AccountView{ID: id, Item: it, Locks: make([]LockView, len(s.Schema.Constraints)), Now: now}
	for ci := range s.Schema.Constraints {
		l := LockView{Constraint: ci, Status: LockNone}
		switch h, v := s.Schema.Held(ci, it); h {
		case HoldsInvalid:
			l.Status = LockInvalid
		case HoldsValue:
			l.Value, l.Status = v, LockUnread
		}
		a.Locks[ci] = l
	}
	return a
}

// Judge builds the view of account it from consistent reads (Unread, its
// locks then found), their TTLs judged at now (epoch seconds) by the
// check's rules (PATTERN.md,
// "Locks with a time to live"): lockAt finds a lock read by its key;
// holds says whether an account (a lock's owner other than this one)
// holds value v of constraint ci.
func (s Classifier) Judge(it Item, lockAt func(KeyRef) (Item, bool), holds func(owner string, ci int, v string) bool, now int64) AccountView {
	a := s.Unread(it, now)
	for ci, l := range a.Locks {
		if l.Status != LockUnread {
			continue // no value, or one no lock can have
		}
		lock, alt, found := s.FindLock(ci, l.Value, lockAt)
		if !found {
			a.Locks[ci].Status = LockMissing
			continue
		}
		e := s.lockEntry(ci, l.Value, lock)
		lease := ReadLease(lock, s.Schema.LockTTLAttr(ci))
		l.Item, l.Alt, l.Owner, l.ExpiresAt = lock, alt, e.Owner, lease.ExpiresAt()
		l.Status = s.lockStatus(e, a.ID, lease, ReadLease(it, s.Schema.TTLAttr), now, holds)
		a.Locks[ci] = l
	}
	return a
}

// lockStatus judges the lock e of a value account id holds: expired
// whoever owns it; expiring when the account outlives the reserved lock
// (it never expires, or expires later), since then the value goes
// unprotected; otherwise by its owner, reserved while its TTL is ahead.
// lock and account are the leases of the lock and the account.
func (s Classifier) lockStatus(e Entry, id string, lock, account Lease, now int64, holds func(owner string, ci int, v string) bool) LockStatus {
	ttl := lock.Verdict(now)
	switch {
	case e.OwnerInvalid != nil:
		return LockInvalid
	case ttl == TTLExpired:
		return LockExpired
	case ttl == TTLAhead && account.Outlives(lock):
		return LockExpiring
	case e.Owner == "" || e.Owner == id:
		if ttl == TTLAhead {
			return LockReserved
		}
		return LockOK
	case holds(e.Owner, e.Constraint, e.Value):
		return LockDuplicate
	}
	return LockForeign
}

// MarkDuplicates turns ok (or reserved) locks of values that have other holders into
// duplicates. dup says whether value v of constraint ci is a
// duplicate_value, as a check found.
func (a *AccountView) MarkDuplicates(dup func(ci int, v string) bool) {
	for i, l := range a.Locks {
		if l.Status.Sound() && dup(l.Constraint, l.Value) {
			a.Locks[i].Status = LockDuplicate
		}
	}
}
