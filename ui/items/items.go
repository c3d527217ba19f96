// Package items is the terminal UI's one picture of the table: every
// account and lock item read so far, by its key, as it was last read,
// with what the last finished check says of it. Pages, searches,
// jumps and the re-reads after a write all put what they read here, and
// every view renders its rows from it, so that a row shows an account
// the same way wherever it is shown, and one read changes them all.
package items

import (
	"maps"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/redact"
)

// Cache holds the accounts read, by key, and the finished check's
// judgement. Views share one (a pointer): it is changed only from Update.
type Cache struct {
	schema   *model.Schema
	accounts map[string]compactAccount
	report   *model.Report
	dup      model.OthersHold // the report's duplicate values (nil: none known)
	// lockStatus is the status of (constraint, raw value) of a lock item
	// from the report: orphan, foreign, expired or expiring.
	lockStatus map[LockValue]model.LockStatus
	// locks are the lock items paged in, by LockKey.
	locks map[string]model.Lock
	// others are the other items read (the items view's, a partition's),
	// by LockKey.
	others map[string]model.Item
	// drift says an account was read showing something else than what
	// was held for it: the table changed since.
	drift bool
	// now is the present, in epoch seconds, as the clock last ticked
	// (SetNow; 0: it does not tick): the rows' time words count from it,
	// and a lock whose TTL it passed is expired.
	now int64
	// changed are the rows someone else changed (the table's stream
	// told), by account id or LockKey, with when their mark goes (epoch
	// seconds).
	changed map[string]int64
}

// LockValue is a lock's constraint and value, as a row expects it.
type LockValue struct {
	Constraint int
	Value      string
}

// New returns an empty cache of the tables of schema sc.
func New(sc *model.Schema) *Cache {
	return &Cache{schema: sc, accounts: map[string]compactAccount{}}
}

// Put keeps a as the account is now: its statuses as read (Schema.Judge),
// the check's duplicates applied when it is shown (Account).
func (c *Cache) Put(a model.AccountView) {
	n := compact(c.schema, a)
	if old, ok := c.accounts[a.ID]; ok && !old.equal(&n) && !c.Unread(a.ID) {
		c.drift = true // not its locks read at last
	}
	c.accounts[a.ID] = n
	c.readLocks(a)
}

// Unread reports whether account id is held with a lock not read yet
// (model.LockUnread): drawn before its locks.
func (c *Cache) Unread(id string) bool {
	ca, ok := c.accounts[id]
	if !ok {
		return false
	}
	for ci := range c.schema.Constraints {
		if ca.status(ci) == model.LockUnread {
			return true
		}
	}
	return false
}

// Drop forgets account id: it no longer exists.
func (c *Cache) Drop(id string) {
	if _, ok := c.accounts[id]; ok {
		c.drift = true
	}
	delete(c.accounts, id)
}

// Has reports whether account id is held.
func (c *Cache) Has(id string) bool {
	_, ok := c.accounts[id]
	return ok
}

// Account is account id as last read, judged by the last check: an ok
// lock of a value the check found held twice is a duplicate.
func (c *Cache) Account(id string) (model.AccountView, bool) {
	ca, ok := c.accounts[id]
	if !ok {
		return model.AccountView{ID: id}, false
	}
	return c.judged(&ca), true
}

// judged is ca's view as last read, judged by the last check (Account).
func (c *Cache) judged(ca *compactAccount) model.AccountView {
	a := ca.view(c.schema)
	if ca.full != nil && (c.dup != nil || c.now > a.Now) {
		a.Locks = slices.Clone(a.Locks) // the held view stays as read
	}
	if c.dup != nil {
		a.MarkDuplicates(c.dup)
	}
	if c.now > a.Now {
		a.Now = c.now
		for i, l := range a.Locks {
			if l.Item != nil && model.Lapsed(l.ExpiresAt, c.now) {
				a.Locks[i].Status = model.LockExpired
			}
		}
	}
	return a
}

// SetNow makes now (epoch seconds) the present the rows are judged at:
// their time words count from it, and a lock whose TTL it passed since
// it was read is expired, as the check judges it (whoever holds the
// value). Nothing is read again.
func (c *Cache) SetNow(now int64) {
	c.now = now
	gone := func(_ string, until int64) bool { return until <= now }
	maps.DeleteFunc(c.changed, gone)
}

// changedFor is how long a row someone else changed is marked, in
// seconds.
const changedFor = 3

// MarkChanged marks the rows of keys (account ids, lock items' LockKey)
// as changed by someone else, for a moment (changedFor, as the clock
// ticks: SetNow): the keys of the changes Theirs kept.
func (c *Cache) MarkChanged(keys []string) {
	if c.changed == nil {
		c.changed = map[string]int64{}
	}
	for _, k := range keys {
		c.changed[k] = c.now + changedFor
	}
}

// Changed reports whether someone else changed the row of key (an
// account id, a lock item's LockKey) a moment ago.
func (c *Cache) Changed(key string) bool {
	if len(c.changed) == 0 {
		return false
	}
	until, ok := c.changed[key]
	return ok && until > c.now
}

// Status is the status of lock ci of account id, as Account shows it,
// without building the view.
func (c *Cache) Status(id string, ci int) model.LockStatus {
	ca, ok := c.accounts[id]
	if !ok {
		return model.LockNone
	}
	st := ca.status(ci)
	if c.now > ca.now && ca.lapsed(ci, c.now) {
		return model.LockExpired
	}
	if st.Sound() && c.dup != nil && c.dup(ci, ca.value(ci)) {
		return model.LockDuplicate
	}
	return st
}

// SetReport judges every row again by a finished check's report r and its
// duplicate values dup; nil forgets the judgement (a reload runs the check
// anew).
func (c *Cache) SetReport(r *model.Report, dup model.OthersHold) {
	if r != nil && r == c.report {
		return // the same report again: judged already
	}
	c.report, c.dup, c.lockStatus = r, dup, nil
	if r == nil {
		c.dup = nil
		return
	}
	c.lockStatus = map[LockValue]model.LockStatus{}
	for _, p := range r.Problems {
		switch p.Kind {
		case model.OrphanLock:
			c.lockStatus[LockValue{p.ConstraintIndex(), p.Value}] = model.LockOrphan
		case model.ForeignLock:
			c.lockStatus[LockValue{p.ConstraintIndex(), p.Value}] = model.LockForeign
		case model.ExpiredLock:
			c.lockStatus[LockValue{p.ConstraintIndex(), p.Value}] = model.LockExpired
		case model.ExpiringLock:
			c.lockStatus[LockValue{p.ConstraintIndex(), p.Value}] = model.LockExpiring
		}
	}
}

// Report is the finished check's report the rows are judged by, nil
// before there is one.
func (c *Cache) Report() *model.Report { return c.report }

// Reports reports whether the last finished check (the report held)
// still finds problem p.
func (c *Cache) Reports(p model.Problem) bool {
	if c.report == nil {
		return true // not known otherwise yet
	}
	return slices.ContainsFunc(c.report.Problems, func(q model.Problem) bool {
		return q.Kind == p.Kind && q.ConstraintIndex() == p.ConstraintIndex() && q.Value == p.Value
	})
}

// JudgedAt is the time, in epoch seconds, the lock items' statuses and
// their "expired 3 h ago" count from: the finished check's start, or the
// present once the clock ticks past it (SetNow); 0 before a check, or
// when no table has a TTL.
func (c *Cache) JudgedAt() int64 {
	if c.report == nil || c.report.Now == 0 {
		return 0
	}
	return max(c.report.Now, c.now)
}

// LockStatus is a lock item's status by the check, in words and as a
// status: "checking" until a check has finished; reserved for a sound
// lock whose TTL is ahead (a reservation, which the check counts but does
// not list, or a lock whose holders expire with it); a lock the check
// does not list is judged by its TTL at the check's time, as the check
// would (model.Lease).
func (c *Cache) LockStatus(l *model.Lock) (string, model.LockStatus) {
	switch {
	case l.Item == nil:
		return "gone", model.LockNone
	case c.report == nil:
		return "checking", model.LockNone
	}
	if s, ok := c.lockStatus[LockValue{l.Constraint, l.Value}]; ok && (s != model.LockExpiring || !model.Lapsed(l.ExpiresAt, c.now)) {
		return string(s), s
	}
	ttl := model.KeptLease(l.ExpiresAt).Verdict(c.JudgedAt())
	switch {
	case ttl == model.TTLExpired:
		// Read after the check (which lists every expired lock), by the
		// same rule: expired whoever holds the value, as the accounts
		// view calls it.
		return string(model.LockExpired), model.LockExpired
	case c.dup(l.Constraint, l.Value):
		// The lock is sound, but the value it guards is held twice: the
		// accounts view calls it so too.
		return string(model.LockDuplicate), model.LockDuplicate
	case ttl == model.TTLAhead:
		return string(model.LockReserved), model.LockReserved
	}
	return string(model.LockOK), model.LockOK
}

// Related lists the accounts held, ids aside, whose rows name what the
// accounts ids hold: one of their values, or one of them as a lock's
// owner (or that own one of their locks). A write to ids changes what
// those rows say, so they are read again with them.
func (c *Cache) Related(ids []string) []string {
	written := map[string]bool{}
	values := map[LockValue]bool{}
	for _, id := range ids {
		written[id] = true
		if ca, ok := c.accounts[id]; ok {
			ca.eachLock(func(ci int, v, owner string) {
				if v != "" {
					values[LockValue{ci, v}] = true
				}
				if owner != "" && owner != id {
					written[owner] = true // named by their row: read it too
				}
			})
		}
	}
	var related []string
	for id, ca := range c.accounts {
		if slices.Contains(ids, id) {
			continue
		}
		named := written[id]
		ca.eachLock(func(ci int, v, owner string) {
			named = named || values[LockValue{ci, v}] || (owner != id && written[owner])
		})
		if named {
			related = append(related, id)
		}
	}
	slices.Sort(related)
	return related
}

// Holding lists the accounts held whose rows expect the lock of one of
// values: a lock written there changes what their rows say, whomever it
// names. One pass over the accounts, however many values.
func (c *Cache) Holding(values map[LockValue]bool) []string {
	var ids []string
	if len(values) == 0 {
		return nil
	}
	for id, ca := range c.accounts {
		held := false
		// "" is a row without a value: no lock is its, not even one keyed
		// by the bare prefix (a signup's empty value).
		ca.eachLock(func(ci int, v, _ string) { held = held || (v != "" && values[LockValue{ci, v}]) })
		if held {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// TakeDrift reports whether an account was read showing something else
// than what was held for it since the last call: the table changed under
// the check's report.
func (c *Cache) TakeDrift() bool {
	d := c.drift
	c.drift = false
	return d
}

// StaleLines say why rows are shown as last read, not as they are now (a
// read failed: err), in full, wrapped to width, for above the rows.
func StaleLines(err error, width int) []string {
	why := "stale: reading these rows again failed, so they are as last read (r retries): " + model.OneLine(redact.String(err.Error()))
	return strings.Split(ansi.Wrap(why, max(width-2, 20), " "), "\n")
}

// Match reports whether account id shows q (lower case) to a filter: in
// its key, its values, its locks' keys and owners (kept in lower case,
// made once a read), or its locks' statuses as judged now; ok is false
// for an account not held, or one the compact form cannot show (the
// filter asks Account then).
func (c *Cache) Match(id, q string) (matched, ok bool) {
	ca, ok := c.accounts[id]
	if !ok || ca.full != nil {
		return false, false
	}
	if ca.hay == "" {
		ca.hay = ca.haystack(c.schema)
		c.accounts[id] = ca
	}
	if strings.Contains(ca.hay, q) {
		return true, true
	}
	for ci := range ca.locks {
		if strings.Contains(string(c.Status(id, ci)), q) {
			return true, true
		}
	}
	return false, true
}

// haystack is the part of Match a read fixes: the key, the values and
// the locks' keys and owners, in lower case, apart.
func (c *compactAccount) haystack(sc *model.Schema) string {
	var b strings.Builder
	b.WriteString(c.id)
	for ci, a := range c.attrs {
		b.WriteByte(0)
		b.WriteString(a.s)
		if ci >= len(c.locks) {
			continue
		}
		l := c.locks[ci]
		b.WriteByte(0)
		if con := sc.Constraints[ci]; l.value != "" && con.InAccountTable() {
			b.WriteString(con.Prefix)
		}
		b.WriteString(l.value)
		b.WriteByte(0)
		b.WriteString(l.owner)
	}
	return strings.ToLower(b.String())
}
