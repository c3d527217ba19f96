package items

import (
	"maps"
	"slices"
	"strings"

	"github.com/locktable/locktable/model"
)

// LockKey names a lock item in the cache: its table and its key.
func LockKey(table string, key map[string]string) string {
	var b strings.Builder
	b.WriteString(table)
	for _, name := range slices.Sorted(maps.Keys(key)) {
		b.WriteString("\x00" + name + "=" + key[name])
	}
	return b.String()
}

// PutLock keeps lock item l as a page of locks listed it, and returns its
// name in the cache.
func (c *Cache) PutLock(l model.Lock) string {
	k := LockKey(l.Table, l.Key)
	if c.locks == nil {
		c.locks = map[string]model.Lock{}
	}
	c.locks[k] = l
	return k
}

// Lock is lock k as last read; its Item is nil once it was found gone
// (its Owner is the one it had).
func (c *Cache) Lock(k string) model.Lock { return c.locks[k] }

// ReadLock keeps what a read of lock k found: it, or nothing (nil: the
// lock is gone). Only locks held are kept: the cache lists no more locks
// than the pages did.
func (c *Cache) ReadLock(k string, it model.Item) {
	owner, ttl := "", int64(0)
	if l, ok := c.locks[k]; ok && it != nil {
		owner = (model.Classifier{Schema: c.schema}).Classify(l.Table, it).Owner
		ttl = c.schema.LockTTL(l.Constraint, it)
	}
	c.readLock(k, it, owner, ttl)
}

// readLock keeps lock k as read: it, owned by owner, expiring at ttl (0:
// never). A lock gone keeps the owner it had, for its row to say whose it
// was.
func (c *Cache) readLock(k string, it model.Item, owner string, ttl int64) {
	if l, ok := c.locks[k]; ok {
		l.Item = it
		if it != nil {
			l.Owner, l.ExpiresAt = owner, ttl
		}
		c.locks[k] = l
	}
}

// readLocks keeps the locks an account's read found, or found missing.
func (c *Cache) readLocks(a model.AccountView) {
	if len(c.locks) == 0 {
		return
	}
	for ci, l := range a.Locks {
		if l.Value == "" || (l.Item == nil && l.Status != model.LockMissing) {
			continue
		}
		if l.Item == nil { // missing: gone in every spelling
			for _, ref := range c.schema.LockKeys(ci, l.Value) {
				c.readLock(LockKey(ref.Table, ref.Key), nil, "", 0)
			}
			continue
		}
		table, key := c.schema.LockKeyAs(ci, l.Value, l.Alt)
		c.readLock(LockKey(table, key), l.Item, l.Owner, l.ExpiresAt)
	}
}

// LocksOf lists the locks held whose owner is one of ids, for reading them
// again after a write to ids: it may have released or handed them over.
func (c *Cache) LocksOf(ids []string) []model.KeyRef {
	var refs []model.KeyRef
	for _, l := range c.locks {
		if l.Item != nil && l.Owner != "" && slices.Contains(ids, l.Owner) {
			refs = append(refs, model.KeyRef{Table: l.Table, Key: l.Key})
		}
	}
	return refs
}
