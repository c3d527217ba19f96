// Package pager is a list read a page at a time, for the views that list
// what a table holds (soft-serve's pages): it owns the rows read, the
// selection, the request id that drops stale answers, the loading state,
// the rows kept stale after a failed read, the layout and prefetching. A
// view supplies only what it reads (Read) and how a row looks (Look).
//
// A failed read is met the same way wherever it happens: the rows read
// stay (said to be stale when a reload failed), no page is asked for
// until Retry, and Retry redoes what failed.
package pager

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/rows"
)

// Page is one read's rows, and where the next read goes on.
type Page[P any] struct {
	Rows []P
	Next backend.Cursor
}

// Read reads the page that starts at from, of about want rows. It runs
// in a tea.Cmd, off the update loop.
type Read[P any] func(ctx context.Context, from backend.Cursor, want int) (Page[P], error)

// Look is how a view shows its rows: P is what a page holds, R what the
// list keeps of it (the row itself, or its name in the item cache).
type Look[P, R any] interface {
	// Keep is what the list keeps of a row read; it runs in Update.
	Keep(P) R
	// Cells are a row's parts, laid out in columns with the rows around it.
	Cells(R) rows.Cells
	// Match reports whether a row shows q (lower case) to a filter.
	Match(row R, q string) bool
	// Empty is what the view says when there is no row to show.
	Empty() string
}

// Request numbers the reads of a pager: an answer to a request made
// before a reload is dropped.
type Request int

// PageMsg answers a page request.
type PageMsg[P any] struct {
	req  Request
	page Page[P]
	err  error
}

// Model is a paged list.
type Model[P, R any] struct {
	ctx    context.Context
	read   Read[P]
	r      *rows.Renderer
	km     browser.KeyMap
	src    *source[P, R]
	list   browser.Model
	paging Paging
	shown  bool // the pager was shown: it keeps its pages loaded
	// followEnd: G keeps the selection on the last row as pages arrive,
	// so that one press reads to the end.
	followEnd bool
	stale     Stale // why the rows are as last read: a reload failed
}

// New returns a pager that reads with read and shows rows as look says,
// moved by km; it reads nothing until Show.
func New[P, R any](ctx context.Context, read Read[P], look Look[P, R], r *rows.Renderer, km browser.KeyMap) Model[P, R] {
	src := &source[P, R]{look: look, r: r}
	return Model[P, R]{ctx: ctx, read: read, r: r, km: km, src: src, list: browser.New(km, src)}
}

// SetSize sets the pager's size in cells.
func (m *Model[P, R]) SetSize(w, h int) { m.stale.Layout(w, h, &m.list) }

// Show marks the pager shown: from now on its pages load.
func (m *Model[P, R]) Show() tea.Cmd {
	m.shown = true
	return m.Prefetch()
}

// Prefetch asks for the next page when fewer than a few screens of rows
// are loaded below the selection, so that scrolling does not wait; none
// after a failed read, until Retry.
func (m *Model[P, R]) Prefetch() tea.Cmd {
	if !m.shown || !m.paging.Wants(m.src.Len()-m.list.Cursor(), m.ahead()) {
		return nil
	}
	return m.load(m.paging.Start())
}

// ahead is how many rows a page asks for: a few screens.
func (m *Model[P, R]) ahead() int { return 3 * m.list.Height() }

// load asks for the page at from, for request req.
func (m *Model[P, R]) load(req Request, from backend.Cursor) tea.Cmd {
	ctx, read, want := m.ctx, m.read, m.ahead()
	return func() tea.Msg {
		page, err := read(ctx, from, want)
		return PageMsg[P]{req: req, page: page, err: err}
	}
}

// Reload reads every row again once shown. The rows shown stay until the
// first page comes; if it does not, they stay, stale.
func (m *Model[P, R]) Reload() tea.Cmd {
	if !m.shown {
		m.paging.Restart()
		m.src.reset()
		return nil
	}
	m.followEnd = false
	return m.load(m.paging.Reload())
}

// Retry forgets the failure and redoes what failed: the reload, or the
// page. Nil when nothing failed.
func (m *Model[P, R]) Retry() tea.Cmd {
	switch m.paging.Retry() {
	case FailedReload:
		return m.Reload()
	case Failed:
		return m.Prefetch()
	}
	return nil
}

// Update handles pages, the list's keys and the mouse.
func (m Model[P, R]) Update(msg tea.Msg) (Model[P, R], tea.Cmd) {
	switch msg := msg.(type) {
	case PageMsg[P]:
		m.onPage(msg)
	case tea.KeyPressMsg:
		m.list, _ = m.list.Update(msg)
		m.followEnd = key.Matches(msg, m.km.Bottom)
	case tea.MouseWheelMsg, tea.MouseClickMsg:
		m.list, _ = m.list.Update(msg)
		m.followEnd = false
	}
	return m, m.Prefetch()
}

func (m *Model[P, R]) onPage(msg PageMsg[P]) {
	switch m.paging.Answer(msg.req, msg.page.Next, msg.err) {
	case Dropped, Failed:
		return
	case FailedReload:
		m.stale.Set(msg.err, &m.list)
		return
	case Reloaded:
		m.src.reset()
		m.stale.Set(nil, &m.list)
		m.list.SetCursor(0)
	}
	m.src.add(msg.page.Rows)
	if m.followEnd {
		m.list.SetCursor(m.src.Len() - 1)
	} else {
		m.list.SetCursor(m.list.Cursor())
	}
}

// Seek selects the next row (dir +1) or previous row (dir -1) for which
// match holds, among the rows loaded, and reports whether there was one.
func (m *Model[P, R]) Seek(dir int, match func(R) bool) bool {
	m.followEnd = false
	return m.list.Seek(dir, func(i int) bool { return match(m.src.rows[i]) })
}

// Selected is the selected row, false when none is shown.
func (m Model[P, R]) Selected() (R, bool) {
	if m.list.Len() == 0 {
		var none R
		return none, false
	}
	return m.src.rows[m.list.Cursor()], true
}

// ShownRows is the rows the list shows, in order: every row loaded, or
// those the filter keeps.
func (m *Model[P, R]) ShownRows() []R {
	idx := m.list.Shown()
	out := make([]R, len(idx))
	for k, i := range idx {
		out[k] = m.src.rows[i]
	}
	return out
}

// View renders the visible rows under why they are stale, or says there
// are none: none at all, or none so far while pages that found none are
// read on (a scan for a few items among many reads many pages).
func (m Model[P, R]) View() string {
	if m.src.Len() == 0 && m.paging.Err() == nil {
		switch {
		case m.paging.Done() && !m.paging.Loading():
			return m.r.Styles.Dim.Render("  " + m.src.look.Empty())
		case m.shown:
			return m.r.Styles.Dim.Render("  " + m.src.look.Empty() + " so far (reading on…)")
		}
	}
	return m.stale.Above(m.list.View(), m.r.Styles)
}

// Status says where the selection is among how many rows, what the
// filter keeps, and loaded: what the rows are, after their count
// ("locks loaded").
func (m Model[P, R]) Status(loaded string) string {
	more := ""
	if !m.paging.Done() {
		more = ", more below"
	}
	kept, of := m.list.Matched()
	return rows.Where(m.list.Pos(), m.list.Len()) + rows.Filtered(m.list.Filter(), kept, of) +
		fmt.Sprintf("%s %s%s", rows.Count(int64(m.src.Len())), loaded, more)
}

// SetFilter shows only the rows that contain q (browser.Model.SetFilter);
// "" shows them all.
func (m *Model[P, R]) SetFilter(q string) { m.list.SetFilter(q) }

// Filter is the filter in force, "" for none.
func (m Model[P, R]) Filter() string { return m.list.Filter() }

// Matched is how many rows the filter keeps, of how many.
func (m Model[P, R]) Matched() (kept, of int) { return m.list.Matched() }

// Request is the request id the answers to reads made now carry: a view
// that reads more for its rows (a lock read again) drops answers to an
// older one.
func (m Model[P, R]) Request() Request { return m.paging.Request() }

// Err is what the last read failed with, nil if it did not fail.
func (m Model[P, R]) Err() error { return m.paging.Err() }

// Stale is why the rows are as last read and not as they are now (a
// reload failed), nil when they are not.
func (m Model[P, R]) Stale() error { return m.stale.Err() }

// Loading reports whether a page is being read.
func (m Model[P, R]) Loading() bool { return m.paging.Loading() }

// Shown reports whether the pager was ever shown (and so reads its pages).
func (m Model[P, R]) Shown() bool { return m.shown }

// Done reports whether every page is loaded.
func (m Model[P, R]) Done() bool { return m.paging.Done() }

// Count is how many rows are loaded.
func (m Model[P, R]) Count() int { return m.src.Len() }

// source is the rows read, shown as their Look says: laid out together,
// a screen at a time. It implements browser.Source, Measurer, Matcher
// and Appending: rows change only by pages added at the end, or all at
// once by a reload.
type source[P, R any] struct {
	look       Look[P, R]
	r          *rows.Renderer
	rows       []R
	generation int
	screen     rows.Screen
}

func (s *source[P, R]) Len() int { return len(s.rows) }

// add keeps a page's rows, after those read before.
func (s *source[P, R]) add(page []P) {
	for _, p := range page {
		s.rows = append(s.rows, s.look.Keep(p))
	}
}

// reset forgets every row: a reload's first page replaces them.
func (s *source[P, R]) reset() {
	s.rows = nil
	s.generation++
}

func (s *source[P, R]) Generation() int { return s.generation }

func (s *source[P, R]) cells(i int) (rows.Cells, bool) { return s.look.Cells(s.rows[i]), true }

// Measure lays out the rows about to be shown together (browser.Measurer).
func (s *source[P, R]) Measure(shown []int, width int) { s.screen.Measure(shown, width, s.cells) }

func (s *source[P, R]) Render(i, width int, selected bool) string {
	l, measured := s.screen.Layout(width)
	c, ok := s.screen.Cells(i)
	if !ok {
		c, _ = s.cells(i)
	}
	if !measured {
		l = rows.Measure([]rows.Cells{c}, width)
	}
	return s.r.Line(c, l, selected)
}

func (s *source[P, R]) Match(i int, q string) bool { return s.look.Match(s.rows[i], q) }
