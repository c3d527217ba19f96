package model

// Lock reads item it of table as the locks view lists it; ok is false
// when it is no lock.
func (c Classifier) Lock(table string, it Item) (l Lock, ok bool) {
	e := c.Classify(table, it)
	if e.Kind != EntryLock {
		return Lock{}, false
	}
	lt, key := c.Schema.LockKeyAs(e.Constraint, e.Value, e.Alt)
	return Lock{Constraint: e.Constraint, Value: e.Value, Table: lt, Key: key, Item: it, Owner: e.Owner,
		ExpiresAt: c.Schema.LockTTL(e.Constraint, it)}, true
}
