package model

import (
	"fmt"
	"slices"
	"strings"
)

// The libraries whose uniqueness items a preset describes.
const (
	LibOneTable = "onetable" // dynamodb-onetable: _unique#Model#attr#value, _unique#
	LibTypeDORM = "typedorm" // @typedorm/core: DRM_GEN_CLASS.ATTR#value, twice
)

// Preset is a schema derived from a library's items (Schema.Preset): how
// the library keys its unique items, in which spelling, and what of the
// schema is still to be read from the table.
type Preset struct{ Schema *Schema }

// ParsePreset splits a --preset value, LIBRARY:MODEL.
func ParsePreset(v string) (lib, name string, err error) {
	lib, name, ok := strings.Cut(v, ":")
	if !ok || name == "" || (lib != LibOneTable && lib != LibTypeDORM && lib != LibElectroDB) {
		return "", "", NewSchemaError(FieldPreset, "%q: want onetable:MODEL (the _type value), typedorm:ENTITY (the __en value) or electrodb:ENTITY (the __edb_e__ value)", v)
	}
	return lib, name, nil
}

// Apply sets what a library's items look like for one model: the
// type attribute of accounts, the lock sort key and what the library
// writes on its unique items. The key attribute names, the account sort
// key and, unless --unique gives them, the constraints come from the
// table (see KeysFromTable).
func (s Preset) Apply(v string) error {
	lib, name, err := ParsePreset(v)
	if err != nil {
		return err
	}
	s.Schema.Layout, s.Schema.Preset = LayoutSingle, v
	s.Schema.AccountPrefix, s.Schema.AccountSK, s.Schema.Constraints = "", "", nil
	s.Schema.KeysFromTable, s.Schema.LockSpelling, s.Schema.OlderHead = true, "", ""
	switch lib {
	case LibOneTable:
		s.Schema.AccountType = Assignment{"_type", name}
		s.Schema.LockSK, s.Schema.AltLockSK = "_unique#", oneTableOlderSK
		s.Schema.LockAttrs = []Assignment{{"_type", "_Unique"}}
	case LibTypeDORM:
		s.Schema.AccountType = Assignment{"__en", name}
		s.Schema.LockSK, s.Schema.AltLockSK = SameAsPK, ""
		s.Schema.LockAttrs = nil
	case LibElectroDB:
		// Agents share partition keys: each is named by its whole key.
		// Each constraint has its own sort key, and carries no owner.
		s.Schema.AccountType = Assignment{ElectroEntityAttr, name}
		s.Schema.AccountSK = KeyInID
		s.Schema.LockSK, s.Schema.AltLockSK = "", ""
		s.Schema.LockAttrs, s.Schema.OwnerlessLocks = nil, true
	}
	return nil
}

// Head is the start every unique item of the preset's model shares
// (_unique#User#, DRM_GEN_USER.), "" without a preset.
func (s Preset) Head() string {
	lib, name, err := ParsePreset(s.Schema.Preset)
	if err != nil {
		return ""
	}
	switch lib {
	case LibOneTable:
		return "_unique#" + name + "#"
	case LibElectroDB:
		return "" // its constraints are told by their entity attribute
	}
	return "DRM_GEN_" + strings.ToUpper(name) + "."
}

// Prefix is the lock prefix the preset's library uses for attr:
// OneTable's _unique#User#email#, TypeDORM's DRM_GEN_USER.EMAIL# (the
// class name, taken to be the entity name upper-cased, and the attribute
// upper-cased).
func (s Preset) Prefix(attr string) string {
	lib, _, _ := ParsePreset(s.Schema.Preset)
	if lib == LibTypeDORM {
		return s.Head() + strings.ToUpper(attr) + "#"
	}
	return s.Head() + attr + "#"
}

// UniqueAttrs reads, from the keys of a library's unique items, which
// attributes of the preset's model are unique; accountAttrs are the
// attribute names its accounts have, to undo TypeDORM's upper-casing. In
// the order of first appearance. OneTable's older keys (User:email:…)
// count too: keys holds them only with their sort key (see
// OlderUniqueItems).
func (s Preset) UniqueAttrs(keys []string, accountAttrs []string) []string {
	head := s.Head()
	var attrs []string
	for _, k := range keys {
		rest, ok := strings.CutPrefix(k, head)
		sep := "#"
		olderHeads, _ := s.OlderUniqueItems()
		for _, older := range olderHeads {
			if ok {
				break
			}
			rest, ok = strings.CutPrefix(k, older)
			sep = ":"
		}
		if !ok {
			continue
		}
		attr, _, ok := strings.Cut(rest, sep)
		if !ok || attr == "" {
			continue
		}
		if strings.HasPrefix(s.Schema.Preset, LibTypeDORM+":") {
			i := slices.IndexFunc(accountAttrs, func(a string) bool { return strings.ToUpper(a) == attr })
			if i < 0 {
				continue
			}
			attr = accountAttrs[i]
		}
		if !slices.Contains(attrs, attr) {
			attrs = append(attrs, attr)
		}
	}
	return attrs
}

// OlderUniqueItems are how the model's unique items may start in
// OneTable's older spelling (User:, _Unique:User:) and their sort key
// (_unique:); none for another library.
func (s Preset) OlderUniqueItems() (heads []string, sk string) {
	if lib, _, _ := ParsePreset(s.Schema.Preset); lib != LibOneTable {
		return nil, ""
	}
	return s.Schema.olderHeads(), oneTableOlderSK
}

// ReadSpelling counts the model's unique items in each spelling among
// keys (the partition keys of the unique items read, the older ones only
// with their sort key) and, where no spelling was given, has new locks
// written in the older one when every one of them is in it, in the newer
// otherwise. It says what it saw; "" for a schema with one spelling.
func (s Preset) ReadSpelling(keys []string) string {
	olderHeads, olderSK := s.OlderUniqueItems()
	if !s.Schema.hasAltSpelling() || len(olderHeads) == 0 {
		return ""
	}
	_, name, _ := ParsePreset(s.Schema.Preset)
	n := countSpellings(keys, name, olderHeads)
	if n.olderHead != s.Schema.olderHead() {
		_ = s.SetOlderHead(n.olderHead) // one of the heads of this preset
	}
	if s.Schema.LockSpelling == "" {
		sp := SpellingNewer
		if n.older > 0 && n.newer == 0 {
			sp = SpellingOlder
		}
		s.Schema.spell(sp)
	}
	return s.Schema.spellingNote(name, n, olderSK)
}

// spellingCount is how many of a model's unique items are in each
// spelling, and the older head most of the older ones have.
type spellingCount struct {
	newer, older int
	olderHead    string
}

// countSpellings counts the unique items of the model name among keys in
// the newer spelling (scoped ones too) and in the older, whose heads are
// olderHeads; olderHead is the first of them where none is more common.
func countSpellings(keys []string, name string, olderHeads []string) spellingCount {
	var n spellingCount
	byHead := map[string]int{}
	for _, k := range keys {
		if strings.HasPrefix(k, "_unique#") && strings.Contains(k, "#"+name+"#") {
			n.newer++
			continue
		}
		if i := slices.IndexFunc(olderHeads, func(h string) bool { return strings.HasPrefix(k, h) }); i >= 0 {
			n.older++
			byHead[olderHeads[i]]++
		}
	}
	n.olderHead = olderHeads[0]
	for _, h := range olderHeads {
		if byHead[h] > byHead[n.olderHead] {
			n.olderHead = h
		}
	}
	return n
}

// spellingNote says how many unique items of the model name were seen in
// each spelling, and how new locks will be written where that differs
// from what was seen or was given; "" when none was seen.
func (s *Schema) spellingNote(name string, n spellingCount, olderSK string) string {
	newerText := fmt.Sprintf("_unique#%s#<attr>#<value>", name)
	olderText := fmt.Sprintf("in OneTable's older spelling %s<attr>:<value> (sort key %s)", n.olderHead, olderSK)
	var seen []string
	if n.newer > 0 {
		seen = append(seen, fmt.Sprintf("%d as %s", n.newer, newerText))
	}
	if n.older > 0 {
		seen = append(seen, fmt.Sprintf("%d %s", n.older, olderText))
	}
	if len(seen) == 0 {
		return ""
	}
	note := fmt.Sprintf("unique items of %s: %s", name, strings.Join(seen, ", "))
	switch {
	case s.LockSpelling == SpellingNewer && n.older > 0:
		note += "; new locks as " + newerText
	case s.LockSpelling == SpellingOlder && n.newer == 0:
		note += "; new locks in it too"
	case s.LockSpelling == SpellingOlder:
		note += "; new locks in the older spelling, as given"
	}
	return note
}

// ScopeConstraint makes constraint ci unique per value of the account
// attribute scope, as the preset's library keys it (OneTable's
// _unique#<scope>#User#email#<value>).
func (s Preset) ScopeConstraint(ci int, scope string) error {
	lib, _, err := ParsePreset(s.Schema.Preset)
	if err != nil || lib != LibOneTable {
		return NewSchemaError(FieldScope, "goes with %s onetable:MODEL; otherwise give the scope in the prefix: %s 'ATTR=HEAD${SCOPE}TAIL'", FieldPreset, FieldConstraints)
	}
	c := &s.Schema.Constraints[ci]
	sc := s.Schema.scopedConstraint(c.Attr, scope)
	c.Prefix, c.Scope, c.Tail, c.AltPrefix = sc.Prefix, sc.Scope, sc.Tail, "" // scoped: the newer spelling only
	return nil
}

// Unresolved names the fields that a preset's schema still lacks where
// the live table cannot be read (check --export without --confirm, sql):
// what dynamo.Store.ResolvePreset would read from the table, none when
// nothing. A schema without a preset lacks nothing.
func (s Preset) Unresolved() []SchemaField {
	if s.Schema.Preset == "" {
		return nil
	}
	var missing []SchemaField
	if s.Schema.KeysFromTable {
		missing = append(missing, FieldPK, FieldSK)
	}
	if s.Schema.AccountSK == "" {
		missing = append(missing, FieldAccountSK)
	}
	if len(s.Schema.Constraints) == 0 || slices.ContainsFunc(s.Schema.Constraints, func(c Constraint) bool { return c.InAccountTable() && c.Prefix == "" }) {
		missing = append(missing, FieldConstraints)
	}
	return missing
}
