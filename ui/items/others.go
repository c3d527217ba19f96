package items

import "github.com/locktable/locktable/model"

// PutItem keeps an item of the account table that is neither an account
// nor a lock (the items view's, a partition's in the detail) as it was
// read, and returns its name in the cache.
func (c *Cache) PutItem(it model.Item) string {
	sc := c.schema
	k := LockKey(sc.Table, sc.KeyOf(sc.Table, it))
	if c.others == nil {
		c.others = map[string]model.Item{}
	}
	c.others[k] = it
	return k
}

// Item is item k as last read (PutItem).
func (c *Cache) Item(k string) model.Item { return c.others[k] }

// Duplicates are the finished check's duplicate values (nil before a
// check, or when none are known), for the write flow's guards.
func (c *Cache) Duplicates() model.OthersHold { return c.dup }
