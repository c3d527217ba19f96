// Package locks is the locks view: every lock item, from a scan of the
// lock prefixes or of the lock tables, with its owner and, once the check
// is done, its status. It owns its list, its paging, its loading state and
// its request id; it reads nothing until it is first shown.
package locks

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/lockdetail"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/write"
)

// Backend is what the locks view reads.
type Backend interface {
	LocksPage(ctx context.Context, from backend.Cursor, want int) (backend.LockPage, error)
	ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error
}

// reqID numbers reloads: an answer to a request made before one is dropped.
type reqID int

// PageMsg answers a page request.
type PageMsg struct {
	req  reqID
	page backend.LockPage
	err  error
}

// RefreshedMsg carries locks read again after a write: found holds those
// there, by items.LockKey; the others of refs are gone.
type RefreshedMsg struct {
	req   reqID
	refs  []model.KeyRef
	found map[string]model.Item
	err   error
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
	note      string  // what the last key could not do
	asked     tea.Msg // what the last key asks of the write dialog (Asked)
	err       error
	// reloading: a reload's first page is on its way; the locks shown
	// stay until it comes, and stay, stale, if it does not (stale is why;
	// resumed is where the paging stood before, to go on from there).
	reloading  bool
	stale      error
	staleLines []string // stale said in full, above the rows
	resumed    backend.Cursor
	w, h       int
}

// New returns the locks view, empty until Show.
func New(ctx context.Context, backend Backend, r *rows.Renderer, km KeyMap) Model {
	src := &source{r: r, items: items.New(r.Schema)}
	return Model{ctx: ctx, backend: backend, km: km, src: src, list: browser.New(km.KeyMap, src)}
}

// keys are the bindings as they work now: f needs a lock with a problem.
// They are asked several times a frame (the help line), so they judge by
// the lock's status alone; f itself finds the problem (SelectedProblem).
func (m Model) keys() KeyMap {
	km := m.km
	km.Fix.SetEnabled(km.Fix.Enabled() && m.selectedProblematic())
	km.Edit.SetEnabled(false)
	km.Delete.SetEnabled(false)
	return km
}

// Takes reports whether the selected lock takes b: f needs a problem.
func (m Model) Takes(b key.Binding) bool { return keymap.Offered(b, m.keys().Fix) }

// ShortHelp is the help line's part for this view.
func (m Model) ShortHelp() []key.Binding { return m.keys().ShortHelp() }

// FullHelp is the help screen's part for this view.
func (m Model) FullHelp() [][]key.Binding { return m.keys().FullHelp() }

// Asked returns what the last key asks of the write dialog (a fix; nil
// for none) and forgets it: the root opens the dialog in the same update.
func (m *Model) Asked() tea.Msg {
	a := m.asked
	m.asked = nil
	return a
}

// selectedProblematic reports whether the check judged the selected lock
// to have a problem, by its status.
func (m Model) selectedProblematic() bool {
	_, _, ok := m.selectedStatus()
	return ok
}

// selectedStatus is the selected lock and its status, where the check has
// judged it to have a problem.
func (m Model) selectedStatus() (model.Lock, model.LockStatus, bool) {
	if m.src.Len() == 0 || m.src.items.Report() == nil {
		return model.Lock{}, "", false
	}
	l := m.src.lock(m.list.Cursor())
	_, st := m.src.lockStatus(&l)
	_, kind := kindOf[st]
	return l, st, st.Problematic() && kind
}

// SelectedProblem is the problem the selected lock shows, once the check
// has judged it: an orphan, a foreign lock, a value held twice, an
// expired or expiring lock.
func (m Model) SelectedProblem() (model.Problem, bool) {
	l, st, ok := m.selectedStatus()
	if !ok {
		return model.Problem{}, false
	}
	for _, p := range m.src.items.Report().Problems {
		if p.ConstraintIndex() == l.Constraint && p.Value == l.Value && kindOf[st] == p.Kind {
			return p, true
		}
	}
	return model.Problem{}, false
}

// kindOf is the problem a lock's status says.
var kindOf = map[model.LockStatus]model.ProblemKind{
	model.LockOrphan: model.OrphanLock, model.LockForeign: model.ForeignLock, model.LockDuplicate: model.DuplicateValue,
	model.LockExpired: model.ExpiredLock, model.LockExpiring: model.ExpiringLock,
}

// whyNot says why f, e or d (k) does nothing on the selected lock.
func (m Model) whyNot(k tea.KeyPressMsg) string {
	one, many := m.src.r.Schema.Nouns()
	switch {
	case key.Matches(k, m.km.Edit):
		return k.String() + " renames " + article(one) + ", with its locks: in the " + many + " view"
	case key.Matches(k, m.km.Delete):
		return k.String() + " deletes " + article(one) + ", with its locks: in the " + many + " view"
	}
	if m.src.Len() == 0 {
		return "nothing to fix: no lock is loaded"
	}
	l := m.src.lock(m.list.Cursor())
	words, _ := m.src.lockStatus(&l)
	if m.src.items.Report() == nil {
		return "nothing to fix yet: the check has not judged this lock"
	}
	return "nothing to fix: this lock is " + words
}

// SetSize sets the view's size in cells.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.layout()
}

// layout says why the locks are stale above them, and gives the list the
// rest.
func (m *Model) layout() {
	m.staleLines = nil
	if m.stale != nil {
		m.staleLines = items.StaleLines(m.stale, m.w)
	}
	m.list.SetSize(m.w, max(m.h-len(m.staleLines), 1))
}

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
	return m.load()
}

// load asks for the page at m.next.
func (m *Model) load() tea.Cmd {
	m.loading = true
	ctx, b, req, from, ahead := m.ctx, m.backend, m.req, m.next, 3*m.list.Height()
	return func() tea.Msg {
		page, err := b.LocksPage(ctx, from, ahead)
		return PageMsg{req: req, page: page, err: err}
	}
}

// Reload reads every lock again once shown. The locks shown stay until
// the first page comes; if it does not, they stay, stale.
func (m *Model) Reload() tea.Cmd {
	m.req++
	if !m.shown {
		m.src.locks, m.next = nil, backend.Cursor{}
		return nil
	}
	if !m.reloading {
		m.resumed = m.next
	}
	m.reloading, m.next, m.err, m.followEnd = true, backend.Cursor{}, nil, false
	return m.load()
}

// RefreshFor reads again, consistently, the locks listed that name one of
// accounts ids as owner (a write to them may have released or handed
// them over; a lock they hold now is read with the accounts) and the
// locks at keys, which a write changed.
func (m Model) RefreshFor(ids []string, keys []model.KeyRef) tea.Cmd {
	refs := append(m.src.items.LocksOf(ids), keys...)
	if len(refs) == 0 {
		return nil
	}
	ctx, b, req, sc := m.ctx, m.backend, m.req, m.src.r.Schema
	return func() tea.Msg {
		msg := RefreshedMsg{req: req, refs: refs, found: map[string]model.Item{}}
		msg.err = b.ReadConsistent(ctx, refs, func(table string, it model.Item) {
			if e := (model.Classifier{Schema: sc}).Classify(table, it); e.Kind == model.EntryLock {
				_, key := sc.LockKeyAs(e.Constraint, e.Value, e.Alt)
				msg.found[items.LockKey(table, key)] = it
			}
		})
		return msg
	}
}

// Stale is why the locks are as last read and not as they are now (a
// reload failed), nil when they are not.
func (m Model) Stale() error { return m.stale }

// Err is what failed, if anything did.
func (m Model) Err() error { return m.err }

// Retry forgets the failure and asks for the page again.
func (m *Model) Retry() tea.Cmd {
	m.err = nil
	return m.Prefetch()
}

// SetReport gives each lock its status from a finished check's report r
// and its duplicate values dup.
func (m *Model) SetReport(r *model.Report, dup model.OthersHold) { m.src.items.SetReport(r, dup) }

// UseItems makes the view judge its locks by c, the item cache the other
// views share, instead of its own.
func (m *Model) UseItems(c *items.Cache) { m.src.items = c }

// DisableWrites turns off the key that asks for a write.
func (m *Model) DisableWrites() { m.km.Fix.SetEnabled(false) }

// Update handles pages and keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case PageMsg:
		if msg.req != m.req {
			return m, nil
		}
		m.loading = false
		if m.err = msg.err; m.err != nil {
			if m.reloading {
				m.reloading, m.next, m.stale = false, m.resumed, msg.err
				m.layout()
			}
			return m, nil
		}
		if m.reloading {
			m.reloading, m.stale, m.src.locks = false, nil, nil
			m.layout()
			m.list.SetCursor(0)
		}
		m.src.add(msg.page.Locks)
		m.next = msg.page.Next
		if m.followEnd {
			m.list.SetCursor(m.src.Len() - 1)
		} else {
			m.list.SetCursor(m.list.Cursor())
		}
	case RefreshedMsg:
		if msg.req != m.req {
			return m, nil
		}
		if m.err = msg.err; m.err != nil {
			return m, nil
		}
		for _, ref := range msg.refs {
			k := items.LockKey(ref.Table, ref.Key)
			m.src.items.ReadLock(k, msg.found[k])
		}
		return m, nil
	case tea.KeyPressMsg:
		m.note, m.followEnd = "", false
		switch {
		case key.Matches(msg, m.km.Enter):
			return m, m.open()
		case key.Matches(msg, m.km.Fix, m.km.Edit, m.km.Delete):
			// Matched as bound, not as help offers them: where they do not
			// act, the status says why.
			if p, ok := m.SelectedProblem(); ok && key.Matches(msg, m.km.Fix) {
				m.asked = write.FixMsg{Problem: p}
			} else {
				m.note = m.whyNot(msg)
			}
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

// open asks for the detail of the selected lock: the one a lock has
// wherever it is opened (lockdetail), as the account that holds it or as
// a lock nobody holds; read again now in any case, so that c and C copy
// it, with its TTL in words.
func (m Model) open() tea.Cmd {
	if m.list.Len() == 0 {
		return nil
	}
	l := m.src.lock(m.list.Cursor())
	if open, ok := m.src.detailOf(&l); ok {
		return events.Emit(open)
	}
	// Not judged yet, or its holder not read: what the row knows.
	words, _ := m.src.lockStatus(&l)
	now := m.src.items.JudgedAt()
	return events.Emit(detail.OpenMsg{Title: "lock " + m.src.r.ListedLockKey(&l) + "  (" + words + ")",
		Read: &model.KeyRef{Table: l.Table, Key: l.Key},
		Render: func(lock model.Item) []string {
			if lock == nil {
				return []string{"this lock no longer exists (r reloads)"}
			}
			lines := detail.ItemLines(lock)
			if l.ExpiresAt != 0 && now != 0 {
				lines = append(lines, "", model.TTLSaid(l.ExpiresAt, now)+".")
			}
			return lines
		}})
}

// detailOf is the detail of lock l as the check judged it: as an orphan,
// or as the account that holds it shows it (its lock row's); false before
// the check, or where that account has not been read.
func (d *source) detailOf(l *model.Lock) (detail.OpenMsg, bool) {
	sc := d.r.Schema
	holder := l.Owner
	_, st := d.lockStatus(l)
	if kind, ok := kindOf[st]; ok {
		for _, p := range d.items.Report().Problems {
			if p.ConstraintIndex() != l.Constraint || p.Value != l.Value || p.Kind != kind {
				continue
			}
			if p.Kind == model.OrphanLock || (p.Kind == model.ExpiredLock && len(p.Accounts) == 0) {
				return lockdetail.OfOrphan(sc, p, d.items.JudgedAt()), true
			}
			if len(p.Accounts) == 1 {
				holder = p.Accounts[0] // a foreign lock's holder is not its owner
			}
		}
	}
	a, ok := d.items.Account(holder)
	if !ok || l.Constraint >= len(a.Locks) || a.Locks[l.Constraint].Value == "" {
		return detail.OpenMsg{}, false
	}
	held := a.Locks[l.Constraint]
	if table, key := sc.LockKeyAs(l.Constraint, held.Value, held.Alt); table != l.Table || !maps.Equal(key, l.Key) {
		return detail.OpenMsg{}, false // the account holds another value: this lock is not its
	}
	return lockdetail.OfHolder(d.r, a, l.Constraint), true
}

// SelectedRef is the key of the selected lock, for the copy keys.
func (m Model) SelectedRef() (model.KeyRef, bool) {
	if m.list.Len() == 0 {
		return model.KeyRef{}, false
	}
	l := m.src.lock(m.list.Cursor())
	return model.KeyRef{Table: l.Table, Key: l.Key}, true
}

// View renders the visible rows, or says there are none.
func (m Model) View() string {
	if m.src.Len() == 0 && m.next.Done() && !m.loading && m.err == nil {
		return m.src.r.Styles.Dim.Render("  no locks")
	}
	var b strings.Builder
	for _, l := range m.staleLines {
		b.WriteString(m.src.r.Styles.Error.Render(l) + "\n")
	}
	return b.String() + m.list.View()
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

// source is the locks view's rows: every lock item, by its name in the
// item cache, which holds it as last read and judges it once the check is
// done. It implements browser.Source.
type source struct {
	r      *rows.Renderer
	items  *items.Cache
	locks  []string
	screen rows.Screen
}

func (d *source) Len() int { return len(d.locks) }

// lock is the lock of row i, as the cache holds it.
func (d *source) lock(i int) model.Lock { return d.items.Lock(d.locks[i]) }

// add lists a page of locks, kept in the cache.
func (d *source) add(page []model.Lock) {
	for _, l := range page {
		d.locks = append(d.locks, d.items.PutLock(l))
	}
}

// lockStatus is a lock's status in words: "checking" until the check is done.
func (d *source) lockStatus(l *model.Lock) (string, model.LockStatus) { return d.items.LockStatus(l) }

// cells are row i's parts.
func (d *source) cells(i int) (rows.Cells, bool) {
	l := d.lock(i)
	words, st := d.lockStatus(&l)
	return d.r.LockItemCells(&l, words, st, d.items.JudgedAt()), true
}

// Measure lays out the rows about to be shown together (browser.Measurer).
func (d *source) Measure(shown []int, width int) { d.screen.Measure(shown, width, d.cells) }

func (d *source) Render(i, width int, selected bool) string {
	l, measured := d.screen.Layout(width)
	c, ok := d.screen.Cells(i)
	if !ok {
		c, _ = d.cells(i)
	}
	if !measured {
		l = rows.Measure([]rows.Cells{c}, width)
	}
	return d.r.Line(c, l, selected)
}

func (d *source) problematic(i int) bool {
	l := d.lock(i)
	_, st := d.lockStatus(&l)
	return st.Problematic()
}

// article puts a or an before a noun.
func article(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
