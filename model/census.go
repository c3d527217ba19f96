package model

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// Census accumulates what a scan saw, item by item, and reconciles it into
// problems. It keeps, per constraint and value, one small entry (the first
// holder, the lock's owner) beside the value in a strtab, and account ids
// interned in another, so its memory grows with the distinct values seen,
// not the items read, no item is kept, and the garbage collector has
// nothing in it to walk. A Census is not safe for concurrent use.
type Census struct {
	schema   *Schema
	Scanned  int // every item added
	Accounts int
	Locks    int
	// Others counts the items of the account table that are neither
	// accounts nor locks, by the prefix of their key (see keyShape), so
	// that a schema that matches nothing can say what the table holds.
	Others map[string]int
	// ConsumedRCU is the read capacity the scans that filled it consumed.
	ConsumedRCU float64
	ids         strtab                // account ids (holders and owners), by position: see account
	values      []strtab              // per constraint: each value, with its entry as tail
	more        map[valueRef][]uint32 // holders past the first (duplicates)
	others      map[valueRef]uint32   // owners of locks that name another account than the first holder
	ttls        map[valueRef]ttlPair  // the TTLs of values whose lock or holders expire (ttlFlag)
	moreBytes   int64                 // what more and others hold, estimated
	invalid     []Problem
	warnings    []string // items whose TTL attribute is ignored, the first maxWarnings of them
	unwarned    int      // such items past maxWarnings
	// reservations counts, as the last Problems or Reconcile found,
	// the locks reserved (TTL ahead) whose value has no holder; reserved
	// are the first maxReserved of them, each as the expired_lock it
	// becomes once its TTL passes (Report.Reserved).
	reservations int
	reserved     []Problem
	now          int64        // the check's start in epoch seconds: a TTL not after it has passed
	spill        *spillBudget // nil: no budget, everything stays in memory
	err          error        // the first failure (a spill, a full arena); the census records nothing after it
}

// entry is what the census knows of one value of one constraint: the value
// is the normalized value for holders and the raw value (the key minus the
// prefix) for a lock, which are the same string for a healthy value.
type entry struct {
	holder uint32 // the first holder's position in ids, or noPos
	owner  uint32 // the lock's owner's position in ids, or ownerNobody, or noPos: no lock seen
	ttlPair
	alt bool // the lock is in its constraint's other spelling (Constraint.AltPrefix)
}

// ttlPair is what expires of a value: its lock, and the latest of its
// holders (never, when one never expires or none is seen). Most tables
// have neither, so a census keeps them beside the entries (Census.ttls),
// for the values that have one.
type ttlPair struct{ lock, holders expiry }

// expiry is when an item expires, in epoch seconds; the zero expiry is
// never.
type expiry struct {
	at  int64
	set bool
}

// later is the latest of expiries a and b: never, when either is.
func later(a, b expiry) expiry {
	if !a.set || !b.set {
		return expiry{}
	}
	return expiry{max(a.at, b.at), true}
}

// lease is e as a Lease, which judges it.
func (e expiry) lease() Lease {
	if !e.set {
		return Lease{}
	}
	return LeaseUntil(e.at)
}

// expired reports whether the value's lock has a TTL that has passed.
func (t ttlPair) expired(now int64) bool { return t.lock.lease().Verdict(now) == TTLExpired }

// reserved reports whether the value's lock has a TTL still ahead.
func (t ttlPair) reserved(now int64) bool { return t.lock.lease().Verdict(now) == TTLAhead }

// outlived reports whether a holder outlives the reserved lock: one never
// expires, or one expires after the lock does; then, when the lock goes,
// the value is unprotected (expiring_lock).
func (t ttlPair) outlived() bool { return t.holders.lease().Outlives(t.lock.lease()) }

// ownerNobody is entry.owner for a lock that names no owner.
const ownerNobody = noPos - 1

func (e entry) held() bool   { return e.holder != noPos }
func (e entry) locked() bool { return e.owner != noPos }
func (e entry) owned() bool  { return e.owner < ownerNobody }

// An entry is kept as 5 bytes of tail after its value: one position and
// what the lock says. A healthy value's lock names its holder, so one
// position says both (before any holder is seen, the position is the
// owner's); the owner of a lock naming another account than the first
// holder is kept in Census.others, which only foreign locks need.
const entryBytes = 5

// lock states, the fifth byte of an entry.
const (
	lockNone     = iota   // no lock seen; the position is the holder's, if held
	lockNobody            // a lock that names no owner; the position is the holder's, if held
	lockByHolder          // a lock naming the holder, or the position when no holder is seen yet
	lockByOther           // a lock naming another account than the holder (Census.others)
	ttlFlag      = 1 << 6 // the value's lock or holders expire (Census.ttls)
	heldFlag     = 1 << 7
	stateFlags   = ttlFlag | heldFlag | altFlag
)

// altFlag, in the fifth byte, marks a lock in its constraint's other
// spelling (Constraint.AltPrefix).
const altFlag = 1 << 5

// entry reads the entry of value vi of constraint ci from its tail.
func (c *Census) entry(ci int, vi uint32, tail []byte) entry {
	pos, state := binary.LittleEndian.Uint32(tail), tail[4]
	e := entry{holder: noPos, owner: noPos}
	if state&heldFlag != 0 {
		e.holder = pos
	}
	e.alt = state&altFlag != 0
	switch state &^ stateFlags {
	case lockNobody:
		e.owner = ownerNobody
	case lockByHolder:
		e.owner = pos
	case lockByOther:
		e.owner = c.others[valueRef{uint32(ci), vi}]
	}
	if state&ttlFlag != 0 {
		e.ttlPair = c.ttls[valueRef{uint32(ci), vi}]
	}
	return e
}

// setEntry writes e as the entry of value vi of constraint ci, in tail.
func (c *Census) setEntry(ci int, vi uint32, tail []byte, e entry) {
	pos, state, ref := e.holder, byte(lockNone), valueRef{uint32(ci), vi}
	wasOther := tail[4]&^stateFlags == lockByOther // a new value's tail is zero: lockNone
	if e.held() {
		state = heldFlag
	}
	if e.alt && e.locked() {
		state |= altFlag
	}
	switch {
	case !e.locked():
	case !e.owned():
		state |= lockNobody
	case !e.held() || e.owner == e.holder:
		pos, state = e.owner, state|lockByHolder
	default:
		state |= lockByOther
		if c.others == nil {
			c.others = map[valueRef]uint32{}
		}
		if !wasOther {
			c.moreBytes += moreRefBytes
		}
		c.others[ref] = e.owner
	}
	if wasOther && state&^stateFlags != lockByOther {
		delete(c.others, ref)
		c.moreBytes -= moreRefBytes
	}
	state |= c.setTTLs(ref, tail[4]&ttlFlag != 0, e.ttlPair)
	binary.LittleEndian.PutUint32(tail, pos)
	tail[4] = state
}

// setTTLs keeps t as the TTLs of value ref (which had some when had) and
// returns the state flag that says so.
func (c *Census) setTTLs(ref valueRef, had bool, t ttlPair) byte {
	if t == (ttlPair{}) {
		if had {
			delete(c.ttls, ref)
			c.moreBytes -= moreRefBytes
		}
		return 0
	}
	if c.ttls == nil {
		c.ttls = map[valueRef]ttlPair{}
	}
	if !had {
		c.moreBytes += moreRefBytes
	}
	c.ttls[ref] = t
	return ttlFlag
}

// valueRef names a value of a constraint: its index and its position.
type valueRef struct{ ci, v uint32 }

// moreRefBytes is the estimated cost of one value with more than one
// holder, beyond 4 bytes per holder: the map slot, its spare capacity, the
// slice header and its allocation. Rare: only duplicates have one.
const moreRefBytes = 96

// NewCensus returns an empty census for s, judging TTLs at now (epoch
// seconds: the check's start, the same for every census of one check).
func NewCensus(s *Schema, now int64) *Census {
	c := &Census{schema: s, now: now}
	c.forget()
	return c
}

// Now is the time, in epoch seconds, the census judges TTLs at.
func (c *Census) Now() int64 { return c.now }

// full reports that one of the census's tables may not take another item.
func (c *Census) full() bool {
	for i := range c.values {
		if c.values[i].full() {
			return true
		}
	}
	return c.ids.full()
}

// size is the bytes the census holds in memory, which decides when a
// census with a budget spills.
func (c *Census) size() int64 {
	n := c.ids.size() + c.moreBytes
	for i := range c.values {
		n += c.values[i].size()
	}
	return n
}

// value returns the position of value v of constraint ci and its entry's
// bytes, adding it (with no holder and no lock) when unseen; ok is false
// when the census can hold no more.
func (c *Census) value(ci int, v string) (pos uint32, e []byte, ok bool) {
	t := &c.values[ci]
	pos, added, err := t.intern(v)
	if err != nil {
		c.fail(err)
		return noPos, nil, false
	}
	_, e = t.record(pos)
	if added {
		c.setEntry(ci, pos, e, entry{holder: noPos, owner: noPos})
	}
	return pos, e, true
}

// account returns the position of account id; ok is false when the census
// can hold no more.
//
// Account ids all begin with the schema's account prefix, which is not
// kept. An id that does not (a lock's owner may name anything) is kept
// whole after a 0xff byte, which no UTF-8 text begins with, and so is one
// whose rest would begin with it: each id has one form, read back by idAt.
func (c *Census) account(id string) (uint32, bool) {
	kept, ok := strings.CutPrefix(id, c.schema.AccountPrefix)
	if !ok || strings.HasPrefix(kept, wholeID) {
		kept = wholeID + id
	}
	pos, _, err := c.ids.intern(kept)
	if err != nil {
		c.fail(err)
		return noPos, false
	}
	return pos, true
}

// wholeID marks an account id kept whole, prefix included (see account).
const wholeID = "\xff"

// idAt returns the account id at pos in ids.
func (c *Census) idAt(pos uint32) string {
	return string(c.appendID(nil, pos))
}

// idLen is the length of the account id at pos in ids.
func (c *Census) idLen(pos uint32) int {
	kept := c.ids.bytes(pos)
	if len(kept) > 0 && kept[0] == wholeID[0] {
		return len(kept) - 1
	}
	return len(c.schema.AccountPrefix) + len(kept)
}

// appendID appends the account id at pos in ids to buf.
func (c *Census) appendID(buf []byte, pos uint32) []byte {
	kept := c.ids.bytes(pos)
	if len(kept) > 0 && kept[0] == wholeID[0] {
		return append(buf, kept[1:]...)
	}
	return append(append(buf, c.schema.AccountPrefix...), kept...)
}

// addHolder records that account id, which expires at ttl, holds value v
// of constraint ci.
func (c *Census) addHolder(ci int, v, id string, ttl expiry) {
	n, ok := c.account(id)
	if !ok {
		return
	}
	vi, b, ok := c.value(ci, v)
	if !ok {
		return
	}
	switch e := c.entry(ci, vi, b); {
	case e.holder == n:
		return // the same account again: nothing new to record
	case !e.held():
		e.holder, e.holders = n, ttl
		c.setEntry(ci, vi, b, e)
	default:
		if t := later(e.holders, ttl); t != e.holders {
			e.holders = t
			c.setEntry(ci, vi, b, e)
		}
		ref := valueRef{uint32(ci), vi}
		if c.more == nil {
			c.more = map[valueRef][]uint32{}
		}
		if more, ok := c.more[ref]; !slices.Contains(more, n) {
			if !ok {
				c.moreBytes += moreRefBytes
			}
			c.more[ref] = append(more, n)
			c.moreBytes += 4
		}
	}
	c.spillPastBudget()
}

// addLock records the lock of raw value v of constraint ci, naming owner
// ("" for nobody), which expires at ttl, in the constraint's other
// spelling when alt. A value locked in both has the lock in the spelling
// written (see FindLock).
func (c *Census) addLock(ci int, v, owner string, ttl expiry, alt bool) {
	n := ownerNobody
	if owner != "" {
		var ok bool
		if n, ok = c.account(owner); !ok {
			return
		}
	}
	vi, b, ok := c.value(ci, v)
	if !ok {
		return
	}
	e := c.entry(ci, vi, b)
	if alt && e.locked() && !e.alt {
		return
	}
	e.owner, e.lock, e.alt = n, ttl, alt
	c.setEntry(ci, vi, b, e)
	c.spillPastBudget()
}

// Add records one item read from table. A census with a memory budget
// (LimitMemory) may spill to disk here; Err reports a failure to.
func (c *Census) Add(table string, it Item) {
	if c.err != nil {
		return
	}
	c.Scanned++
	e := Classifier{c.schema}.Classify(table, it)
	switch e.Kind {
	case EntryAccount:
		c.Accounts++
		c.addAccount(e.ID, it, c.ttl(table, it, c.schema.TTLAttr))
	case EntryOther:
		if table == c.schema.Table {
			c.addOther(it)
		}
	case EntryLock:
		c.Locks++
		c.addLock(e.Constraint, e.Value, e.Owner, c.ttl(table, it, c.schema.LockTTLAttr(e.Constraint)), e.Alt)
		if e.OwnerInvalid != nil {
			lt, key := c.schema.lockRefAs(e.Constraint, e.Value, e.Alt)
			c.invalid = append(c.invalid, Problem{
				Kind: InvalidValue, Constraint: c.schema.Constraints[e.Constraint].Attr,
				Value: e.OwnerInvalid.DynamoJSON(), Lock: key, LockTable: lt,
				Accounts: []string{}, constraint: e.Constraint,
			})
		}
	}
}

// maxShapes bounds the prefixes Others keeps: a table of random keys
// must not grow the census.
const maxShapes = 16

func (c *Census) addOther(it Item) { c.addShape(keyShape(it[c.schema.PK].S), 1) }

// addShape counts n other items of key shape; past maxShapes shapes, new
// ones are counted as "(other)".
func (c *Census) addShape(shape string, n int) {
	if c.Others == nil {
		c.Others = map[string]int{}
	}
	if _, ok := c.Others[shape]; !ok && len(c.Others) >= maxShapes {
		shape = "(other)"
	}
	c.Others[shape] += n
}

// keyShape is the prefix of a key value up to and including its last "#"
// (ACCT#a1 -> "ACCT#", UNIQ#EMAIL#x -> "UNIQ#EMAIL#"), or "(no prefix)".
func keyShape(key string) string {
	if i := strings.LastIndexByte(key, '#'); i >= 0 && i < 40 {
		return key[:i+1]
	}
	return "(no prefix)"
}

// ttl reads the TTL of item it of table, attribute attr, as the census
// keeps it. An ignored one (not a number, or in milliseconds) is warned
// of, naming the item, and is none: never.
func (c *Census) ttl(table string, it Item, attr string) expiry {
	l := ReadLease(it, attr)
	if l.Ignored != "" {
		c.warn(TTLWarning(table, c.schema.KeyOf(table, it), l.Ignored))
	}
	return expiry{l.At, l.Timed}
}

// warn keeps warning w, or past maxWarnings counts it.
func (c *Census) warn(w string) {
	if len(c.warnings) < maxWarnings {
		c.warnings = append(c.warnings, w)
	} else {
		c.unwarned++
	}
}

// maxWarnings bounds the warnings a census keeps: a table whose every
// item has a TTL in milliseconds is told of its first items and a count.
const maxWarnings = 20

// Warnings are the items whose TTL attribute was ignored, each named
// once, and a count of those past the first maxWarnings.
func (c *Census) Warnings() []string {
	w := slices.Clone(c.warnings)
	if c.unwarned > 0 {
		w = append(w, fmt.Sprintf("and %d more items whose TTL attribute is ignored", c.unwarned))
	}
	return w
}

// Report is the report of the census with problems found (after Problems
// or Reconcile, which count the reservations): its counts, warnings and
// the time its TTLs were judged at, where the schema has TTLs.
func (c *Census) Report(problems []Problem) Report {
	r := Report{Table: c.schema.Table, ScannedItems: c.Scanned, Accounts: c.Accounts, Locks: c.Locks,
		Reservations: c.reservations, Reserved: slices.Clone(c.reserved), Problems: problems, Others: c.Others, Warnings: c.Warnings(),
		ConsumedRCU: c.ConsumedRCU}
	if c.schema.HasTTL() {
		r.Now = c.now
	}
	return r
}

// maxReserved bounds the reservations a report lists (Report.Reserved):
// signups in progress are few; a table of many holds a count past it.
const maxReserved = 1000

// Reservations is how many reserved locks (TTL ahead) of values nobody
// holds the last Problems or Reconcile found: signups in progress.
func (c *Census) Reservations() int { return c.reservations }

func (c *Census) addAccount(id string, it Item, ttl expiry) {
	for ci, con := range c.schema.Constraints {
		switch h, v := c.schema.Held(ci, it); h {
		case HoldsValue:
			c.addHolder(ci, v, id, ttl)
		case HoldsInvalid:
			c.invalid = append(c.invalid, Problem{
				Kind: InvalidValue, Constraint: con.Attr, Value: it[con.Attr].DynamoJSON(),
				Accounts: []string{id}, constraint: ci,
			})
		}
	}
}

// holders returns the accounts seen holding value vi of constraint ci (e
// is its entry), sorted; never nil, as problems report them as an array.
func (c *Census) holders(ci int, vi uint32, e entry) []string {
	ids := []string{} // never nil: "accounts" is an array
	if !e.held() {
		return ids
	}
	ids = append(ids, c.idAt(e.holder))
	for _, n := range c.more[valueRef{uint32(ci), vi}] {
		ids = append(ids, c.idAt(n))
	}
	slices.Sort(ids)
	return ids
}

// Problems reconciles what was seen into problems, in contract order. They
// are candidates until confirmed by consistent reads (see Confirm). A
// census with a memory budget is reconciled by Reconcile: part of it may
// be on disk.
func (c *Census) Problems() []Problem {
	if c.spilled() {
		panic("model: Problems of a census that spilled to disk; use Reconcile")
	}
	ps := append([]Problem{}, c.invalid...) // never nil: "problems" is an array
	c.reservations, c.reserved = 0, nil
	for ci := range c.values {
		c.values[ci].each(func(vi uint32, vb, tail []byte) {
			e := c.entry(ci, vi, tail)
			several := e.held() && len(c.more[valueRef{uint32(ci), vi}]) > 0
			// The healthy case, skipped without building a string: one
			// holder and its lock, owned by that holder or by nobody, the
			// lock without a TTL (a holder's own TTL matters only beside
			// the lock's).
			if e.held() && !several && e.locked() && (!e.owned() || e.owner == e.holder) && !e.lock.set {
				return
			}
			if !e.held() && e.reserved(c.now) {
				c.reservations++ // a signup in progress: no problem
				if len(c.reserved) < maxReserved {
					c.reserved = append(c.reserved, c.problem(ExpiredLock, ci, string(vb), e, nil))
				}
				return
			}
			v, h := string(vb), c.holders(ci, vi, e)
			if several {
				ps = append(ps, c.problem(DuplicateValue, ci, v, e, h))
			}
			if kind, ok := c.judge(e, h); ok {
				ps = append(ps, c.problem(kind, ci, v, e, h))
			}
		})
	}
	SortProblems(ps)
	SortProblems(c.reserved)
	return ps
}

// judge says what problem, besides a duplicate, the value whose entry is
// e and whose holders are h has (PATTERN.md's rules, with "Locks with a
// time to live"): an expired lock is only that, whoever holds the value;
// a reserved one that a holder outlives is only expiring; a reserved one
// that every holder expires with is judged as any lock.
func (c *Census) judge(e entry, h []string) (ProblemKind, bool) {
	switch {
	case e.held() && !e.locked():
		return MissingLock, true
	case !e.locked():
		return "", false
	case e.expired(c.now):
		return ExpiredLock, true
	case e.held() && e.reserved(c.now) && e.outlived():
		return ExpiringLock, true
	case !e.held():
		return OrphanLock, true
	case e.owned() && !slices.Contains(h, c.idAt(e.owner)):
		return ForeignLock, true
	}
	return "", false
}

// problem builds a problem of constraint ci about value v, with the lock and
// its owner filled in where the lock was seen.
func (c *Census) problem(kind ProblemKind, ci int, v string, e entry, holders []string) Problem {
	p := Problem{Kind: kind, Constraint: c.schema.Constraints[ci].Attr, Value: v, Accounts: holders, constraint: ci}
	if e.locked() {
		p.LockTable, p.Lock = c.schema.lockRefAs(ci, v, e.alt)
		if e.owned() {
			p.Owner = c.idAt(e.owner)
		}
	}
	if TTLKind(kind) {
		p.ExpiresAt = e.lock.at
	}
	return p
}

// NeedsRescan reports whether p can be confirmed only by looking for
// holders by value: an orphan lock that names no owner.
func NeedsRescan(p Problem) bool { return p.Kind == OrphanLock && (p.Owner == "" || IsClaim(p.Owner)) }

// Confirm keeps the candidates that fresh, a census of consistent reads of
// the involved keys, still shows; each as fresh shows it now.
func Confirm(candidates []Problem, fresh *Census) []Problem {
	now := fresh.Problems()
	confirmed := []Problem{}
	for _, cand := range candidates {
		for _, p := range now {
			if p.same(cand) {
				confirmed = append(confirmed, p)
				break
			}
		}
	}
	SortProblems(confirmed)
	return confirmed
}
