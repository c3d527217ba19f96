package model

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Rekeyed is a lock locktable's casefold wrote before 2026-12, when it
// did not compose the fold again (casefoldBeforeNFC), for a value the
// rule now keys otherwise: the check finds it an orphan_lock, and the
// lock under the key the rule now names missing unless someone wrote it.
// Repair moves it: it deletes the old key and writes the new one.
type Rekeyed struct {
	Constraint string // its attribute, as a Problem names it
	// Old is the lock's value as stored, New the value the rule now
	// keys, both as a Problem's Value is; OldLock and NewLock are their
	// lock keys, in LockTable where the locks are in a table of their own.
	Old, New         string
	OldLock, NewLock map[string]string
	LockTable        string
	// Account holds Value (its attribute, as stored), which the old rule
	// keyed as Old and the rule now keys as New.
	Account, Value string
}

// Rekeying tells, of a schema's orphan locks, those locktable's casefold
// before 2026-12 wrote for a value held now (Rekeyed).
type Rekeying struct{ Schema *Schema }

// MayBeKeyedBeforeNFC reports whether v, the value of a lock of
// constraint ci that nobody holds, may be what the casefold before
// 2026-12 keyed a value as: the constraint casefolds and v is not in NFC,
// which the old rule left where folding decomposed. Its holder, if any,
// holds NFC(v) now.
func (k Rekeying) MayBeKeyedBeforeNFC(ci int, v string) (now string, ok bool) {
	if k.Schema.Constraints[ci].Normalize != NormalizeCasefold {
		return "", false
	}
	now = norm.NFC.String(v)
	return now, now != v
}

// KeyedBeforeNFC reports whether old, the value of an orphan lock of
// constraint ci, is what the casefold before 2026-12 keyed one of
// holders' values as, where the rule now keys it otherwise; holders are
// account items (those the check names for the value the rule now keys,
// and the lock's owner). It is the first such holder's.
func (k Rekeying) KeyedBeforeNFC(ci int, old string, holders []Item) (Rekeyed, bool) {
	s := k.Schema
	if _, ok := k.MayBeKeyedBeforeNFC(ci, old); !ok {
		return Rekeyed{}, false
	}
	c := s.Constraints[ci]
	for _, it := range holders {
		e := (Classifier{s}).Classify(s.Table, it)
		h, now := s.Held(ci, it)
		if e.Kind != EntryAccount || h != HoldsValue {
			continue
		}
		v := it[c.Attr].S
		then := casefoldBeforeNFC(v)
		if c.Scope != "" {
			then = it[c.Scope].S + c.Tail + then
		}
		if then == old && now != old {
			table, oldLock := s.lockRef(ci, old)
			_, newLock := s.lockRef(ci, now)
			return Rekeyed{Constraint: c.Attr, Old: old, New: now, OldLock: oldLock, NewLock: newLock, LockTable: table,
				Account: e.ID, Value: v}, true
		}
	}
	return Rekeyed{}, false
}

// Composed says which runes the rule composes that the old rule left
// decomposed: each rune of New not in Old, with its code point, and its
// canonical decomposition where Old holds it as that, as
// `'ϊ' (U+03CA) decomposed, as U+03B9 U+0308`.
func (r Rekeyed) Composed() string {
	var said []string
	for _, c := range r.New {
		if strings.ContainsRune(r.Old, c) {
			continue
		}
		w := fmt.Sprintf("%q (%U) decomposed", c, c)
		if d := norm.NFD.String(string(c)); strings.Contains(r.Old, d) {
			w += ", as" + codePoints(d)
		}
		if !slices.Contains(said, w) {
			said = append(said, w)
		}
	}
	return strings.Join(said, "; ")
}

// codePoints is s as its code points, each after a space: " U+03B9 U+0308".
func codePoints(s string) string {
	var b strings.Builder
	for _, c := range s {
		fmt.Fprintf(&b, " %U", c)
	}
	return b.String()
}

// RekeyReads are the accounts a check reads to tell which orphan locks
// in problems are Rekeyed: for each one MayBeKeyedBeforeNFC, the lock's
// owner and the holders problems name for the value the rule now keys.
// None when no constraint casefolds.
func (k Rekeying) RekeyReads(problems []Problem) []KeyRef {
	s := k.Schema
	var refs []KeyRef
	add := func(id string) {
		if s.NamesAccount(id) && !IsClaim(id) {
			refs = append(refs, KeyRef{s.Table, s.AccountKey(id)})
		}
	}
	for _, p := range problems {
		now, ok := k.MayBeKeyedBeforeNFC(p.constraint, p.Value)
		if p.Kind != OrphanLock || !ok {
			continue
		}
		add(p.Owner)
		for _, q := range problems {
			if q.constraint == p.constraint && q.Value == now && q.Kind != OrphanLock && q.Kind != InvalidValue {
				for _, id := range q.Accounts {
					add(id)
				}
			}
		}
	}
	return refs
}

// FindRekeyed returns the orphan locks of problems that the casefold
// before 2026-12 keyed one of accounts' values as (KeyedBeforeNFC), in
// the order of problems.
func (k Rekeying) FindRekeyed(problems []Problem, accounts []Item) []Rekeyed {
	var found []Rekeyed
	for _, p := range problems {
		if p.Kind != OrphanLock {
			continue
		}
		if r, ok := k.KeyedBeforeNFC(p.constraint, p.Value, accounts); ok {
			found = append(found, r)
		}
	}
	return found
}
