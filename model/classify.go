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
	// ID is the account's key value (its PK, e.g. "ACCT#a1f9c3"; PK|SK
	// where accounts have sort keys of their own, Schema.AccountID).
	ID string
	// Constraint and Value locate a lock: Value is the key minus the prefix,
	// exactly as stored.
	Constraint int
	Value      string
	// Owner is the lock's owner attribute when it is a string; OwnerInvalid
	// holds it when it is present but of another type.
	Owner        string
	OwnerInvalid *Value
	// Alt says the lock is in its constraint's other spelling
	// (Constraint.AltPrefix).
	Alt bool
}

// Classifier judges the items of a schema's tables: what an item is
// (Classify), how an account and its locks stand (Judge), the problems a
// check reports, and why a write's condition failed (Explain).
type Classifier struct{ Schema *Schema }

// Classify tells what item, read from table, is.
func (s Classifier) Classify(table string, it Item) Entry {
	if table != s.Schema.Table {
		ci, ok := s.Schema.lockTableOf(table)
		if !ok {
			return Entry{}
		}
		v, ok := it[s.Schema.Constraints[ci].KeyAttr]
		if !ok || v.Kind != KindS {
			return Entry{}
		}
		return s.lockEntry(ci, v.S, it)
	}
	pk, ok := it[s.Schema.PK]
	if !ok || pk.Kind != KindS {
		return Entry{}
	}
	var sk string
	if s.Schema.SK != "" {
		v, ok := it[s.Schema.SK]
		if !ok || v.Kind != KindS {
			return Entry{}
		}
		sk = v.S
	}
	for ci, c := range s.Schema.Constraints {
		if c.InAccountTable() && (s.Schema.SK == "" || sk == sortKey(c.lockSK(s.Schema.LockSK), pk.S)) {
			if v, ok := strings.CutPrefix(pk.S, c.Prefix); ok && (c.Scope == "" || c.scopedValue(v)) {
				return s.lockEntry(ci, v, it)
			}
		}
	}
	if s.Schema.AltLockSK != "" && sk == sortKey(s.Schema.AltLockSK, pk.S) {
		for ci, c := range s.Schema.Constraints {
			if v, ok := strings.CutPrefix(pk.S, c.AltPrefix); ok && c.AltPrefix != "" {
				e := s.lockEntry(ci, v, it)
				e.Alt = true
				return e
			}
		}
	}
	if s.isAccount(pk.S, sk, it) {
		return Entry{Kind: EntryAccount, ID: s.Schema.AccountID(it)}
	}
	return Entry{}
}

func (s Classifier) lockEntry(ci int, v string, it Item) Entry {
	e := Entry{Kind: EntryLock, Constraint: ci, Value: v}
	if o, ok := it[s.Schema.OwnerAttr]; ok {
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

// isAccount reports whether an item of the account table, keyed pk and
// sk, is an account: by key prefix, sort key and type attribute.
func (s Classifier) isAccount(pk, sk string, it Item) bool {
	if !strings.HasPrefix(pk, s.Schema.AccountPrefix) || (s.Schema.SK != "" && s.Schema.AccountSK != KeyInID && sk != sortKey(s.Schema.AccountSK, pk)) {
		return false
	}
	if s.Schema.AccountType.Attr != "" {
		v, ok := it[s.Schema.AccountType.Attr]
		return ok && v.Kind == KindS && v.S == s.Schema.AccountType.Value
	}
	return true
}
