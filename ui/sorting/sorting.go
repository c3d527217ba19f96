// Package sorting is the order a list view shows its loaded rows in: the
// column the user chose (the sort key steps through the view's columns,
// then back to the order read) and its direction (the reverse key flips
// it). Each view keeps its own Order.
//
// Rows compare by a Key: text by its bytes, a number as a number, and a
// row with no key (a lock without a TTL) last whichever the direction.
// The sort is stable: rows with equal keys keep the order they were read
// in, so the same rows always come out in the same order.
package sorting

import (
	"cmp"
	"slices"
	"strings"

	"github.com/locktable/locktable/model"
)

// Order is a view's sort: by one of its columns, ascending or
// descending, or none (the rows as read).
type Order struct {
	columns []string // what the view sorts by, in the order the key steps through them
	by      int      // the column sorted by, an index in columns; -1: none
	desc    bool
}

// New returns the order of a view that sorts by columns, none chosen
// yet.
func New(columns ...string) Order { return Order{columns: columns, by: -1} }

// Next sorts by the next column, ascending; after the last, by none.
func (o *Order) Next() {
	o.desc = false
	if o.by++; o.by >= len(o.columns) {
		o.by = -1
	}
}

// Reverse flips the direction; with no column chosen it sorts by the
// first, descending.
func (o *Order) Reverse() {
	if o.by < 0 {
		o.by, o.desc = 0, true
		return
	}
	o.desc = !o.desc
}

// Step takes the sort key's step (Next) or, reverse, the reverse key's
// (Reverse), and returns the sort in words, for the status line (Said).
func (o *Order) Step(reverse bool) string {
	if reverse {
		o.Reverse()
	} else {
		o.Next()
	}
	return o.Said()
}

// By is the index of the column sorted by, false for none.
func (o Order) By() (int, bool) { return o.by, o.by >= 0 }

// Column is the name of the column sorted by, "" for none.
func (o Order) Column() string {
	if o.by < 0 {
		return ""
	}
	return o.columns[o.by]
}

// Descending reports whether the sort is descending.
func (o Order) Descending() bool { return o.desc }

// Arrow is the direction as the header draws it.
func (o Order) Arrow() string {
	if o.desc {
		return "↓"
	}
	return "↑"
}

// Said is the order in words, for the status line after a key: "sorted
// by email ↑", "not sorted: as read". A column named after an attribute
// of the schema is made printable.
func (o Order) Said() string {
	if o.by < 0 {
		return "not sorted: as read"
	}
	return "sorted by " + model.Printable(o.Column()) + " " + o.Arrow()
}

// Key is what a row is sorted by.
type Key struct {
	text string
	num  int64
	kind keyKind
}

type keyKind uint8

const (
	none keyKind = iota // sorts last
	text
	number
)

// Text is a key compared by its bytes.
func Text(s string) Key { return Key{text: s, kind: text} }

// Number is a key compared as a number.
func Number(n int64) Key { return Key{num: n, kind: number} }

// None is the key of a row that has none: it sorts last, either way.
var None = Key{}

// compare orders a and b ascending, a row with no key after the others.
func compare(a, b Key) int {
	switch {
	case a.kind == none || b.kind == none:
		return cmp.Compare(b.kind, a.kind) // the keyed (kind > none) first
	case a.kind != b.kind:
		return cmp.Compare(a.kind, b.kind)
	case a.kind == number:
		return cmp.Compare(a.num, b.num)
	}
	return strings.Compare(a.text, b.text)
}

// Sort sorts rows stably by their keys (key of each row, asked once a
// row), descending when desc; rows with no key stay last.
func Sort[T any](rows []T, key func(T) Key, desc bool) {
	type keyed struct {
		row T
		key Key
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		ks[i] = keyed{r, key(r)}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return directed(a.key, b.key, desc) })
	for i, k := range ks {
		rows[i] = k.row
	}
}

// Sorted keeps rows in an order as they are read: each row's key is
// asked once, when the row comes or is set anew, and the rows read later
// are merged in, so that a list read a page at a time is not sorted
// whole again at each page. Rows of equal keys keep the order read.
type Sorted[T comparable] struct {
	entries []entry[T]
	next    int // the read number the next row added takes
	desc    bool
}

// entry is a row with its key and its read number (ties go by it).
type entry[T any] struct {
	row T
	key Key
	seq int
}

// Set sorts rows, in the order read, anew by key, descending when desc.
func (s *Sorted[T]) Set(rows []T, key func(T) Key, desc bool) {
	s.entries, s.next, s.desc = s.entries[:0], 0, desc
	s.Add(rows, key)
}

// Add merges in rows read after those held, in the order read.
func (s *Sorted[T]) Add(rows []T, key func(T) Key) {
	added := make([]entry[T], len(rows))
	for i, r := range rows {
		added[i] = entry[T]{r, key(r), s.next}
		s.next++
	}
	slices.SortFunc(added, s.compare) // read numbers differ: no two are equal
	// Merged from the end, in place: rows that sort after those held (a
	// sort by key of a table read in key order) move nothing.
	i, j := len(s.entries)-1, len(added)-1
	s.entries = slices.Grow(s.entries, len(added))[:len(s.entries)+len(added)]
	for k := len(s.entries) - 1; j >= 0; k-- {
		if i >= 0 && s.compare(added[j], s.entries[i]) < 0 {
			s.entries[k], i = s.entries[i], i-1
		} else {
			s.entries[k], j = added[j], j-1
		}
	}
}

// Rekey asks the key of rows again (they were read again) and puts each
// where its key goes now; a row not held is left out.
// It reports whether a row moved: the rows read again most often (a
// poll's) sort as they did.
func (s *Sorted[T]) Rekey(rows []T, key func(T) Key) (moved bool) {
	for _, r := range rows {
		i := slices.IndexFunc(s.entries, func(e entry[T]) bool { return e.row == r })
		if i < 0 {
			continue
		}
		e := s.entries[i]
		if e.key = key(r); e.key == s.entries[i].key {
			continue // read again, sorted the same: it stays
		}
		s.entries = slices.Delete(s.entries, i, i+1)
		at, _ := slices.BinarySearchFunc(s.entries, e, s.compare)
		s.entries = slices.Insert(s.entries, at, e)
		moved = true
	}
	return moved
}

// Drop leaves out the rows gone reports.
func (s *Sorted[T]) Drop(gone func(T) bool) {
	s.entries = slices.DeleteFunc(s.entries, func(e entry[T]) bool { return gone(e.row) })
}

// Len is how many rows are held.
func (s *Sorted[T]) Len() int { return len(s.entries) }

// Rows appends the rows, in order, to dst.
func (s *Sorted[T]) Rows(dst []T) []T {
	for _, e := range s.entries {
		dst = append(dst, e.row)
	}
	return dst
}

// compare orders a and b: by key, then as read.
func (s *Sorted[T]) compare(a, b entry[T]) int {
	if c := directed(a.key, b.key, s.desc); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// directed is compare, reversed when desc but for a row with no key,
// which stays last.
func directed(a, b Key, desc bool) int {
	c := compare(a, b)
	if desc && a.kind != none && b.kind != none {
		c = -c
	}
	return c
}
