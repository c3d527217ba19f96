package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// InferIDAttr finds the attribute in which accounts carry their id, the
// end of their partition key (OneTable's and TypeDORM's id beside
// user#<id>): a string attribute that is, on every account, its key
// after one prefix all of them share. The key attributes and skip are
// not candidates. It returns the attribute and that prefix, attr "" when
// no attribute fits or several do (then it does not guess), and a note
// saying which.
func InferIDAttr(accounts []Item, pk string, skip ...string) (attr, prefix, note string) {
	type fit struct{ attr, prefix string }
	count := map[fit]int{}
	for _, it := range accounts {
		key, ok := it[pk]
		if !ok || key.Kind != KindS {
			continue
		}
		for name, v := range it {
			if name == pk || slices.Contains(skip, name) || v.Kind != KindS || v.S == "" {
				continue
			}
			if head, ok := strings.CutSuffix(key.S, v.S); ok {
				count[fit{name, head}]++
			}
		}
	}
	var fits []fit
	for f, n := range count {
		if n == len(accounts) {
			fits = append(fits, f)
		}
	}
	slices.SortFunc(fits, func(a, b fit) int { return strings.Compare(a.attr, b.attr) })
	switch len(fits) {
	case 0:
		return "", "", fmt.Sprintf("id attribute: none (no attribute of the %d accounts is their %s after a prefix they share)", len(accounts), pk)
	case 1:
		f := fits[0]
		return f.attr, f.prefix, fmt.Sprintf("id attribute: %s (on all %d accounts, %s is %q and then %s); signups write it", f.attr, len(accounts), pk, f.prefix, f.attr)
	}
	names := make([]string, len(fits))
	for i, f := range fits {
		names[i] = f.attr
	}
	return "", "", fmt.Sprintf("id attribute: ambiguous (%s each end the accounts' %s): pass --id-attr ATTR to have signups write one", strings.Join(names, ", "), pk)
}

// ScopedUniques reads, from the keys of a OneTable model's scoped unique
// items (_unique#<scope>#User#email#<value>), which attributes are unique
// per scope, and which account attribute the scope is: the only one whose
// values on accounts are at least half of the scopes seen. Where no
// attribute or several do, it does not guess: the note says so, and the
// flags (--unique ATTR --scope ATTR=SCOPEATTR) are left to the user.
// skip lists attributes that are not scopes (the keys, the type).
func (s Preset) ScopedUniques(keys []string, accounts []Item, skip ...string) ([]Constraint, []string) {
	lib, name, err := ParsePreset(s.Schema.Preset)
	if err != nil || lib != LibOneTable {
		return nil, nil
	}
	attrs, scopes := s.scopesByUnique(keys, name)
	held := stringValues(accounts, skip)
	var cs []Constraint
	var notes []string
	for _, attr := range attrs {
		seen := scopes[attr]
		fits, best := scopeAttrs(attr, seen, held)
		switch len(fits) {
		case 1:
			cs = append(cs, s.Schema.scopedConstraint(attr, fits[0]))
			notes = append(notes, fmt.Sprintf("%s is unique per %s: %d of the %d scopes of its unique items present are values of the accounts' %s", attr, fits[0], best, len(seen), fits[0]))
		case 0:
			notes = append(notes, fmt.Sprintf("%s has scoped unique items (%d scopes), but no attribute of the accounts holds the scopes: pass --unique %s --scope %s=ATTR", attr, len(seen), attr, attr))
		default:
			notes = append(notes, fmt.Sprintf("%s has scoped unique items (%d scopes), and several attributes of the accounts hold them (%s): pass --unique %s --scope %s=ATTR", attr, len(seen), strings.Join(fits, ", "), attr, attr))
		}
	}
	return cs, notes
}

// scopesByUnique gathers, per unique attribute of the model name, the
// scopes its scoped unique items name; attrs lists the attributes in the
// order the keys first show them, one note each.
func (s Preset) scopesByUnique(keys []string, name string) (attrs []string, scopes map[string]map[string]bool) {
	scopes = map[string]map[string]bool{}
	for _, k := range keys {
		scope, attr, ok := s.scopedUnique(k, name)
		if !ok {
			continue
		}
		if scopes[attr] == nil {
			scopes[attr] = map[string]bool{}
			attrs = append(attrs, attr)
		}
		scopes[attr][scope] = true
	}
	return attrs, scopes
}

// scopedUnique reads the scope and the unique attribute from the key of
// a scoped unique item of the model name,
// _unique#<scope>#<name>#<attr>#<value>. ok is false for any other key:
// another library's item, an unscoped unique (which starts with the
// preset's head) or another model's.
func (s Preset) scopedUnique(key, name string) (scope, attr string, ok bool) {
	rest, ok := strings.CutPrefix(key, "_unique#")
	if !ok || strings.HasPrefix(key, s.Head()) {
		return "", "", false
	}
	i := strings.Index(rest, "#"+name+"#")
	if i <= 0 {
		return "", "", false
	}
	attr, _, ok = strings.Cut(rest[i+len(name)+2:], "#")
	if !ok || attr == "" {
		return "", "", false
	}
	return rest[:i], attr, true
}

// stringValues is, per attribute of the accounts not in skip, the set of
// its non-empty string values: what a scope could be a value of.
func stringValues(accounts []Item, skip []string) map[string]map[string]bool {
	held := map[string]map[string]bool{}
	for _, it := range accounts {
		for n, v := range it {
			if v.Kind != KindS || v.S == "" || slices.Contains(skip, n) {
				continue
			}
			if held[n] == nil {
				held[n] = map[string]bool{}
			}
			held[n][v.S] = true
		}
	}
	return held
}

// scopeAttrs lists, sorted, the account attributes other than attr whose
// values are at least half of the scopes seen: a scope attribute need not
// hold every scope, since unique items can outlive their accounts. hits is
// how many scopes the last one listed holds, which the note of a lone fit
// cites.
func scopeAttrs(attr string, seen map[string]bool, held map[string]map[string]bool) (fits []string, hits int) {
	for _, n := range slices.Sorted(maps.Keys(held)) {
		if n == attr {
			continue
		}
		h := 0
		for sc := range seen {
			if held[n][sc] {
				h++
			}
		}
		if h > 0 && 2*h >= len(seen) {
			fits, hits = append(fits, n), h
		}
	}
	return fits, hits
}

// UniqueItemsHead is the start of the keys of every unique item the
// preset's model may have: Head, or for OneTable, whose scoped
// unique items put the scope first, _unique#.
func (s Preset) UniqueItemsHead() string {
	if lib, _, _ := ParsePreset(s.Schema.Preset); lib == LibOneTable {
		return "_unique#"
	}
	return s.Head()
}

// scopedConstraint is attr, unique per value of the account attribute
// scope, keyed as OneTable keys it.
func (s *Schema) scopedConstraint(attr, scope string) Constraint {
	_, name, _ := ParsePreset(s.Preset)
	return Constraint{Attr: attr, Prefix: "_unique#", Scope: scope, Tail: "#" + name + "#" + attr + "#", Normalize: NormalizeNone}
}
