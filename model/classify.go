package model

import "strings"

// EntryKind says what an item is in the pattern.
type EntryKind uint8

// The kinds of item.
const (
	EntryOther   EntryKind = iota // neither account nor lock: counted, not judged
	EntryAccount                  // an account (record)
	EntryLock                     // a lock of one constraint
)

// Entry is an item as the pattern sees it.
type Entry struct {
	Kind EntryKind
	// ID is the account's key value (its PK, e.g. "ACCT#a1f9c3").
	ID string
	// Constraint and Value locate a lock: Value is the key minus the prefix,
	// exactly as stored.
	Constraint int
	Value      string
	// Owner is the lock's owner attribute when it is a string; OwnerInvalid
	// holds it when it is present but of another type.
	Owner        string
	OwnerInvalid *Value
}

// Classify tells what item, read from table, is.
func (s *Schema) Classify(table string, it Item) Entry {
	if table != s.Table {
		for ci, c := range s.Constraints {
			if c.LockTable == table {
				v, ok := it[c.KeyAttr]
				if !ok || v.Kind != KindS {
					return Entry{}
				}
				return s.lockEntry(ci, v.S, it)
			}
		}
		return Entry{}
	}
	pk, ok := it[s.PK]
	if !ok || pk.Kind != KindS {
		return Entry{}
	}
	var sk string
	if s.SK != "" {
		v, ok := it[s.SK]
		if !ok || v.Kind != KindS {
			return Entry{}
		}
		sk = v.S
	}
	if s.SK == "" || sk == sortKey(s.LockSK, pk.S) {
		for ci, c := range s.Constraints {
			if c.InAccountTable() {
				if v, ok := strings.CutPrefix(pk.S, c.Prefix); ok && (c.Scope == "" || c.scopedValue(v)) {
					return s.lockEntry(ci, v, it)
				}
			}
		}
	}
	if s.isAccount(pk.S, sk, it) {
		return Entry{Kind: EntryAccount, ID: pk.S}
	}
	return Entry{}
}

func (s *Schema) lockEntry(ci int, v string, it Item) Entry {
	e := Entry{Kind: EntryLock, Constraint: ci, Value: v}
	if o, ok := it[s.OwnerAttr]; ok {
		if o.Kind == KindS {
			e.Owner = o.S
		} else {
			// A copy taken here: &o would put every lock's owner on
			// the heap.
			invalid := o
			e.OwnerInvalid = &invalid
		}
	}
	return e
}

// Holding is what an account holds for one constraint.
type Holding uint8

// The states of an account's attribute for one constraint.
const (
	HoldsNothing Holding = iota // absent, NULL or "": no lock expected
	HoldsValue                  // a non-empty string: its lock is expected
	HoldsInvalid                // another type, or a value too long to lock
)

// Held reads constraint ci from account it: what it holds, and the
// normalized value when it holds one.
func (s *Schema) Held(ci int, it Item) (Holding, string) {
	c := s.Constraints[ci]
	v, ok := it[c.Attr]
	switch {
	case !ok || v.Kind == KindNULL || (v.Kind == KindS && v.S == ""):
		return HoldsNothing, ""
	case v.Kind != KindS:
		return HoldsInvalid, ""
	}
	n := c.Normalize.Apply(v.S)
	if c.Scope != "" {
		// Unique per scope: no scope, no lock (OneTable refuses to write one).
		sv, ok := it[c.Scope]
		if !ok || sv.Kind != KindS || sv.S == "" {
			return HoldsNothing, ""
		}
		n = sv.S + c.Tail + n
	}
	if !s.lockKeyFits(ci, n) {
		return HoldsInvalid, ""
	}
	return HoldsValue, n
}
