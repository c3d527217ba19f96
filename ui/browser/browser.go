// Package browser is a scrolling list that renders only its visible rows,
// so that drawing costs the same with a thousand rows or a million. A
// filter (SetFilter) narrows it to the rows that contain some text; the
// list's indices stay the source's.
package browser

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Source is what the list shows: a length, and any row rendered on demand.
type Source interface {
	Len() int
	Render(i, width int, selected bool) string
}

// Headings is a Source some of whose rows are headings (a group's title,
// a note): they do nothing when selected, so the keys and the wheel step
// over them.
type Headings interface {
	Heading(i int) bool
}

// Measurer is a Source that lays out its visible rows together (their
// columns aligned): View tells it which rows it is about to render, then
// renders them, in the same frame.
type Measurer interface {
	Measure(shown []int, width int)
}

// Expander is a Source whose selected row may not show all it holds on
// its line (a value cut): Expand returns the lines that show the rest,
// at most most, drawn under the row, in the frame Measure measured
// (nil: the line shows it all). The list makes room for them: the rows
// below move down, or the rows above up when the selection is near the
// bottom, so that the selected row is read whole where it is.
type Expander interface {
	Expand(i, width, most int) []string
}

// Model is the list's state: which row is selected and which is on top.
// cursor and offset are positions among the rows shown, which are the
// source's rows unless a filter keeps fewer (see filter.go); its methods
// take and return source rows.
type Model struct {
	km                            KeyMap
	src                           Source
	cursor, offset, width, height int
	filter                        filter
	// home is the row last selected (moving, SetCursor, a filter): a
	// filter that keeps nothing leaves it, for the filter cleared or
	// widened to select again (the cursor meanwhile says row 0).
	home int
}

// New returns a list over src, moved by km.
func New(km KeyMap, src Source) Model { return Model{km: km, src: src} }

// SetSize sets the list's size in cells.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, max(h, 1)
	m.sync()
	m.clamp()
}

// Cursor returns the selected row.
func (m Model) Cursor() int { return m.row(m.cursor) }

// Offset returns the row shown on top.
func (m Model) Offset() int { return m.row(m.offset) }

// Height returns the number of rows shown.
func (m Model) Height() int { return m.height }

// SetCursor selects row i (clamped), or the first row after it that is
// not a heading, and scrolls it into view.
func (m *Model) SetCursor(i int) {
	m.sync()
	m.cursor = m.pos(i)
	m.clamp()
	m.skipHeadings(+1)
	if m.n() > 0 { // a refresh under a filter of nothing keeps home
		m.home = m.Cursor()
	}
}

// Shift moves the selection and the view by d rows, for when rows are
// inserted or removed above them: the same row stays selected, in place.
func (m *Model) Shift(d int) {
	if m.filter.on() {
		i, line := m.Cursor(), m.cursor-m.offset
		m.sync()
		m.cursor = m.pos(i + d)
		m.offset = m.cursor - line
		m.clamp()
		m.home += d
		return
	}
	m.cursor += d
	m.offset += d
	m.clamp()
	m.home += d
}

// ShiftCursor moves the selection by d rows and the view not at all, for
// rows inserted above while the top of the list is on screen: the new rows
// come into view and the same row stays selected.
func (m *Model) ShiftCursor(d int) {
	if m.filter.on() {
		i := m.Cursor()
		m.sync()
		m.cursor = m.pos(i + d)
		m.clamp()
		m.home += d
		return
	}
	m.cursor += d
	m.clamp()
	m.home += d
}

// Seek selects the next row (dir +1) or previous row (dir -1) for which
// match holds, and reports whether there was one.
func (m *Model) Seek(dir int, match func(i int) bool) bool {
	m.sync()
	for p := m.cursor + dir; p >= 0 && p < m.n(); p += dir {
		if i := m.row(p); match(i) {
			m.SetCursor(i)
			return true
		}
	}
	return false
}

// ScrollToTop shows row 0 at the top of the list.
func (m *Model) ScrollToTop() {
	m.offset = 0
	m.clamp()
}

func (m *Model) clamp() {
	n := m.n()
	m.cursor = min(max(m.cursor, 0), max(n-1, 0))
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+m.height {
		m.offset = m.cursor - m.height + 1
	}
	m.offset = max(min(m.offset, n-m.height), 0)
}

// Update moves the selection on navigation keys and the mouse wheel.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	m.sync()
	start := m.cursor
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.km.Up):
			m.cursor--
		case key.Matches(msg, m.km.Down):
			m.cursor++
		case key.Matches(msg, m.km.PageUp):
			m.cursor -= m.height
			m.offset -= m.height
		case key.Matches(msg, m.km.PageDown):
			m.cursor += m.height
			m.offset += m.height
		case key.Matches(msg, m.km.Top):
			m.cursor = 0
		case key.Matches(msg, m.km.Bottom):
			m.cursor = m.n() - 1
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.cursor -= 3
		case tea.MouseWheelDown:
			m.cursor += 3
		}
	case tea.MouseClickMsg:
		// Y is the line of the list clicked, 0 its first (the caller
		// makes it relative); a click below the last row does nothing.
		p, ok := m.clicked(msg.Y)
		if msg.Button != tea.MouseLeft || !ok {
			return m, nil
		}
		m.cursor = p
	}
	m.clamp()
	m.skipHeadings(m.cursor - start)
	if m.cursor != start {
		m.home = m.Cursor()
	}
	return m, nil
}

// clicked is the row drawn at line y of the list, the selected row's
// lines under it (frame) counting as it.
func (m Model) clicked(y int) (int, bool) {
	if y < 0 || y >= m.height {
		return 0, false
	}
	top, extra := m.frame()
	p := top + y
	if below := m.cursor - top; y > below {
		p = max(top+y-len(extra), m.cursor)
	}
	return p, p < m.n()
}

// skipHeadings moves the selection off a heading: on in the direction it
// moved (delta), else back.
func (m *Model) skipHeadings(delta int) {
	h, ok := m.src.(Headings)
	if !ok {
		return
	}
	dir := 1
	if delta < 0 {
		dir = -1
	}
	for _, d := range []int{dir, -dir} {
		for p := m.cursor; p >= 0 && p < m.n(); p += d {
			if !h.Heading(m.row(p)) {
				m.cursor = p
				m.clamp()
				return
			}
		}
	}
}

// View renders the visible rows, padded to the list's height, the
// selected row's lines under it (Expander).
func (m Model) View() string {
	top, extra := m.frame()
	n, rows := m.n(), m.src.Len()
	var b strings.Builder
	lines := 0
	for p := top; lines < m.height; p++ {
		if lines > 0 {
			b.WriteByte('\n')
		}
		lines++
		// A row past the source's end is one the filter kept before
		// the source shrank, and the view has not told the list yet.
		if p < n && (!m.filter.on() || m.filter.shown[p] < rows) {
			b.WriteString(m.src.Render(m.row(p), m.width, p == m.cursor))
		}
		if p == m.cursor {
			for _, l := range extra[:min(len(extra), m.height-lines)] {
				b.WriteString("\n" + l)
				lines++
			}
		}
	}
	return b.String()
}

// frame is the row on top as drawn, and the selected row's lines under
// it: the rows shown are measured (Measurer) and the selected row's rest
// asked for (Expander); when it would not fit below the rows above it,
// the top moves down so that it does. Only View and a click draw on it:
// the offset the keys move stays a row a line.
func (m Model) frame() (top int, extra []string) {
	top = m.offset
	m.measure(top)
	ex, ok := m.src.(Expander)
	if !ok || m.n() == 0 || m.height < 2 {
		return top, nil
	}
	// At most half the list: the rows about it stay in view (enter
	// shows the item in full).
	extra = ex.Expand(m.row(m.cursor), m.width, max(m.height/2, 1))
	if over := m.cursor - top + 1 + len(extra) - m.height; over > 0 {
		top = min(top+over, m.cursor)
		m.measure(top)
	}
	return top, extra
}

// measure tells a Measurer the rows shown from top.
func (m Model) measure(top int) {
	ms, ok := m.src.(Measurer)
	if !ok {
		return
	}
	n, rows := m.n(), m.src.Len()
	shown := make([]int, 0, m.height)
	for p := top; p < min(top+m.height, n); p++ {
		if !m.filter.on() || m.filter.shown[p] < rows {
			shown = append(shown, m.row(p))
		}
	}
	ms.Measure(shown, m.width)
}
