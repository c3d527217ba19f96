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
func (s *Schema) ScopedUniques(keys []string, accounts []Item, skip ...string) ([]Constraint, []string) {
	lib, name, err := ParsePreset(s.Preset)
	if err != nil || lib != LibOneTable {
		return nil, nil
	}
	scopes := map[string]map[string]bool{} // unique attribute -> scopes seen
	var attrs []string
	for _, k := range keys {
		rest, ok := strings.CutPrefix(k, "_unique#")
		if !ok || strings.HasPrefix(k, s.PresetHead()) {
			continue // another library's item, or an unscoped unique
		}
		i := strings.Index(rest, "#"+name+"#")
		if i <= 0 {
			continue
		}
		attr, _, ok := strings.Cut(rest[i+len(name)+2:], "#")
		if !ok || attr == "" {
			continue
		}
		if scopes[attr] == nil {
			scopes[attr] = map[string]bool{}
			attrs = append(attrs, attr)
		}
		scopes[attr][rest[:i]] = true
	}
	held := map[string]map[string]bool{} // account attribute -> its values
	for _, it := range accounts {
		for n, v := range it {
			if v.Kind == KindS && v.S != "" && !slices.Contains(skip, n) {
				if held[n] == nil {
					held[n] = map[string]bool{}
				}
				held[n][v.S] = true
			}
		}
	}
	var cs []Constraint
	var notes []string
	for _, attr := range attrs {
		seen := scopes[attr]
		var fits []string
		best := 0
		for _, n := range slices.Sorted(maps.Keys(held)) {
			hits := 0
			for sc := range seen {
				if held[n][sc] {
					hits++
				}
			}
			if n != attr && hits > 0 && 2*hits >= len(seen) {
				fits, best = append(fits, n), hits
			}
		}
		switch len(fits) {
		case 1:
			cs = append(cs, s.scopedConstraint(attr, fits[0]))
			notes = append(notes, fmt.Sprintf("%s is unique per %s: %d of the %d scopes of its unique items present are values of the accounts' %s", attr, fits[0], best, len(seen), fits[0]))
		case 0:
			notes = append(notes, fmt.Sprintf("%s has scoped unique items (%d scopes), but no attribute of the accounts holds the scopes: pass --unique %s --scope %s=ATTR", attr, len(seen), attr, attr))
		default:
			notes = append(notes, fmt.Sprintf("%s has scoped unique items (%d scopes), and several attributes of the accounts hold them (%s): pass --unique %s --scope %s=ATTR", attr, len(seen), strings.Join(fits, ", "), attr, attr))
		}
	}
	return cs, notes
}

// UniqueItemsHead is the start of the keys of every unique item the
// preset's model may have: PresetHead, or for OneTable, whose scoped
// unique items put the scope first, _unique#.
func (s *Schema) UniqueItemsHead() string {
	if lib, _, _ := ParsePreset(s.Preset); lib == LibOneTable {
		return "_unique#"
	}
	return s.PresetHead()
}

// scopedConstraint is attr, unique per value of the account attribute
// scope, keyed as OneTable keys it.
func (s *Schema) scopedConstraint(attr, scope string) Constraint {
	_, name, _ := ParsePreset(s.Preset)
	return Constraint{Attr: attr, Prefix: "_unique#", Scope: scope, Tail: "#" + name + "#" + attr + "#", Normalize: NormalizeNone}
}
