package model

import "maps"

// The spellings of a OneTable preset's lock keys (Schema.LockSpelling).
// OneTable 1.8 wrote a third, the newer key with the older sort key,
// which is not recognised.
const (
	// SpellingNewer is OneTable's since 1.9: _unique#User#email#<value>,
	// sort key _unique#.
	SpellingNewer = "newer"
	// SpellingOlder is OneTable's before 1.8, and later with its
	// legacyUnique option: User:email:<value>, sort key _unique:.
	SpellingOlder = "older"
)

// oneTableOlderSK is the sort key of OneTable's older unique items.
const oneTableOlderSK = "_unique:"

// olderPrefix is OneTable's older lock prefix for attr: User:email:, or
// under OlderHead (_Unique:User:email:).
func (s *Schema) olderPrefix(attr string) string { return s.olderHead() + attr + ":" }

// olderHead is what the older unique keys start with: OlderHead, or the
// model and ":" (User:).
func (s *Schema) olderHead() string {
	if s.OlderHead != "" {
		return s.OlderHead
	}
	_, name, _ := ParsePreset(s.Preset)
	return name + ":"
}

// olderHeads are the heads the older unique keys may have: the model and
// ":" (what OneTable wrote, User:), and _Unique: before it (how its
// issue tracker spells them, _Unique:User:), the one given first.
func (s *Schema) olderHeads() []string {
	if s.OlderHead != "" {
		return []string{s.OlderHead}
	}
	_, name, _ := ParsePreset(s.Preset)
	return []string{name + ":", OlderMark + name + ":"}
}

// OlderMark is the text before the model in the older spelling as
// OneTable's issue tracker writes it (_Unique:User:email:ada@x).
const OlderMark = "_Unique:"

// SetOlderHead makes head (User: or _Unique:User:) what the older unique
// keys start with, in every constraint that has the older spelling.
func (s Preset) SetOlderHead(head string) error {
	lib, name, _ := ParsePreset(s.Schema.Preset)
	if lib != LibOneTable {
		return NewSchemaError(FieldOlderHead, "goes with %s onetable:MODEL", FieldPreset)
	}
	if head != name+":" && head != OlderMark+name+":" {
		return NewSchemaError(FieldOlderHead, "%q: want %s: or %s%s:", head, name, OlderMark, name)
	}
	for i := range s.Schema.Constraints {
		c := &s.Schema.Constraints[i]
		old, now := s.Schema.olderPrefix(c.Attr), head+c.Attr+":"
		switch {
		case c.AltPrefix == "":
		case c.Prefix == old:
			c.Prefix = now
		case c.AltPrefix == old:
			c.AltPrefix = now
		}
	}
	s.Schema.OlderHead = head
	if head == name+":" {
		s.Schema.OlderHead = ""
	}
	return nil
}

// Unique is the constraint on attr as the preset's library keys
// its unique items: with OneTable, in the spelling new locks are written
// in, with the other one recognised beside it.
func (s Preset) Unique(attr string) Constraint {
	lib, _, _ := ParsePreset(s.Schema.Preset)
	if lib == LibElectroDB {
		if e := s.Schema.ConstraintEntity; e.Service != "" {
			// Its service given: keyed as the documented entity,
			// with what else was given of it; nothing left to read.
			return s.ElectroUnique(attr, e.Or(DefaultConstraintEntity("")))
		}
		// Keyed as the constraint items present say, or the documented
		// entity in the entity's service: both read from the table. Its
		// casing too, unless --normalize says it (unset until then).
		return Constraint{Attr: attr}
	}
	c := Constraint{Attr: attr, Prefix: s.Prefix(attr), Normalize: NormalizeNone}
	if lib == LibOneTable {
		c.AltPrefix = s.Schema.olderPrefix(attr)
		if s.Schema.LockSpelling == SpellingOlder {
			c.Prefix, c.AltPrefix = c.AltPrefix, c.Prefix
		}
	}
	return c
}

// Derived reports whether c is keyed as Unique keys it: the attribute
// alone says it.
func (s Preset) Derived(c Constraint) bool {
	if lib, _, _ := ParsePreset(s.Schema.Preset); lib == LibElectroDB {
		return c.InAccountTable() && c.Scope == "" && c.LockSK != "" // keyed as the table's constraint items say
	}
	pc := s.Unique(c.Attr)
	return c.InAccountTable() && c.Scope == "" && c.Prefix == pc.Prefix && c.AltPrefix == pc.AltPrefix
}

// SetLockSpelling makes sp (SpellingNewer or SpellingOlder) the spelling
// new locks are written in, the other the one recognised beside it: a
// OneTable table keeps the spelling its writer uses.
func (s Preset) SetLockSpelling(sp string) error {
	if lib, _, _ := ParsePreset(s.Schema.Preset); lib != LibOneTable {
		return NewSchemaError(FieldLockSpelling, "goes with %s onetable:MODEL, whose older releases spelled unique items otherwise", FieldPreset)
	}
	if sp != SpellingNewer && sp != SpellingOlder {
		return NewSchemaError(FieldLockSpelling, "%q: want %s (_unique#MODEL#ATTR#VALUE) or %s (MODEL:ATTR:VALUE, OneTable before 1.8)", sp, SpellingNewer, SpellingOlder)
	}
	s.Schema.spell(sp)
	return nil
}

// spell is SetLockSpelling of a OneTable preset's schema: the prefixes
// and sort keys of the two spellings swap where sp is not the one written.
func (s *Schema) spell(sp string) {
	if (s.LockSpelling == SpellingOlder) != (sp == SpellingOlder) {
		s.LockSK, s.AltLockSK = s.AltLockSK, s.LockSK
		for i := range s.Constraints {
			if c := &s.Constraints[i]; c.AltPrefix != "" {
				c.Prefix, c.AltPrefix = c.AltPrefix, c.Prefix
			}
		}
	}
	s.LockSpelling = sp
}

// hasAltSpelling reports whether any constraint's locks may be in its
// other spelling.
func (s *Schema) hasAltSpelling() bool {
	for _, c := range s.Constraints {
		if c.AltPrefix != "" {
			return true
		}
	}
	return false
}

// SpellingUnread reports whether the spelling new locks are written in is
// still to be read from the table: a preset with two, none given.
func (s Preset) SpellingUnread() bool {
	return s.Schema.LockSpelling == "" && s.Schema.hasAltSpelling()
}

// LockKeyAs is LockKey in the spelling a lock has: the constraint's other
// one (AltPrefix, AltLockSK) when alt.
func (s *Schema) LockKeyAs(ci int, v string, alt bool) (table string, key map[string]string) {
	c := s.Constraints[ci]
	if !alt || c.AltPrefix == "" {
		return s.LockKey(ci, v)
	}
	k := map[string]string{s.PK: c.AltPrefix + v}
	if s.SK != "" {
		k[s.SK] = sortKey(s.AltLockSK, c.AltPrefix+v)
	}
	return s.Table, k
}

// LockKeys are the keys the lock of value v of constraint ci may have: the
// one it is written under, then the other spelling's, if any.
func (s *Schema) LockKeys(ci int, v string) []KeyRef {
	table, key := s.LockKey(ci, v)
	refs := []KeyRef{{table, key}}
	if s.Constraints[ci].AltPrefix != "" {
		table, key = s.LockKeyAs(ci, v, true)
		refs = append(refs, KeyRef{table, key})
	}
	return refs
}

// lockRefAs is lockRef in the spelling a lock has.
func (s *Schema) lockRefAs(ci int, v string, alt bool) (string, map[string]string) {
	table, key := s.LockKeyAs(ci, v, alt)
	if table == s.Table {
		table = ""
	}
	return table, key
}

// LockOf is the table and key of p's lock: the one the check found, in
// the spelling it has, else (a missing lock) the one it is written under.
func (s *Schema) LockOf(p Problem) (table string, key map[string]string) {
	if p.Lock != nil {
		return s.tableOr(p.LockTable), maps.Clone(p.Lock)
	}
	return s.LockKey(p.constraint, p.Value)
}

// Spelled is p with its lock's key in its constraint's other spelling
// when alt: the key of the lock as found (Entry.Alt, LockView.Alt).
func (s *Schema) Spelled(p Problem, alt bool) Problem {
	if alt && p.Lock != nil {
		p.LockTable, p.Lock = s.lockRefAs(p.constraint, p.Value, true)
	}
	return p
}

// altLock reports whether p's lock is in its constraint's other spelling.
func (s Classifier) altLock(p Problem) bool {
	if p.Lock == nil || s.Schema.Constraints[p.constraint].AltPrefix == "" {
		return false
	}
	return s.Classify(s.Schema.tableOr(p.LockTable), KeyItem(p.Lock)).Alt
}

// FindLock finds the lock of value v of constraint ci with lockAt, in
// either spelling. Where both are there, the one new locks are written in
// is the value's lock: the other is left as it is, never reported (a
// leftover of the writer's upgrade that blocks nothing the writer would
// take); once that one is gone, the other is.
func (s Classifier) FindLock(ci int, v string, lockAt func(KeyRef) (Item, bool)) (lock Item, alt, found bool) {
	for i, ref := range s.Schema.LockKeys(ci, v) {
		if lock, ok := lockAt(ref); ok {
			return lock, i > 0, true
		}
	}
	return nil, false, false
}

// altFree is the check, beside the put of the lock of value v of
// constraint ci, that the value has no lock in the constraint's other
// spelling either (or an expired one, as the put's own guard takes over):
// that lock would make the value taken.
func (s Planner) altFree(ci int, v string) (Action, bool) {
	if s.Schema.Constraints[ci].AltPrefix == "" {
		return Action{}, false
	}
	table, key := s.Schema.LockKeyAs(ci, v, true)
	return Action{Kind: ActCheck, Role: RoleNoAltLock, Table: table, Key: key, Constraint: ci, Value: v,
		Conds: []Cond{s.freeLock(ci)}}, true
}

// takeLock is newLock and, where the constraint has another spelling, the
// check that the value has no lock in it.
func (s Planner) takeLock(ci int, v, id string, acct Item) ([]Action, error) {
	put, err := s.newLock(ci, v, id, acct)
	if err != nil {
		return nil, err
	}
	if free, ok := s.altFree(ci, v); ok {
		return []Action{put, free}, nil
	}
	return []Action{put}, nil
}

// validateSpelling checks the other spelling of lock keys: locks beside
// the accounts told apart from the written ones by their sort key, and,
// where the older spelling is written, no scoped constraint (OneTable
// scopes only the newer).
func (s *Schema) validateSpelling() error {
	for _, c := range s.Constraints {
		switch {
		case c.AltPrefix != "" && (!c.InAccountTable() || c.Scope != "" || s.SK == "" || s.AltLockSK == "" || s.AltLockSK == s.LockSK):
			return NewSchemaError(FieldConstraints, "%s: a second spelling of its locks needs a sort key of its own, beside the accounts, unscoped", c.Attr)
		case s.LockSpelling == SpellingOlder && c.Scope != "":
			return NewSchemaError(FieldLockSpelling, "%s: OneTable scopes unique items only in the newer spelling (_unique#SCOPE#...)", c.Attr)
		}
	}
	return nil
}
