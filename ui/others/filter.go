package others

import "github.com/locktable/locktable/ui/browser"

// Match reports whether item i shows q (browser.Matcher): its key or its
// attributes, as its row shows them.
func (d *source) Match(i int, q string) bool {
	it := d.items[i]
	return browser.Contains(d.r.ItemKey(it), q) || browser.Contains(d.r.ItemAttrs(it), q)
}

// SetFilter keeps the items that contain q ("" shows them all).
func (m *Model) SetFilter(q string) { m.list.SetFilter(q) }

// Filter is the filter in force, "" for none.
func (m Model) Filter() string { return m.list.Filter() }

// Matched is how many items the filter keeps, of how many.
func (m Model) Matched() (kept, of int) { return m.list.Matched() }
