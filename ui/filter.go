package ui

import (
	"slices"

	"github.com/locktable/locktable/keymap"
)

// The filter: / narrows the list shown to the loaded rows that contain
// what is typed (each list view keeps its own, until esc clears it); when
// none does, enter looks the text up in the whole table (search.Find).

// filterShown hands the filter field's text to the list shown, after a
// key in the field, and tells the field how many rows it keeps.
func (m *Model) filterShown() {
	if q := m.layers.search.Query(); q != m.listFilter() {
		m.setFilter(q)
	}
	matched, rows := m.filterCount()
	m.layers.search.SetMatches(matched, rows)
}

// filterKeys turns clear-filter on where a filter is kept over the list
// shown and nothing is open over it (text: the keys are typed into a
// field); esc then clears it before it goes back. A layer over the list
// (the writes log) takes esc first.
func (m Model) filterKeys(km *keymap.KeyMap, text bool) {
	filtered := !text && m.top(layerHelp) == layerList && m.listFilter() != ""
	km.ClearFilter.SetEnabled(filtered)
	if filtered && slices.ContainsFunc(km.ClearFilter.Keys(), func(k string) bool { return slices.Contains(km.Back.Keys(), k) }) {
		km.Back.SetEnabled(false)
	}
}

// setFilter sets the filter of the list view shown ("" clears it).
func (m *Model) setFilter(q string) {
	t := m.views.tab()
	t.list().SetFilter(q)
	m.views.put(t)
}

// listFilter is the filter of the list view shown, "" for none.
func (m Model) listFilter() string { return m.views.tab().list().Filter() }

// filterCount is how many rows the filter of the list shown keeps, of how
// many loaded.
func (m Model) filterCount() (matched, rows int) { return m.views.tab().list().Matched() }
