// Package others is the items view: the items of the account table that
// are neither accounts nor locks (what a single-table design keeps beside
// them: orders, sessions, settings), which no other view lists and the
// check counts as others. It reads nothing until it is first shown, then
// pages as the locks view does.
package others

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

// Backend is what the items view reads.
type Backend interface {
	OthersPage(ctx context.Context, from backend.Cursor, want int) (backend.ItemPage, error)
}

// ShowMsg asks the root to show the items view (its key, :items).
type ShowMsg struct{}

// reqID numbers reloads: an answer to a request made before one is dropped.
type reqID int

// PageMsg answers a page request.
type PageMsg struct {
	req  reqID
	page backend.ItemPage
	err  error
}

// Model is the items view.
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
	// followEnd: G keeps the selection on the last row as pages arrive.
	followEnd bool
	err       error
}

// New returns the items view, empty until Show.
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
	if !m.shown || m.loading || m.err != nil || m.next.Done() || len(m.src.items)-m.list.Cursor() >= ahead {
		return nil
	}
	m.loading = true
	ctx, b, req, from := m.ctx, m.backend, m.req, m.next
	return func() tea.Msg {
		page, err := b.OthersPage(ctx, from, ahead)
		return PageMsg{req: req, page: page, err: err}
	}
}

// Reload forgets every item and reads them again once shown.
func (m *Model) Reload() tea.Cmd {
	m.req++
	m.src.items, m.next, m.loading, m.err, m.followEnd = nil, backend.Cursor{}, false, nil, false
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
		m.src.items = append(m.src.items, msg.page.Items...)
		m.next = msg.page.Next
		if m.followEnd {
			m.list.SetCursor(m.src.Len() - 1)
		} else {
			m.list.SetCursor(m.list.Cursor())
		}
	case tea.KeyPressMsg:
		m.followEnd = false
		if key.Matches(msg, m.km.Enter) {
			return m, m.open()
		}
		m.list, _ = m.list.Update(msg)
		m.followEnd = key.Matches(msg, m.km.Bottom)
	case tea.MouseWheelMsg:
		m.list, _ = m.list.Update(msg)
		m.followEnd = false
	}
	return m, m.Prefetch()
}

// open asks for the detail of the selected item, read again now.
func (m Model) open() tea.Cmd {
	ref, ok := m.SelectedRef()
	if !ok {
		return nil
	}
	return events.Emit(detail.OpenMsg{Title: "item " + m.src.r.ItemKey(m.src.items[m.list.Cursor()]), Read: &ref,
		Render: func(it model.Item) []string {
			if it == nil {
				return []string{"this item no longer exists: it may have been deleted (r reloads)"}
			}
			return detail.ItemLines(it)
		}})
}

// SelectedRef is the key of the selected item, for the detail and the
// copy keys.
func (m Model) SelectedRef() (model.KeyRef, bool) {
	if m.list.Len() == 0 { // none loaded, or none the filter keeps
		return model.KeyRef{}, false
	}
	sc, it := m.src.r.Schema, m.src.items[m.list.Cursor()]
	return model.KeyRef{Table: sc.Table, Key: sc.KeyOf(sc.Table, it)}, true
}

// View renders the visible rows, or says there are none.
func (m Model) View() string {
	if m.src.Len() == 0 && m.next.Done() && !m.loading && m.err == nil {
		return m.src.r.Styles.Dim.Render("  no item of " + model.Printable(m.src.r.Schema.Table) + " is other than an account or a lock")
	}
	return m.list.View()
}

// Status says what is loaded.
func (m Model) Status() string {
	more := ""
	if !m.next.Done() {
		more = ", more below"
	}
	return rows.Where(m.list.Cursor(), m.src.Len()) + fmt.Sprintf("%s other items loaded (neither accounts nor locks)%s", rows.Count(int64(len(m.src.items))), more)
}

// Loading reports whether a page is being read.
func (m Model) Loading() bool { return m.loading }

// Done reports whether every page is loaded.
func (m Model) Done() bool { return m.next.Done() }

// Count is how many items are loaded.
func (m Model) Count() int { return len(m.src.items) }

// source is the items view's rows. It implements browser.Source.
type source struct {
	r     *rows.Renderer
	items []model.Item
}

func (d *source) Len() int { return len(d.items) }

func (d *source) Render(i, width int, selected bool) string {
	return d.r.Other(d.items[i], width, selected)
}
