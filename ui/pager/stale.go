package pager

import (
	"strings"

	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/styles"
)

// Stale says, above a list, why its rows are as last read and not as
// they are now (a reload failed), wrapped to the width; the list takes
// the rest of the height. Every view that keeps its rows after a failed
// reload says it this way.
type Stale struct {
	err   error
	lines []string
	w, h  int
}

// Set makes err the reason (nil: the rows are fresh) and lays out list
// under it.
func (s *Stale) Set(err error, list *browser.Model) {
	s.err = err
	s.Layout(s.w, s.h, list)
}

// Layout sizes the note and list to w by h cells.
func (s *Stale) Layout(w, h int, list *browser.Model) {
	s.w, s.h, s.lines = w, h, nil
	if s.err != nil {
		s.lines = items.StaleLines(s.err, w)
	}
	list.SetSize(w, max(h-len(s.lines), 1))
}

// Err is why the rows are stale, nil when they are not.
func (s Stale) Err() error { return s.err }

// Above renders the note, if any, above the list's view.
func (s Stale) Above(list string, st *styles.Styles) string {
	if s.lines == nil {
		return list
	}
	var b strings.Builder
	for _, l := range s.lines {
		b.WriteString(st.Error.Render(l) + "\n")
	}
	return b.String() + list
}
