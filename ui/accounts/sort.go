package accounts

import (
	"slices"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/sorting"
)

// accountSort is the order the accounts paged in are shown in: as read,
// or sorted by their key, one of their unique values or their problems,
// each account followed by its locks (the accounts are sorted as
// groups). Accounts are named by their place in main, the order read.
type accountSort struct {
	order  sorting.Order
	sorted sorting.Sorted[int]
	shown  []int      // places in main, in the order shown (nil: as read)
	at     []int      // place in main -> place shown
	body   []rows.Row // the rows of the accounts, in the order shown
}

// place is where the account at place i of main is shown.
func (s *accountSort) place(i int) int {
	if s.shown == nil {
		return i
	}
	return s.at[i]
}

// nth is the place in main of the account shown n-th.
func (s *accountSort) nth(n int) int {
	if s.shown == nil {
		return n
	}
	return s.shown[n]
}

// Sort shows the accounts paged in as the order says (pager.Order): read
// holds their rows as read, each account's under it; the accounts read
// since it last did are merged in (every one anew from 0).
func (d *source) Sort(read []rows.Row, from int) ([]rows.Row, bool) {
	s := &d.sorting
	by, sorted := s.order.By()
	if !sorted {
		s.shown, s.at = nil, nil
		return read, false
	}
	key := d.sortKey(by)
	if from == 0 {
		s.sorted.Set(nil, key, s.order.Descending())
	}
	added := make([]int, 0, len(d.main)-s.sorted.Len())
	for i := s.sorted.Len(); i < len(d.main); i++ {
		added = append(added, i)
	}
	s.sorted.Add(added, key)
	s.shown = s.sorted.Rows(s.shown[:0])
	s.at = slices.Grow(s.at[:0], len(s.shown))[:len(s.shown)]
	s.body = s.body[:0]
	for place, i := range s.shown {
		s.at[i] = place
		s.body = accountRows(s.body, setMain, i, len(d.r.Schema.Constraints))
	}
	return s.body, true
}

// rekey places the accounts ids again, read again: what they are sorted
// by may have changed. It reports whether one moved.
func (d *source) rekey(ids []string) bool {
	by, sorted := d.sorting.order.By()
	if !sorted {
		return false
	}
	var places []int
	for _, id := range ids {
		if i, ok := d.index[id]; ok {
			places = append(places, i)
		}
	}
	return d.sorting.sorted.Rekey(places, d.sortKey(by))
}

// sortKey is what the account at place i of main is sorted by in column
// by: its key, one of its unique values as stored (a string's text,
// another type's DynamoDB JSON; none when absent), or how many of its
// locks show a problem.
func (d *source) sortKey(by int) func(i int) sorting.Key {
	constraints := d.r.Schema.Constraints
	switch {
	case by == 0:
		return func(i int) sorting.Key { return sorting.Text(d.main[i]) }
	case by > len(constraints):
		return func(i int) sorting.Key {
			n := 0
			for ci := range constraints {
				if d.items.Status(d.main[i], ci).Problematic() {
					n++
				}
			}
			return sorting.Number(int64(n))
		}
	}
	attr := constraints[by-1].Attr
	return func(i int) sorting.Key {
		a, _ := d.items.Account(d.main[i])
		switch v, ok := a.Item[attr]; {
		case !ok:
			return sorting.None
		case v.Kind == model.KindS:
			return sorting.Text(v.S)
		default:
			return sorting.Text(v.DynamoJSON())
		}
	}
}
