// Package locks is the locks view: every lock item, from a scan of the
// lock prefixes or of the lock tables, with its owner and, once the check
// is done, its status. It owns its list, its paging, its loading state and
// its request id; it reads nothing until it is first shown.
package locks

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/rows"
)

// Backend is what the locks view reads.
type Backend interface {
	LocksPage(ctx context.Context, from backend.Cursor, want int) (backend.LockPage, error)
}

// reqID numbers reloads: an answer to a request made before one is dropped.
type reqID int

// PageMsg answers a page request.
type PageMsg struct {
	req  reqID
	page backend.LockPage
	err  error
}

// Model is the locks view.
type Model struct {
	ctx     context.Context
	backend Backend
	km      KeyMap
	src     *source
	list    browser.Model
	next    backend.Cursor
	req     reqID
	shown   bool // the view was shown: it keeps its pages loaded
	loading bool
	// followEnd: G keeps the selection on the last row as pages arrive,
	// so that one press reads to the end, as in the accounts view.
	followEnd bool
	note      string // what the last key could not do
	err       error
}

// New returns the locks view, empty until Show.
func New(ctx context.Context, backend Backend, r *rows.Renderer, km KeyMap) Model {
	src := &source{r: r}
	return Model{ctx: ctx, backend: backend, km: km, src: src, list: browser.New(km.KeyMap, src)}
}

// ShortHelp is the help line's part for this view.
func (m Model) ShortHelp() []key.Binding { return m.km.ShortHelp() }

// FullHelp is the help screen's part for this view.
func (m Model) FullHelp() [][]key.Binding { return m.km.FullHelp() }

// SetSize sets the list's size in cells.
func (m *Model) SetSize(w, h int) { m.list.SetSize(w, h) }

// Show marks the view shown: from now on its pages load.
func (m *Model) Show() tea.Cmd {
	m.shown = true
	return m.Prefetch()
}

// Prefetch asks for the next page when fewer than a few screens of rows
// are loaded below the selection.
func (m *Model) Prefetch() tea.Cmd {
	ahead := 3 * m.list.Height()
	if !m.shown || m.loading || m.next.Done() || len(m.src.locks)-m.list.Cursor() >= ahead {
		return nil
	}
	m.loading = true
	ctx, b, req, from := m.ctx, m.backend, m.req, m.next
	return func() tea.Msg {
		page, err := b.LocksPage(ctx, from, ahead)
		return PageMsg{req: req, page: page, err: err}
	}
}

// Reload forgets every lock and reads them again once shown.
func (m *Model) Reload() tea.Cmd {
	m.req++
	m.src.locks, m.next, m.loading, m.err, m.followEnd = nil, backend.Cursor{}, false, nil, false
	m.list.SetCursor(0)
	return m.Prefetch()
}

// Err is what failed, if anything did.
func (m Model) Err() error { return m.err }

// Retry forgets the failure and asks for the page again.
func (m *Model) Retry() tea.Cmd {
	m.err = nil
	return m.Prefetch()
}

// SetReport gives each lock its status from a finished check's report r
// and its duplicate values dup.
func (m *Model) SetReport(r *model.Report, dup model.OthersHold) { m.src.setReport(r, dup) }

// Update handles pages and keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case PageMsg:
		if msg.req != m.req {
			return m, nil
		}
		m.loading = false
		if m.err = msg.err; m.err != nil {
			return m, nil
		}
		m.src.locks = append(m.src.locks, msg.page.Locks...)
		m.next = msg.page.Next
		if m.followEnd {
			m.list.SetCursor(m.src.Len() - 1)
		} else {
			m.list.SetCursor(m.list.Cursor())
		}
	case tea.KeyPressMsg:
		m.note, m.followEnd = "", false
		switch {
		case key.Matches(msg, m.km.Enter):
			return m, m.open()
		case key.Matches(msg, m.km.NextProblem, m.km.PrevProblem):
			dir := 1
			if key.Matches(msg, m.km.PrevProblem) {
				dir = -1
			}
			if !m.list.Seek(dir, m.src.problematic) {
				m.note = "no further problem among the rows loaded"
			}
		default:
			m.list, _ = m.list.Update(msg)
			m.followEnd = key.Matches(msg, m.km.Bottom)
		}
	case tea.MouseWheelMsg, tea.MouseClickMsg:
		m.list, _ = m.list.Update(msg)
		m.followEnd = false
	}
	return m, m.Prefetch()
}

// open asks for the detail of the selected lock, as listed.
func (m Model) open() tea.Cmd {
	if m.list.Len() == 0 {
		return nil
	}
	l := m.src.locks[m.list.Cursor()]
	words, _ := m.src.lockStatus(&l)
	return events.Emit(detail.OpenMsg{Title: "lock " + m.src.r.LockKey(l.Constraint, l.Value) + "  (" + words + ")",
		Render: func(model.Item) []string { return detail.ItemLines(l.Item) }})
}

// SelectedRef is the key of the selected lock, for the copy keys.
func (m Model) SelectedRef() (model.KeyRef, bool) {
	if m.list.Len() == 0 {
		return model.KeyRef{}, false
	}
	l := m.src.locks[m.list.Cursor()]
	return model.KeyRef{Table: l.Table, Key: l.Key}, true
}

// View renders the visible rows, or says there are none.
func (m Model) View() string {
	if m.src.Len() == 0 && m.next.Done() && !m.loading && m.err == nil {
		return m.src.r.Styles.Dim.Render("  no locks")
	}
	return m.list.View()
}

// Status says what is loaded, or what the last key could not do.
func (m Model) Status() string {
	if m.note != "" {
		return m.note
	}
	more := ""
	if !m.next.Done() {
		more = ", more below"
	}
	kept, of := m.list.Matched()
	return rows.Where(m.list.Pos(), m.list.Len()) + rows.Filtered(m.list.Filter(), kept, of) +
		fmt.Sprintf("%s locks loaded%s", rows.Count(int64(len(m.src.locks))), more)
}

// SetFilter shows only the locks that contain q
// (browser.Model.SetFilter); "" shows them all.
func (m *Model) SetFilter(q string) { m.list.SetFilter(q) }

// Filter is the filter in force, "" for none.
func (m Model) Filter() string { return m.list.Filter() }

// Matched is how many locks the filter keeps, of how many.
func (m Model) Matched() (kept, of int) { return m.list.Matched() }

// Loading reports whether a page is being read.
func (m Model) Loading() bool { return m.loading }

// Shown reports whether the view was ever shown (and so reads its pages).
func (m Model) Shown() bool { return m.shown }

// Done reports whether every page is loaded.
func (m Model) Done() bool { return m.next.Done() }

// Count is how many locks are loaded.
func (m Model) Count() int { return len(m.src.locks) }

// source is the locks view's rows: every lock item, with its status once
// the check knows it. It implements browser.Source.
type source struct {
	r      *rows.Renderer
	locks  []model.Lock
	report *model.Report
	// status of (constraint, raw value) from the report: orphan or foreign.
	status map[lockID]model.LockStatus
	dup    model.OthersHold // the values two or more accounts hold
}

type lockID struct {
	ci    int
	value string
}

func (d *source) Len() int { return len(d.locks) }

// setReport indexes a check's report by lock.
func (d *source) setReport(r *model.Report, dup model.OthersHold) {
	d.report, d.dup = r, dup
	d.status = map[lockID]model.LockStatus{}
	for _, p := range r.Problems {
		switch p.Kind {
		case model.OrphanLock:
			d.status[lockID{p.ConstraintIndex(), p.Value}] = model.LockOrphan
		case model.ForeignLock:
			d.status[lockID{p.ConstraintIndex(), p.Value}] = model.LockForeign
		}
	}
}

// lockStatus is a lock's status in words: "checking" until the check is done.
func (d *source) lockStatus(l *model.Lock) (string, model.LockStatus) {
	if d.report == nil {
		return "checking", model.LockNone
	}
	if s, ok := d.status[lockID{l.Constraint, l.Value}]; ok {
		return string(s), s
	}
	if d.dup(l.Constraint, l.Value) {
		// The lock is sound, but the value it guards is held twice: the
		// accounts view calls it so too.
		return string(model.LockDuplicate), model.LockDuplicate
	}
	return string(model.LockOK), model.LockOK
}

func (d *source) Render(i, width int, selected bool) string {
	l := &d.locks[i]
	words, st := d.lockStatus(l)
	return d.r.LockItem(l, words, st, width, selected)
}

func (d *source) problematic(i int) bool {
	_, st := d.lockStatus(&d.locks[i])
	return st.Problematic()
}
