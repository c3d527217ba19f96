// Package others is the items view: the items of the account table that
// are neither accounts nor locks (what a single-table design keeps beside
// them: orders, sessions, settings), which no other view lists and the
// check counts as others. It reads nothing until it is first shown, then
// pages as the locks view does (ui/pager).
package others

import (
	"context"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/pager"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/sorting"
)

// Backend is what the items view reads.
type Backend interface {
	OthersPage(ctx context.Context, from backend.Cursor, want int) (backend.ItemPage, error)
	ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error
}

// ShowMsg asks the root to show the items view (its key, :items).
type ShowMsg struct{}

// PageMsg answers a page request.
type PageMsg = pager.PageMsg[model.Item]

// RefreshedMsg carries the items read again (RefreshFor), by their name
// in the item cache.
type RefreshedMsg struct {
	req   pager.Request
	found []model.Item
	err   error
}

// Model is the items view. It keeps the items it reads in the item
// cache, and lists their names there.
type Model struct {
	ctx     context.Context
	backend Backend
	km      KeyMap
	r       *rows.Renderer
	items   *items.Cache
	pager   pager.Model[model.Item, string]
	note    string // what the last key said
	// Sort is the order the items loaded are shown in, as the view's keys
	// set it (the header says it): read it, the keys change it.
	Sort *sorting.Order
}

// New returns the items view, empty until Show, keeping what it reads
// in c.
func New(ctx context.Context, b Backend, r *rows.Renderer, c *items.Cache, km KeyMap) Model {
	read := func(ctx context.Context, from backend.Cursor, want int) (pager.Page[model.Item], error) {
		page, err := b.OthersPage(ctx, from, want)
		return pager.Page[model.Item]{Rows: page.Items, Next: page.Next}, err
	}
	lk := &look{r: r, items: c, sort: sorting.New("key")}
	return Model{ctx: ctx, backend: b, km: km, r: r, items: c, Sort: &lk.sort,
		pager: pager.New(ctx, read, pager.Look[model.Item, string](lk), r, km.KeyMap)}
}

// ShortHelp is the help line's part for this view.
func (m Model) ShortHelp() []key.Binding { return m.km.ShortHelp() }

// FullHelp is the help screen's part for this view.
func (m Model) FullHelp() [][]key.Binding { return m.km.FullHelp() }

// SetSize sets the view's size in cells.
func (m *Model) SetSize(w, h int) { m.pager.SetSize(w, h) }

// Show marks the view shown: from now on its pages load.
func (m *Model) Show() tea.Cmd { return m.pager.Show() }

// Prefetch asks for the next page when fewer than a few screens of rows
// are loaded below the selection.
func (m *Model) Prefetch() tea.Cmd { return m.pager.Prefetch() }

// Reload reads every item again once shown; the items shown stay until
// the first page comes, and stay, stale, if it does not.
func (m *Model) Reload() tea.Cmd { return m.pager.Reload() }

// Err is what failed, if anything did.
func (m Model) Err() error { return m.pager.Paging().Err() }

// Stale is why the items are as last read (a reload failed), nil when
// they are not.
func (m Model) Stale() error { return m.pager.Paging().Stale() }

// Retry forgets the failure and redoes what failed.
func (m *Model) Retry() tea.Cmd { return m.pager.Retry() }

// OnScreen lists the keys of the items about the selection, as many
// either side as rows fit the list (n): what is on screen, for polling
// (RefreshFor reads them).
func (m *Model) OnScreen(n int) []model.KeyRef {
	var refs []model.KeyRef
	for _, k := range pager.Around(&m.pager, n) {
		refs = append(refs, m.ref(m.items.Item(k)))
	}
	return refs
}

// RefreshFor reads the items at refs again, consistently; the cache
// keeps what it finds, which every view shows. An item found gone stays
// as last read until the items are read again (r).
func (m Model) RefreshFor(refs []model.KeyRef) tea.Cmd {
	if len(refs) == 0 {
		return nil
	}
	ctx, b, req := m.ctx, m.backend, m.pager.Paging().Request()
	return func() tea.Msg {
		msg := RefreshedMsg{req: req}
		msg.err = b.ReadConsistent(ctx, refs, func(_ string, it model.Item) { msg.found = append(msg.found, it) })
		return msg
	}
}

// Update handles pages, items read again, and keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if r, ok := msg.(RefreshedMsg); ok {
		if r.req == m.pager.Paging().Request() {
			for _, it := range r.found {
				m.items.PutItem(it)
			}
		}
		return m, nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if ok {
		m.note = ""
	}
	switch {
	case ok && key.Matches(k, m.km.Enter):
		return m, m.open()
	case ok && key.Matches(k, m.km.Sort, m.km.Reverse):
		m.note = m.Sort.Step(key.Matches(k, m.km.Reverse))
		pager.Reorder(&m.pager, true)
		return m, nil
	}
	var cmd tea.Cmd
	m.pager, cmd = m.pager.Update(msg)
	return m, cmd
}

// open asks for the detail of the selected item, read again now.
func (m Model) open() tea.Cmd {
	k, ok := m.pager.Selected()
	if !ok {
		return nil
	}
	it := m.items.Item(k)
	ref := m.ref(it)
	return events.Emit(detail.OpenMsg{Title: "item " + m.r.ItemKey(it), Read: &ref,
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
	k, ok := m.pager.Selected() // none loaded, or none the filter keeps
	if !ok {
		return model.KeyRef{}, false
	}
	return m.ref(m.items.Item(k)), true
}

func (m Model) ref(it model.Item) model.KeyRef {
	sc := m.r.Schema
	return model.KeyRef{Table: sc.Table, Key: sc.KeyOf(sc.Table, it)}
}

// View renders the visible rows, or says there are none.
func (m Model) View() string { return m.pager.View() }

// Status says what is loaded.
func (m Model) Status() string {
	if m.note != "" {
		return m.note
	}
	return m.pager.Status("other items loaded (neither accounts nor locks)")
}

// Loading reports whether a page is being read.
func (m Model) Loading() bool { return m.pager.Paging().Loading() }

// Done reports whether every page is loaded.
func (m Model) Done() bool { return m.pager.Paging().Done() }

// Count is how many items are loaded.
func (m Model) Count() int { return m.pager.Count() }

// look is how an item of the view looks (pager.Look): its key and its
// attributes, in columns with the items around it. The list keeps the
// items' names in the cache.
type look struct {
	r      *rows.Renderer
	items  *items.Cache
	sort   sorting.Order // by key (pager.Order)
	sorted sorting.Sorted[string]
	shown  []string // the names as sorted
}

// Sort orders the items named by their key as the row shows it
// (pager.Order).
func (l *look) Sort(read []string, from int) ([]string, bool) {
	key := func(k string) sorting.Key { return sorting.Text(l.r.ItemKey(l.items.Item(k))) }
	switch _, sorted := l.sort.By(); {
	case !sorted:
		return read, false
	case from == 0:
		l.sorted.Set(read, key, l.sort.Descending())
	default:
		l.sorted.Add(read[from:], key)
	}
	l.shown = l.sorted.Rows(l.shown[:0])
	return l.shown, true
}

func (l look) Keep(dst []string, it model.Item) []string { return append(dst, l.items.PutItem(it)) }

func (l look) Cells(k string) rows.Cells { return l.r.OtherCells(l.items.Item(k)) }

func (l look) Empty() string {
	return "no item of " + model.Printable(l.r.Schema.Table) + " is other than an account or a lock"
}

var _ pager.Look[model.Item, string] = look{}
var _ pager.Order[string] = (*look)(nil)

// Screen is the view's layout of its rows: the columns hidden, and those
// its rows show. It is not a method, so that Model exports no more.
func Screen(m *Model) *rows.Screen { return pager.Screen(&m.pager) }
