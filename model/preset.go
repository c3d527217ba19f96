package model

import (
	"slices"
	"strings"
)

// The libraries whose uniqueness items a preset describes.
const (
	LibOneTable = "onetable" // dynamodb-onetable: _unique#Model#attr#value, _unique#
	LibTypeDORM = "typedorm" // @typedorm/core: DRM_GEN_CLASS.ATTR#value, twice
)

// ParsePreset splits a --preset value, LIBRARY:MODEL.
func ParsePreset(v string) (lib, name string, err error) {
	lib, name, ok := strings.Cut(v, ":")
	if !ok || name == "" || (lib != LibOneTable && lib != LibTypeDORM) {
		return "", "", NewSchemaError(FieldPreset, "%q: want onetable:MODEL (the _type value) or typedorm:ENTITY (the __en value)", v)
	}
	return lib, name, nil
}

// ApplyPreset sets what a library's items look like for one model: the
// type attribute of accounts, the lock sort key and what the library
// writes on its unique items. The key attribute names, the account sort
// key and, unless --unique gives them, the constraints come from the
// table (see KeysFromTable).
func (s *Schema) ApplyPreset(v string) error {
	lib, name, err := ParsePreset(v)
	if err != nil {
		return err
	}
	s.Layout, s.Preset = LayoutSingle, v
	s.AccountPrefix, s.AccountSK, s.Constraints = "", "", nil
	s.KeysFromTable = true
	switch lib {
	case LibOneTable:
		s.AccountType = Assignment{"_type", name}
		s.LockSK = "_unique#"
		s.LockAttrs = []Assignment{{"_type", "_Unique"}}
	case LibTypeDORM:
		s.AccountType = Assignment{"__en", name}
		s.LockSK = SameAsPK
		s.LockAttrs = nil
	}
	return nil
}

// PresetHead is the start every unique item of the preset's model shares
// (_unique#User#, DRM_GEN_USER.), "" without a preset.
func (s *Schema) PresetHead() string {
	lib, name, err := ParsePreset(s.Preset)
	if err != nil {
		return ""
	}
	if lib == LibOneTable {
		return "_unique#" + name + "#"
	}
	return "DRM_GEN_" + strings.ToUpper(name) + "."
}

// PresetPrefix is the lock prefix the preset's library uses for attr:
// OneTable's _unique#User#email#, TypeDORM's DRM_GEN_USER.EMAIL# (the
// class name, taken to be the entity name upper-cased, and the attribute
// upper-cased).
func (s *Schema) PresetPrefix(attr string) string {
	lib, _, _ := ParsePreset(s.Preset)
	if lib == LibTypeDORM {
		return s.PresetHead() + strings.ToUpper(attr) + "#"
	}
	return s.PresetHead() + attr + "#"
}

// UniqueAttrs reads, from the keys of a library's unique items, which
// attributes of the preset's model are unique; accountAttrs are the
// attribute names its accounts have, to undo TypeDORM's upper-casing. In
// the order of first appearance.
func (s *Schema) UniqueAttrs(keys []string, accountAttrs []string) []string {
	head := s.PresetHead()
	var attrs []string
	for _, k := range keys {
		rest, ok := strings.CutPrefix(k, head)
		if !ok {
			continue
		}
		attr, _, ok := strings.Cut(rest, "#")
		if !ok || attr == "" {
			continue
		}
		if strings.HasPrefix(s.Preset, LibTypeDORM+":") {
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

// ScopeConstraint makes constraint ci unique per value of the account
// attribute scope, as the preset's library keys it (OneTable's
// _unique#<scope>#User#email#<value>).
func (s *Schema) ScopeConstraint(ci int, scope string) error {
	lib, _, err := ParsePreset(s.Preset)
	if err != nil || lib != LibOneTable {
		return NewSchemaError(FieldScope, "goes with %s onetable:MODEL; otherwise give the scope in the prefix: %s 'ATTR=HEAD${SCOPE}TAIL'", FieldPreset, FieldConstraints)
	}
	c := &s.Constraints[ci]
	sc := s.scopedConstraint(c.Attr, scope)
	c.Prefix, c.Scope, c.Tail = sc.Prefix, sc.Scope, sc.Tail
	return nil
}

// Unresolved names the flags that a preset's schema still lacks where
// the live table cannot be read (check --export without --confirm, sql):
// what dynamo.Store.ResolvePreset would read from the table, "" when
// nothing. A schema without a preset lacks nothing.
func (s *Schema) Unresolved() string {
	if s.Preset == "" {
		return ""
	}
	var missing []string
	if s.KeysFromTable {
		missing = append(missing, "--pk", "--sk")
	}
	if s.AccountSK == "" {
		missing = append(missing, "--account-sk")
	}
	if len(s.Constraints) == 0 {
		missing = append(missing, "--unique ATTR")
	}
	return strings.Join(missing, ", ")
}
