// Package pager is a list read a page at a time, for the views that list
// what a table holds (soft-serve's pages): it owns the rows read, the
// selection, the request id that drops stale answers, the loading state,
// the rows kept stale after a failed read, the layout and prefetching. A
// view supplies only what it reads (Read) and how a row looks (Look), and
// may put rows of its own on top of those read (SetHead: the accounts
// view's orphan locks and pinned group).
//
// A failed read is met the same way wherever it happens: the rows read
// stay (said to be stale when a reload failed), no page is asked for
// until Retry, and Retry redoes what failed.
package pager

import (
	"context"
	"fmt"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
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
	// Keep appends to dst what the list keeps of a row read: the row
	// itself, its name in the item cache, or several rows (an account,
	// then one per lock); it runs in Update.
	Keep(dst []R, p P) []R
	// Cells are a row's parts, laid out in columns with the rows around it.
	Cells(R) rows.Cells
	// Match reports whether a row shows q (lower case) to a filter.
	Match(row R, q string) bool
	// Empty is what the view says when there is no row to show.
	Empty() string
}

// Counter is a Look that keeps rows read as other than one row each (an
// account and its locks, an account listed already as none), and keeps
// a list of them: Count is how many it keeps, for the status, and Reset
// forgets them, when a reload's first page replaces them.
type Counter interface {
	Count() int
	Reset()
}

// Texts is a Look some of whose rows are lines of text and not columns
// (a group's heading, a note, a link): Text says what such a row says
// and in which style (false for a row of columns, whose Cells are asked).
// Headings are those the selection steps over.
type Texts[R any] interface {
	Text(row R) (text string, style styles.Style, ok bool)
	Heading(row R) bool
}

// Order is a Look that shows the rows read in an order of its own, the
// sort the user chose. Sort returns read (every row read, in the order
// read) in that order, stably, and whether one is chosen (false: read
// is shown as it is); the rows from read[from] on came since it was last
// asked (from 0: every row is to be ordered anew), so that a page is
// merged in rather than the list sorted again. The selected row stays
// selected wherever the order puts it: rows are compared as values (a
// lock's name, an account's row by its place as read). The pager asks
// after each page, when the rows are set anew, and on Reorder.
//
// Sorted, the pager reads ahead once a key is pressed, a page a key,
// not on its own: the selection stays on its row, which the sort may
// keep at the end of the rows loaded however many pages come.
type Order[R any] interface {
	Sort(read []R, from int) (rows []R, sorted bool)
}

// Outside is a Look that keeps some of the rows read off the list (the
// accounts view's window: the rest on disk): Outside is how many rows
// are kept before and after those the list holds, for the place the
// status says.
type Outside interface {
	Outside() (before, after int)
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

// Model is a paged list. R is comparable so that a head set again as it
// was changes nothing (SetHead).
type Model[P any, R comparable] struct {
	ctx    context.Context
	read   Read[P]
	r      *rows.Renderer
	bottom key.Binding // the list's key to its last row (followEnd)
	src    *source[P, R]
	list   browser.Model
	paging Paging
	// followEnd: G keeps the selection on the last row as pages arrive,
	// so that one press reads to the end.
	followEnd bool
	// held: a page came while the rows are sorted; none is read ahead
	// until a key or the mouse moves the selection (Order).
	held bool
	// window: the rows below those read are kept by the look, off the
	// list (Hold): no page is read until they are back.
	window bool
	stale  Stale // why the rows are as last read: a reload failed
	// restore is the row read that was selected when a reload began, for a
	// Named look: selected again once a page lists it (nil: none).
	restore *R
}

// Named is a Look whose rows are names that stay theirs across reads (the
// locks view's, in the item cache): a reload selects again the row that
// was selected, once a page lists it. (A view whose rows are places, as
// the accounts view's, selects again itself.)
type Named interface{ RowsAreNames() }

// New returns a pager that reads with read and shows rows as look says,
// moved by km; it reads nothing until Show (or Open).
func New[P any, R comparable](ctx context.Context, read Read[P], look Look[P, R], r *rows.Renderer, km browser.KeyMap) Model[P, R] {
	src := &source[P, R]{look: look, r: r}
	src.counter, _ = look.(Counter)
	src.texts, _ = look.(Texts[R])
	src.changes, _ = look.(browser.Appending)
	src.order, _ = look.(Order[R])
	return Model[P, R]{ctx: ctx, read: read, r: r, bottom: km.Bottom, src: src, list: browser.New(km, src)}
}

// Open shows the pager and asks for its first page at once, whatever its
// size (a view shown from the start, before its size is known); first,
// when not nil, reads it in place of Read (a page asked for before the
// view existed). It returns the command that reads it, for the view's
// Init; opened again before the answer, it asks for the same page.
func (m *Model[P, R]) Open(first func() (Page[P], error)) tea.Cmd {
	m.paging.shown = true
	req, from := m.paging.Start()
	if first == nil {
		return m.load(req, from)
	}
	return func() tea.Msg {
		page, err := first()
		return PageMsg[P]{req: req, page: page, err: err}
	}
}

// SetRead makes read what reads the pages asked for from now on (the
// accounts view reads consistently once reloaded).
func (m *Model[P, R]) SetRead(read Read[P]) { m.read = read }

// SetSize sets the pager's size in cells.
func (m *Model[P, R]) SetSize(w, h int) { m.stale.Layout(w, h, &m.list) }

// Show marks the pager shown: from now on its pages load.
func (m *Model[P, R]) Show() tea.Cmd {
	m.paging.shown = true
	return m.Prefetch()
}

// Prefetch asks for the next page when fewer than a few screens of rows
// are loaded below the selection, so that scrolling does not wait; none
// after a failed read, until Retry.
func (m *Model[P, R]) Prefetch() tea.Cmd {
	if !m.paging.shown || m.held || m.window || !m.paging.Wants(m.src.Len()-m.list.Cursor(), m.ahead()) {
		return nil
	}
	return m.load(m.paging.Start())
}

// More asks for the next page now, however many rows are loaded below
// the selection (a view looking for a row further down); none while one
// is read, after a failed read, or when every page is read.
func (m *Model[P, R]) More() tea.Cmd {
	if !m.paging.shown || m.window || !m.paging.Wants(0, 1) {
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
	if !m.paging.shown {
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
		m.Take(msg)
	case tea.KeyPressMsg:
		m.list, _ = m.list.Update(msg)
		m.followEnd, m.restore, m.held = key.Matches(msg, m.bottom), nil, false
	case tea.MouseWheelMsg, tea.MouseClickMsg:
		m.list, _ = m.list.Update(msg)
		m.followEnd, m.restore, m.held = false, nil, false
	}
	return m, m.Prefetch()
}

// Take takes the answer to a page request, and says what it did; it asks
// for no page (Update does: Prefetch). A reload's first page replaces the
// rows read; a row of the head selected stays selected, else the first.
func (m *Model[P, R]) Take(msg PageMsg[P]) Answer {
	answer := m.paging.Answer(msg.req, msg.page.Next, msg.err)
	switch answer {
	case Dropped, Failed:
		return answer
	case FailedReload:
		m.stale.Set(msg.err, &m.list)
		return answer
	case Reloaded:
		cursor := m.list.Cursor()
		if _, named := m.src.look.(Named); named && cursor >= len(m.src.head) && cursor < m.src.Len() {
			r := m.src.row(cursor)
			m.restore = &r
		}
		m.src.reset()
		m.stale.Set(nil, &m.list)
		if cursor >= len(m.src.head) {
			cursor = 0
		}
		m.list.SetCursor(cursor)
	}
	m.took(msg.page.Rows)
	return answer
}

// took keeps rows read, after those read before, the selection following
// them as it should: to the end after G, on its row when sorted, or on
// the row a reload restores.
func (m *Model[P, R]) took(page []P) {
	m.paging.answered = true
	was, selected := m.selectedRead()
	moved := m.src.add(page)
	m.held = moved && !m.followEnd
	switch {
	case m.followEnd:
		m.list.SetCursor(m.src.Len() - 1)
	case moved && selected:
		m.reselect(was)
	case m.restore != nil:
		if i := slices.Index(m.src.rows, *m.restore); i >= 0 {
			m.list.SetCursor(len(m.src.head) + i)
			m.restore = nil
			break
		}
		if m.paging.Done() {
			m.restore = nil // gone since: the first row stays selected
		}
		m.list.SetCursor(m.list.Cursor())
	default:
		m.list.SetCursor(m.list.Cursor())
	}
}

// selectedRead is the selected row if it is a row read (not the head's).
func (m *Model[P, R]) selectedRead() (R, bool) {
	if c := m.list.Cursor(); c >= len(m.src.head) && c < m.src.Len() && m.list.Len() > 0 {
		return m.src.row(c), true
	}
	var none R
	return none, false
}

// reselect selects row r, a row read, wherever the order put it.
func (m *Model[P, R]) reselect(r R) {
	if i := slices.Index(m.src.rows, r); i >= 0 {
		m.list.SetCursor(len(m.src.head) + i)
	}
}

// Reorder puts the rows read in the look's order again, the selected row
// staying selected: anew, every row (the sort changed), else as the look
// placed them itself (rows read again). It is not a method, so that
// Model exports no more.
func Reorder[P any, R comparable](m *Model[P, R], anew bool) {
	was, selected := m.selectedRead()
	from := len(m.src.read)
	if anew {
		from = 0
	}
	m.held = m.src.arrange(from)
	m.src.generation++
	if selected {
		m.reselect(was)
	} else {
		m.list.SetCursor(m.list.Cursor())
	}
}

// SetHead puts head above the rows read (rows of the view's own: the
// accounts view's orphan locks and pinned group), keeping the selected
// row selected: in place if it is the head's, else the same row read,
// where it is on screen (or the new head shown, when the top was).
func (m *Model[P, R]) SetHead(head []R) {
	before := len(m.src.head)
	if !slices.Equal(head, m.src.head) {
		m.src.generation++ // a filter judges the head again
	}
	m.src.head = head
	switch delta := len(head) - before; {
	case delta == 0 || m.list.Cursor() < before:
		m.list.SetCursor(m.list.Cursor())
	case m.list.Offset() == 0:
		m.list.ShiftCursor(delta) // the top is on screen: show what came
	default:
		m.list.Shift(delta)
	}
}

// SetRows replaces the head and the rows read at once (some went since
// they were read: the view read them again, and rows of the one can name
// places in the other's list), the selection staying at its place; the
// view selects its row again.
func (m *Model[P, R]) SetRows(head, rows []R) {
	m.src.head, m.src.read = head, rows
	m.src.arrange(0)
	m.src.generation++
	m.list.SetCursor(m.list.Cursor())
}

// Seek selects the next row (dir +1) or previous row (dir -1) for which
// match holds, among the rows loaded, and reports whether there was one.
func (m *Model[P, R]) Seek(dir int, match func(R) bool) bool {
	m.followEnd = false
	return m.list.Seek(dir, func(i int) bool { return match(m.src.row(i)) })
}

// Selected is the selected row, false when none is shown.
func (m Model[P, R]) Selected() (R, bool) {
	if m.list.Len() == 0 {
		var none R
		return none, false
	}
	return m.src.row(m.list.Cursor()), true
}

// ShownRows is the rows the list shows, in order: every row loaded, or
// those the filter keeps.
func (m *Model[P, R]) ShownRows() []R {
	idx := m.list.Shown()
	out := make([]R, len(idx))
	for k, i := range idx {
		out[k] = m.src.row(i)
	}
	return out
}

// Around is the rows m's list shows about its selection, as many either
// side as n (the rows that fit the list): what is on screen, for polling.
// It is not a method, so that Model exports no more.
func Around[P any, R comparable](m *Model[P, R], n int) []R {
	shown := m.list.Shown()
	if len(shown) == 0 {
		return nil
	}
	at, _ := slices.BinarySearch(shown, m.list.Cursor())
	out := make([]R, 0, 2*n)
	for _, i := range shown[max(at-n, 0):min(at+n, len(shown))] {
		out = append(out, m.src.row(i))
	}
	return out
}

// Screen is m's layout of its rows: the columns hidden, and those its
// rows show (rows.Screen.Columns, Names). It is not a method, so that
// Model exports no more.
func Screen[P any, R comparable](m *Model[P, R]) *rows.Screen { return &m.src.screen }

// Cursor is the selected row's place among every row, the head's first.
func (m Model[P, R]) Cursor() int { return m.list.Cursor() }

// SetCursor selects row i (clamped), or the first row after it that is
// not a heading, and scrolls it into view.
func (m *Model[P, R]) SetCursor(i int) {
	m.followEnd = false
	m.list.SetCursor(i)
}

// Len is how many rows the list has, the head's with those read.
func (m Model[P, R]) Len() int { return m.src.Len() }

// View renders the visible rows under why they are stale, or says there
// are none: none at all, or none so far while pages that found none are
// read on (a scan for a few items among many reads many pages). Before
// the first page is read it says nothing: the status says loading.
func (m Model[P, R]) View() string {
	if m.src.Len() == 0 && m.paging.Err() == nil {
		switch {
		case m.paging.Done() && !m.paging.Loading():
			return m.r.Styles.Dim.Render("  " + m.src.look.Empty())
		case m.paging.answered:
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
	where := rows.Where(m.list.Pos(), m.list.Len())
	if o, ok := m.src.look.(Outside); ok && m.list.Filter() == "" && m.list.Len() > 0 && m.list.Cursor() >= len(m.src.head) {
		before, after := o.Outside()
		where = rows.Where(m.list.Pos()+before, m.list.Len()+before+after)
	}
	return where + rows.Filtered(m.list.Filter(), kept, of) +
		fmt.Sprintf("%s %s%s", rows.Count(int64(m.Count())), loaded, more)
}

// SetFilter shows only the rows that contain q (browser.Model.SetFilter);
// "" shows them all.
func (m *Model[P, R]) SetFilter(q string) { m.list.SetFilter(q) }

// Filter is the filter in force, "" for none.
func (m Model[P, R]) Filter() string { return m.list.Filter() }

// Matched is how many rows the filter keeps, of how many.
func (m Model[P, R]) Matched() (kept, of int) { return m.list.Matched() }

// Paging is where the reads stand: the request id the answers to reads
// made now carry (a view that reads more for its rows drops answers to
// an older one), whether a page is being read, whether every page is,
// what the last read failed with, and whether the rows are stale by it.
func (m Model[P, R]) Paging() Paging {
	p := m.paging
	p.stale = m.stale.Err()
	return p
}

// Count is how many rows are loaded (the Counter's count: accounts, not
// their rows), the head's aside.
func (m Model[P, R]) Count() int {
	if m.src.counter != nil {
		return m.src.counter.Count()
	}
	return len(m.src.rows)
}

// source is the head and the rows read under it, shown as their Look
// says: laid out together, a screen at a time. It implements
// browser.Source, Headings, Measurer, Matcher and Appending: rows change
// only by pages added at the end, or otherwise with the Generation.
type source[P, R any] struct {
	look    Look[P, R]
	counter Counter           // nil: each row read is one row
	texts   Texts[R]          // nil: every row is columns
	changes browser.Appending // the look's own changes to what rows show; nil: none
	order   Order[R]          // nil: the rows as read
	r       *rows.Renderer
	head    []R // the view's rows on top
	read    []R // the rows read, in the order read
	rows    []R // the rows read, as shown: read, or read in the look's order
	// generation counts the changes other than rows read added at the
	// end: a reload, the head set anew, rows dropped.
	generation int
	screen     rows.Screen
	// streaming: rows come faster than a frame and most leave the list
	// before they are seen (Stream): only those shown are measured.
	streaming bool
}

func (s *source[P, R]) Len() int { return len(s.head) + len(s.rows) }

// row is row i of the list: the head's, then those read.
func (s *source[P, R]) row(i int) R {
	if i < len(s.head) {
		return s.head[i]
	}
	return s.rows[i-len(s.head)]
}

// add keeps a page's rows, after those read before, and reports whether
// the look sorts them (Order): then they may be anywhere.
func (s *source[P, R]) add(page []P) bool {
	from := len(s.read)
	for _, p := range page {
		s.read = s.look.Keep(s.read, p)
	}
	return s.arrange(from)
}

// arrange shows the rows read in the look's order, those from from on
// read since it last did, and reports whether they are sorted; a sorted
// list changed otherwise than at its end (browser.Appending).
func (s *source[P, R]) arrange(from int) bool {
	s.rows = s.read
	if s.order == nil {
		return false
	}
	var sorted bool
	if s.rows, sorted = s.order.Sort(s.read, from); sorted {
		s.generation++
	}
	return sorted
}

// reset forgets every row read: a reload's first page replaces them.
func (s *source[P, R]) reset() {
	s.read, s.rows = nil, nil
	s.screen.Forget() // the columns narrow to what the new rows need
	s.generation++
	if s.counter != nil {
		s.counter.Reset()
	}
}

func (s *source[P, R]) Generation() int {
	if s.changes != nil {
		return s.generation + s.changes.Generation()
	}
	return s.generation
}

// Heading reports whether row i is a heading (browser.Headings).
func (s *source[P, R]) Heading(i int) bool { return s.texts != nil && s.texts.Heading(s.row(i)) }

func (s *source[P, R]) cells(i int) (rows.Cells, bool) { return s.cellsOf(s.row(i)) }

// heldCells are the cells of row i in the order read, the head's first:
// Hold measures the rows read since it last did, which are the last
// read, wherever a sort shows them.
func (s *source[P, R]) heldCells(i int) (rows.Cells, bool) {
	if i < len(s.head) {
		return s.cellsOf(s.head[i])
	}
	return s.cellsOf(s.read[i-len(s.head)])
}

// cellsOf are r's cells, false for a row of text.
func (s *source[P, R]) cellsOf(r R) (rows.Cells, bool) {
	if s.texts != nil {
		if _, _, ok := s.texts.Text(r); ok {
			return rows.Cells{}, false
		}
	}
	return s.look.Cells(r), true
}

// Measure lays out the rows about to be shown together, their columns as
// wide as every row held needs (browser.Measurer); while rows stream in,
// as wide as those shown need.
func (s *source[P, R]) Measure(shown []int, width int) {
	if !s.streaming {
		s.screen.Hold(len(s.head), len(s.head)+len(s.read), s.heldCells)
	}
	s.screen.Measure(shown, width, s.cells)
}

// Expand is what the selected row i does not show on its line, whole, in
// at most most lines (browser.Expander).
func (s *source[P, R]) Expand(i, width, most int) []string {
	return s.screen.Rest(*s.r, i, width, most)
}

func (s *source[P, R]) Render(i, width int, selected bool) string {
	l, measured := s.screen.Layout(width)
	c, ok := s.screen.Cells(i)
	if !ok && s.texts != nil {
		if text, st, ok := s.texts.Text(s.row(i)); ok {
			return s.r.Text(text, st, width, selected)
		}
	}
	if !ok {
		c, _ = s.cells(i)
		c = s.screen.Columns.Apply(c)
	}
	if !measured {
		l = rows.Measure([]rows.Cells{c}, width)
	}
	return s.r.Line(c, l, selected)
}

func (s *source[P, R]) Match(i int, q string) bool { return s.look.Match(s.row(i), q) }
