package others

import (
	"github.com/locktable/locktable/ui/browser"
)

// Match reports whether item it shows q (pager.Look): its key or its
// attributes, as its row shows them.
func (l look) Match(k, q string) bool {
	it := l.items.Item(k)
	return browser.Contains(l.r.ItemKey(it), q) || browser.Contains(l.r.ItemAttrs(it), q)
}

// SetFilter keeps the items that contain q ("" shows them all).
func (m *Model) SetFilter(q string) { m.pager.SetFilter(q) }

// Filter is the filter in force, "" for none.
func (m Model) Filter() string { return m.pager.Filter() }

// Matched is how many items the filter keeps, of how many.
func (m Model) Matched() (kept, of int) { return m.pager.Matched() }
