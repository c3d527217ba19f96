package model

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Sample is some items of one table, with its key attribute names, as
// schema inference reads them.
type Sample struct {
	Table  string
	PK, SK string // SK "" when the table has no sort key
	Items  []Item
}

// group is the items of a sample that share a key shape: the prefix of
// their partition key up to its last '#' and their sort key.
type group struct {
	shape, sk string
	values    map[string]bool // partition key minus the shape
	items     []Item
}

// match is how well the values of a lock group (or lock table) match the
// values of an attribute of an account group.
type match struct {
	lock     *group
	accounts *group
	attr     string
	norm     Normalization
	hits     int
}

// InferSchema proposes the schema of the pattern from samples: main is
// the account (record) table; others, for a table keyed by a hash key
// alone, are tables that may hold its locks (layout 2). It says in words
// what it saw, one line per finding. A lock group belongs to the
// attribute whose values its keys match best (at least half of them).
func InferSchema(main Sample, others []Sample) (Schema, []string, error) {
	if len(main.Items) == 0 {
		return Schema{}, nil, fmt.Errorf("table %s is empty: nothing to infer a schema from (pass the schema flags)", main.Table)
	}
	if preset, note, ok := electroTable(main); ok {
		return Schema{Table: main.Table, Preset: preset}, []string{note}, nil
	}
	if main.SK == "" {
		return inferTables(main, others)
	}
	return inferSingle(main)
}

// groups splits a sample by key shape.
func groups(sm Sample) []*group {
	byShape := map[string]*group{}
	var out []*group
	for _, it := range sm.Items {
		pk, ok := it[sm.PK]
		if !ok || pk.Kind != KindS {
			continue
		}
		sk := ""
		if sm.SK != "" {
			sk = it[sm.SK].S
		}
		shape := keyShape(pk.S)
		if shape == "(no prefix)" {
			shape = ""
		}
		id := shape + "\x00" + sk
		g := byShape[id]
		if g == nil {
			g = &group{shape: shape, sk: sk, values: map[string]bool{}}
			byShape[id] = g
			out = append(out, g)
		}
		g.values[pk.S[len(shape):]] = true
		g.items = append(g.items, it)
	}
	return out
}

// stringAttrs lists the non-key attributes holding a string in items.
func stringAttrs(items []Item, keys ...string) []string {
	set := map[string]bool{}
	for _, it := range items {
		for name, v := range it {
			if v.Kind == KindS && !slices.Contains(keys, name) {
				set[name] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// bestMatch finds, for the values of lock group l, the account group and
// attribute whose values (under some normalization) cover most of them.
func bestMatch(l *group, candidates []*group, keys ...string) (match, bool) {
	var best match
	for _, a := range candidates {
		if a == l {
			continue
		}
		for _, attr := range stringAttrs(a.items, keys...) {
			for _, n := range []Normalization{NormalizeNone, NormalizeLower, NormalizeCasefold} {
				held := map[string]bool{}
				for _, it := range a.items {
					if v, ok := it[attr]; ok && v.Kind == KindS && v.S != "" {
						held[n.Apply(v.S)] = true
					}
				}
				hits := 0
				for v := range l.values {
					if held[v] {
						hits++
					}
				}
				if hits > best.hits {
					best = match{lock: l, accounts: a, attr: attr, norm: n, hits: hits}
				}
			}
		}
	}
	return best, best.hits > 0 && 2*best.hits >= len(l.values)
}

// ownerAttr finds the attribute of the lock items that names their
// account: a string that is an account key (starting with prefix, or one
// of ids) in most of them.
func ownerAttr(items []Item, isAccount func(string) bool, keys ...string) (string, int) {
	bestName, bestHits := "", 0
	for _, name := range stringAttrs(items, keys...) {
		hits := 0
		for _, it := range items {
			if v, ok := it[name]; ok && v.Kind == KindS && isAccount(v.S) {
				hits++
			}
		}
		if hits > bestHits {
			bestName, bestHits = name, hits
		}
	}
	return bestName, bestHits
}

func inferSingle(main Sample) (Schema, []string, error) {
	s := DefaultSchema(LayoutSingle)
	s.Table, s.PK, s.SK = main.Table, main.PK, main.SK
	gs := groups(main)
	var matches []match
	for _, l := range gs {
		if m, ok := bestMatch(l, gs, main.PK, main.SK); ok {
			matches = append(matches, m)
		}
	}
	if len(matches) == 0 {
		return s, nil, errors.New("no group of keys in " + main.Table + " matches the values of another group's attribute: it does not look like locks beside accounts")
	}
	// The accounts are the group most locks point at.
	votes := map[*group]int{}
	for _, m := range matches {
		votes[m.accounts] += m.hits
	}
	acc := slices.MaxFunc(slices.Collect(maps.Keys(votes)), func(a, b *group) int { return cmp.Compare(votes[a], votes[b]) })
	s.AccountPrefix, s.AccountSK = acc.shape, acc.sk
	notes := []string{fmt.Sprintf("sampled %d items of %s (key %s, %s)", len(main.Items), main.Table, main.PK, main.SK),
		fmt.Sprintf("accounts: %d items keyed %s… with %s %s", len(acc.items), acc.shape, main.SK, acc.sk)}
	s.Constraints = nil
	var lockItems []Item
	lockSKs := map[string]bool{}
	slices.SortFunc(matches, func(a, b match) int { return cmp.Compare(b.hits, a.hits) })
	for _, m := range matches {
		if m.accounts != acc || slices.ContainsFunc(s.Constraints, func(c Constraint) bool { return c.Attr == m.attr }) {
			continue
		}
		s.Constraints = append(s.Constraints, Constraint{Attr: m.attr, Prefix: m.lock.shape, Normalize: m.norm})
		lockItems = append(lockItems, m.lock.items...)
		lockSKs[m.lock.sk] = true
		notes = append(notes, fmt.Sprintf("%s locks: %d items keyed %s… with %s %s; %d of %d values are an account's %s%s",
			m.attr, len(m.lock.items), m.lock.shape, main.SK, m.lock.sk, m.hits, len(m.lock.values), m.attr, normNote(m.norm)))
	}
	slices.SortStableFunc(s.Constraints, func(a, b Constraint) int { return strings.Compare(a.Attr, b.Attr) })
	if len(lockSKs) == 1 {
		for sk := range lockSKs {
			s.LockSK = sk
		}
	} else {
		notes = append(notes, "warning: the locks have different sort keys; --lock-sk takes one")
	}
	skip := []string{main.SK}
	for _, c := range s.Constraints {
		skip = append(skip, c.Attr)
	}
	if attr, prefix, note := InferIDAttr(acc.items, main.PK, skip...); attr != "" && prefix == s.AccountPrefix {
		s.IDAttr = attr
		notes = append(notes, note)
	}
	isAccount := func(v string) bool { return acc.shape != "" && strings.HasPrefix(v, acc.shape) }
	if name, hits := ownerAttr(lockItems, isAccount, main.PK, main.SK); name != "" {
		s.OwnerAttr = name
		notes = append(notes, fmt.Sprintf("owner attribute: %s (%d of %d locks name an account)", name, hits, len(lockItems)))
	} else {
		notes = append(notes, "owner attribute: none seen (the locks name no account); locktable writes "+s.OwnerAttr)
	}
	return s, notes, nil
}

func inferTables(main Sample, others []Sample) (Schema, []string, error) {
	s := DefaultSchema(LayoutTables)
	s.Table, s.PK, s.SK, s.AccountPrefix = main.Table, main.PK, "", ""
	records := &group{items: main.Items, values: map[string]bool{}}
	ids := map[string]bool{}
	for _, it := range main.Items {
		if v, ok := it[main.PK]; ok && v.Kind == KindS {
			ids[v.S] = true
		}
	}
	notes := []string{fmt.Sprintf("sampled %d records of %s (key %s)", len(main.Items), main.Table, main.PK)}
	s.Constraints = nil
	// Each attribute's lock table is the table whose values match the
	// records' best (the greatest share of its values, then the most), not
	// the first listed: an endpoint may hold other tables keyed alike
	// (another app's, a copy), whose values match some records by chance.
	type candidate struct {
		o    Sample
		l    *group
		m    match
		rank int // its place among others, to keep their order
	}
	best := map[string]candidate{}
	for i, o := range others {
		if o.SK != "" || len(o.Items) == 0 || o.Table == main.Table {
			continue
		}
		l := &group{values: map[string]bool{}, items: o.Items}
		for _, it := range o.Items {
			if v, ok := it[o.PK]; ok && v.Kind == KindS {
				l.values[v.S] = true
			}
		}
		m, ok := bestMatch(l, []*group{records}, main.PK)
		if !ok {
			continue
		}
		if b, seen := best[m.attr]; !seen || matchesBetter(m, l, b.m, b.l) {
			best[m.attr] = candidate{o: o, l: l, m: m, rank: i}
		}
	}
	chosen := slices.SortedFunc(maps.Values(best), func(a, b candidate) int { return cmp.Compare(a.rank, b.rank) })
	var owners []Item
	for _, c := range chosen {
		o, l, m := c.o, c.l, c.m
		s.Constraints = append(s.Constraints, Constraint{Attr: m.attr, LockTable: o.Table, KeyAttr: o.PK, Normalize: m.norm})
		owners = append(owners, o.Items...)
		notes = append(notes, fmt.Sprintf("%s locks: table %s keyed %s; %d of %d values are a record's %s%s",
			m.attr, o.Table, o.PK, m.hits, len(l.values), m.attr, normNote(m.norm)))
	}
	if len(s.Constraints) == 0 {
		return s, notes, errors.New("no table keyed by a bare value matches an attribute of " + main.Table + ": no lock tables found")
	}
	if name, hits := ownerAttr(owners, func(v string) bool { return ids[v] }); name != "" {
		s.OwnerAttr = name
		notes = append(notes, fmt.Sprintf("owner attribute: %s (%d of %d locks name a record)", name, hits, len(owners)))
	}
	return s, notes, nil
}

// matchesBetter reports whether lock table values l matching as m is a
// better lock table than values bl matching as bm: a greater share of its
// values are records' values, or the same share and more of them.
func matchesBetter(m match, l *group, bm match, bl *group) bool {
	share, bshare := m.hits*len(bl.values), bm.hits*len(l.values) // m.hits/len(l) vs bm.hits/len(bl)
	return share > bshare || share == bshare && m.hits > bm.hits
}

func normNote(n Normalization) string {
	if n == NormalizeNone {
		return ""
	}
	return " after --normalize " + string(n)
}
