package items

import (
	"reflect"
	"slices"

	"github.com/locktable/locktable/model"
)

// compactAccount is an account as the cache keeps it: its key, the
// values of its unique attributes and what its locks showed, without the
// item maps. A 100k-account table is loaded into tens of megabytes this
// way; the full items are read again, consistently, when a row is opened.
type compactAccount struct {
	id    string
	attrs []compactAttr // per constraint
	locks []compactLock // per constraint
	// full keeps the whole view of the rare account with a non-string
	// attribute or lock owner, which the compact form cannot show.
	full *model.AccountView
	// hay is what a filter looks in, in lower case, made when one first
	// does (Cache.Match); "" until then. A read replaces the whole
	// compact form, hay with it.
	hay string
	// now is when the locks' TTLs were judged (model.AccountView.Now):
	// what the rows' "expired 3 h ago" counts from. Not what the account
	// shows, so not compared by equal.
	now int64
}

type compactAttr struct {
	present bool
	s       string
}

type compactLock struct {
	value, owner string
	expiresAt    int64 // the lock's TTL, 0 for none
	status       model.LockStatus
	found        bool
}

// compact keeps what the rows show of a.
func compact(sc *model.Schema, a model.AccountView) compactAccount {
	c := compactAccount{id: a.ID, attrs: make([]compactAttr, len(sc.Constraints)), locks: make([]compactLock, len(a.Locks)), now: a.Now}
	for ci, con := range sc.Constraints {
		if v, ok := a.Item[con.Attr]; ok {
			if v.Kind != model.KindS {
				return compactAccount{id: a.ID, full: &a}
			}
			c.attrs[ci] = compactAttr{present: true, s: v.S}
		}
	}
	for i, l := range a.Locks {
		if l.Status == model.LockInvalid {
			return compactAccount{id: a.ID, full: &a}
		}
		c.locks[i] = compactLock{value: l.Value, owner: l.Owner, expiresAt: l.ExpiresAt, status: l.Status, found: l.Item != nil}
	}
	return c
}

// value is the value lock ci is for.
func (c *compactAccount) value(ci int) string {
	if c.full != nil {
		return c.full.Locks[ci].Value
	}
	return c.locks[ci].value
}

// status is the status of lock ci, without building a view.
func (c *compactAccount) status(ci int) model.LockStatus {
	if c.full != nil {
		return c.full.Locks[ci].Status
	}
	return c.locks[ci].status
}

// view rebuilds the account's view for rendering: its key and unique
// attributes as the item, each found lock as a minimal item naming its
// owner.
func (c *compactAccount) view(sc *model.Schema) model.AccountView {
	if c.full != nil {
		return *c.full
	}
	it := model.Item{sc.PK: model.S(c.id)}
	if sc.SK != "" {
		it[sc.SK] = model.S(sc.AccountKey(c.id)[sc.SK]) // =PK: the id
	}
	for ci, con := range sc.Constraints {
		if a := c.attrs[ci]; a.present {
			it[con.Attr] = model.S(a.s)
		}
	}
	a := model.AccountView{ID: c.id, Item: it, Locks: make([]model.LockView, len(c.locks)), Now: c.now}
	for ci, l := range c.locks {
		lv := model.LockView{Constraint: ci, Value: l.value, Owner: l.owner, Status: l.status, ExpiresAt: l.expiresAt}
		if l.found {
			lv.Item = model.Item{}
			if l.owner != "" {
				lv.Item[sc.OwnerAttr] = model.S(l.owner)
			}
		}
		a.Locks[ci] = lv
	}
	return a
}

// equal reports whether c and o show the same: the same values, locks
// (TTLs included) and statuses as read, whenever they were judged.
func (c *compactAccount) equal(o *compactAccount) bool {
	if c.full != nil || o.full != nil {
		if c.full == nil || o.full == nil {
			return false
		}
		a, b := *c.full, *o.full
		a.Now, b.Now = 0, 0
		return reflect.DeepEqual(a, b)
	}
	return c.id == o.id && slices.Equal(c.attrs, o.attrs) && slices.Equal(c.locks, o.locks)
}

// lapsed reports whether lock ci was found with a TTL that has passed
// at now.
func (c *compactAccount) lapsed(ci int, now int64) bool {
	if c.full != nil {
		l := c.full.Locks[ci]
		return l.Item != nil && model.Lapsed(l.ExpiresAt, now)
	}
	l := c.locks[ci]
	return l.found && model.Lapsed(l.expiresAt, now)
}

// eachLock calls f with each value c's locks are for, and their owners.
func (c *compactAccount) eachLock(f func(ci int, value, owner string)) {
	if c.full != nil {
		for _, l := range c.full.Locks {
			f(l.Constraint, l.Value, l.Owner)
		}
		return
	}
	for ci, l := range c.locks {
		f(ci, l.value, l.owner)
	}
}
