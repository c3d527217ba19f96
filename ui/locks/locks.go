// Package locks is the locks view: every lock item, from a scan of the
// lock prefixes or of the lock tables, with its owner and, once the check
// is done, its status. It owns its list, its paging, its loading state and
// its request id; it reads nothing until it is first shown.
package locks

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/batch"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/lockdetail"
	"github.com/locktable/locktable/ui/pager"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/sorting"
	"github.com/locktable/locktable/ui/write"
)

// Backend is what the locks view reads.
type Backend interface {
	LocksPage(ctx context.Context, from backend.Cursor, want int) (backend.LockPage, error)
	ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error
}

// PageMsg answers a page request.
type PageMsg = pager.PageMsg[model.Lock]

// RefreshedMsg carries locks read again after a write: found holds those
// there, by items.LockKey; the others of refs are gone.
type RefreshedMsg struct {
	req   pager.Request
	refs  []model.KeyRef
	found map[string]model.Item
	err   error
}

// Model is the locks view.
type Model struct {
	ctx     context.Context
	backend Backend
	km      KeyMap
	look    *look
	pager   pager.Model[model.Lock, string]
	note    string  // what the last key could not do
	asked   tea.Msg // what the last key asks of the write dialog (Asked)
	err     error   // what reading locks again after a write failed with
	// Sort is the order the locks loaded are shown in, as the view's keys
	// set it (the header says it): read it, the keys change it.
	Sort *sorting.Order
}

// New returns the locks view, empty until Show.
func New(ctx context.Context, b Backend, r *rows.Renderer, c *items.Cache, km KeyMap) Model {
	lk := &look{r: r, items: c, marked: map[string]bool{}, sort: sorting.New("key", "owner", "expiry")}
	read := func(ctx context.Context, from backend.Cursor, want int) (pager.Page[model.Lock], error) {
		page, err := b.LocksPage(ctx, from, want)
		return pager.Page[model.Lock]{Rows: page.Locks, Next: page.Next}, err
	}
	return Model{ctx: ctx, backend: b, km: km, look: lk, Sort: &lk.sort, pager: pager.New(ctx, read, pager.Look[model.Lock, string](lk), r, km.KeyMap)}
}

// keys are the bindings as they work now: f needs a lock with a problem.
// They are asked several times a frame (the help line), so they judge by
// the lock's status alone; f itself finds the problem (SelectedProblem).
func (m Model) keys() KeyMap {
	km := m.km
	km.Fix.SetEnabled(km.Fix.Enabled() && m.selectedProblematic())
	km.Mark.SetEnabled(m.selectedProblematic())
	km.MarkAll.SetEnabled(m.look.items.Report() != nil && m.pager.Count() > 0)
	km.FixMarked.SetEnabled(km.FixMarked.Enabled() && len(m.look.marked) > 0)
	km.Edit.SetEnabled(false)
	km.Delete.SetEnabled(false)
	return km
}

// Takes reports whether the selected lock takes b: f needs a problem.
func (m Model) Takes(b key.Binding) bool {
	km := m.keys()
	return keymap.Offered(b, km.Fix, km.FixMarked)
}

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
	name, ok := m.pager.Selected()
	if !ok || m.look.items.Report() == nil {
		return model.Lock{}, "", false
	}
	l := m.look.items.Lock(name)
	_, st := m.look.items.LockStatus(&l)
	_, kind := kindOf[st]
	return l, st, st.Problematic() && kind
}

// SelectedProblem is the problem the selected lock shows, once the check
// has judged it: an orphan, a foreign lock, a value held twice, an
// expired or expiring lock.
func (m Model) SelectedProblem() (model.Problem, bool) {
	name, ok := m.pager.Selected()
	if !ok {
		return model.Problem{}, false
	}
	return m.look.problemOf(name)
}

// problemOf is the problem the lock named shows, once the check has
// judged it (see SelectedProblem).
func (d *look) problemOf(name string) (model.Problem, bool) {
	if d.items.Report() == nil {
		return model.Problem{}, false
	}
	l := d.items.Lock(name)
	_, st := d.items.LockStatus(&l)
	if _, kind := kindOf[st]; !st.Problematic() || !kind {
		return model.Problem{}, false
	}
	for _, p := range d.items.Report().Problems {
		if p.ConstraintIndex() == l.Constraint && p.Value == l.Value && kindOf[st] == p.Kind {
			return p, true
		}
	}
	return model.Problem{}, false
}

// marked are the problems of the marked locks, in the order of the
// locks' names (items.LockKey); a marked lock the check no longer finds a problem on is
// left out.
func (m Model) marked() []model.Problem {
	var ps []model.Problem
	seen := map[string]bool{}
	for _, name := range m.look.markedNames() {
		if p, ok := m.look.problemOf(name); ok && !seen[p.Identity()] {
			seen[p.Identity()] = true
			ps = append(ps, p)
		}
	}
	return ps
}

// markedNames are the marked locks, in the order of their names.
func (d *look) markedNames() []string {
	var names []string
	for name := range d.marked {
		names = append(names, name)
	}
	slices.Sort(names) // a listing order that does not hang on the map's
	return names
}

// unmark unmarks the locks of the problems of ps (a batch sent their
// repairs).
func (m *Model) unmark(ps []model.Problem) {
	sent := map[string]bool{}
	for _, p := range ps {
		sent[strconv.Itoa(p.ConstraintIndex())+"\x00"+p.Value] = true
	}
	for name := range m.look.marked {
		l := m.look.items.Lock(name)
		if sent[strconv.Itoa(l.Constraint)+"\x00"+l.Value] {
			delete(m.look.marked, name)
		}
	}
}

// mark marks the selected lock, or unmarks it; a lock without a problem
// is not marked, and the status says why.
func (m *Model) mark(k tea.KeyPressMsg) {
	name, ok := m.pager.Selected()
	switch {
	case ok && m.look.marked[name]:
		delete(m.look.marked, name)
	case ok && m.selectedProblematic():
		m.look.marked[name] = true
	default:
		m.note = strings.Replace(m.whyNot(k), "nothing to fix", "nothing to mark", 1)
	}
}

// markAll marks every lock with a problem the list shows (under the
// filter, if any), or unmarks them when they are all marked already.
func (m *Model) markAll() {
	var shown []string
	all := true
	for _, name := range m.pager.ShownRows() {
		if _, ok := m.look.problemOf(name); ok {
			shown = append(shown, name)
			all = all && m.look.marked[name]
		}
	}
	if len(shown) == 0 {
		m.note = "no lock shown has a problem to mark"
	}
	for _, name := range shown {
		if all {
			delete(m.look.marked, name)
		} else {
			m.look.marked[name] = true
		}
	}
}

// kindOf is the problem a lock's status says.
var kindOf = map[model.LockStatus]model.ProblemKind{
	model.LockOrphan: model.OrphanLock, model.LockForeign: model.ForeignLock, model.LockDuplicate: model.DuplicateValue,
	model.LockExpired: model.ExpiredLock, model.LockExpiring: model.ExpiringLock,
}

// whyNot says why f, e or d (k) does nothing on the selected lock.
func (m Model) whyNot(k tea.KeyPressMsg) string {
	one, many := m.look.r.Schema.Nouns()
	switch {
	case key.Matches(k, m.km.Edit):
		return k.String() + " renames " + article(one) + ", with its locks: in the " + many + " view"
	case key.Matches(k, m.km.Delete):
		return k.String() + " deletes " + article(one) + ", with its locks: in the " + many + " view"
	}
	name, ok := m.pager.Selected()
	if !ok {
		return "nothing to fix: no lock is loaded"
	}
	l := m.look.items.Lock(name)
	words, _ := m.look.items.LockStatus(&l)
	if m.look.items.Report() == nil {
		return "nothing to fix yet: the check has not judged this lock"
	}
	return "nothing to fix: this lock is " + words
}

// SetSize sets the view's size in cells.
func (m *Model) SetSize(w, h int) { m.pager.SetSize(w, h) }

// Show marks the view shown: from now on its pages load.
func (m *Model) Show() tea.Cmd { return m.pager.Show() }

// Prefetch asks for the next page when fewer than a few screens of rows
// are loaded below the selection.
func (m *Model) Prefetch() tea.Cmd { return m.pager.Prefetch() }

// Reload reads every lock again once shown. The locks shown stay until
// the first page comes; if it does not, they stay, stale.
func (m *Model) Reload() tea.Cmd {
	m.err = nil
	return m.pager.Reload()
}

// RefreshFor reads again, consistently, the locks listed that name one of
// accounts ids as owner (a write to them may have released or handed
// them over; a lock they hold now is read with the accounts) and the
// locks at keys, which a write changed.
func (m Model) RefreshFor(ids []string, keys []model.KeyRef) tea.Cmd {
	refs := append(m.look.items.LocksOf(ids), keys...)
	if len(refs) == 0 {
		return nil
	}
	ctx, b, req, sc := m.ctx, m.backend, m.pager.Paging().Request(), m.look.r.Schema
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

// OnScreen lists the locks about the selection, as many either side as
// rows fit the list (n), and their owners: what is on screen, for
// polling (RefreshFor reads them).
func (m *Model) OnScreen(n int) (refs []model.KeyRef, owners []string) {
	for _, name := range pager.Around(&m.pager, n) {
		l := m.look.items.Lock(name)
		refs = append(refs, model.KeyRef{Table: l.Table, Key: l.Key})
		if l.Owner != "" && !slices.Contains(owners, l.Owner) {
			owners = append(owners, l.Owner)
		}
	}
	return refs, owners
}

// Paging is where the reads of locks stand: whether the view was ever
// shown (and so reads its pages), and why the locks are as last read and
// not as they are now (a reload failed), among the rest.
func (m Model) Paging() pager.Paging { return m.pager.Paging() }

// Err is what failed, if anything did: a page, or the locks read again
// after a write.
func (m Model) Err() error {
	if err := m.pager.Paging().Err(); err != nil {
		return err
	}
	return m.err
}

// Retry forgets the failure and redoes what failed: the page, or the
// reload (the locks read again after a write are read with it).
func (m *Model) Retry() tea.Cmd {
	if m.pager.Paging().Err() != nil {
		return m.pager.Retry()
	}
	if m.err != nil {
		return m.Reload()
	}
	return nil
}

// DisableWrites turns off the keys that ask for a write.
func (m *Model) DisableWrites() {
	m.km.Fix.SetEnabled(false)
	m.km.FixMarked.SetEnabled(false)
}

// Update handles pages and keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case batch.SettledMsg:
		m.unmark(msg.Sent) // what was not sent stays marked
		return m, nil
	case RefreshedMsg:
		m.onRefreshed(msg)
		return m, nil
	case tea.KeyPressMsg:
		m.note = ""
		switch {
		case key.Matches(msg, m.km.Enter):
			return m, m.open()
		case key.Matches(msg, m.km.Sort, m.km.Reverse):
			m.sortBy(msg)
			return m, nil
		case key.Matches(msg, m.km.Mark):
			m.mark(msg)
			return m, nil
		case key.Matches(msg, m.km.MarkAll):
			m.markAll()
			return m, nil
		case key.Matches(msg, m.km.FixMarked) && m.km.FixMarked.Enabled():
			if marked := m.marked(); len(marked) > 0 {
				m.asked = batch.FixMsg{Problems: marked}
			} else {
				m.note = "nothing marked to fix: " + m.km.Mark.Help().Key + " marks a lock with a problem, " + m.km.MarkAll.Help().Key + " every one shown"
			}
			return m, nil
		case key.Matches(msg, m.km.Fix, m.km.Edit, m.km.Delete):
			// Matched as bound, not as help offers them: where they do not
			// act, the status says why.
			if p, ok := m.SelectedProblem(); ok && key.Matches(msg, m.km.Fix) {
				m.asked = write.FixMsg{Problem: p}
			} else {
				m.note = m.whyNot(msg)
			}
			return m, nil
		case key.Matches(msg, m.km.NextProblem, m.km.PrevProblem):
			dir := 1
			if key.Matches(msg, m.km.PrevProblem) {
				dir = -1
			}
			if !m.pager.Seek(dir, m.look.problematic) {
				m.note = "no further problem among the rows loaded"
			}
			return m, m.pager.Prefetch()
		}
	}
	var cmd tea.Cmd
	m.pager, cmd = m.pager.Update(msg)
	return m, cmd
}

// onRefreshed takes the locks read again after a write into the cache,
// unless they answer a request made before a reload.
func (m *Model) onRefreshed(msg RefreshedMsg) {
	if msg.req != m.pager.Paging().Request() {
		return
	}
	if m.err = msg.err; m.err != nil {
		return
	}
	names := make([]string, len(msg.refs))
	for i, ref := range msg.refs {
		names[i] = items.LockKey(ref.Table, ref.Key)
		m.look.items.ReadLock(names[i], msg.found[names[i]])
	}
	// An owner or a TTL read again may move its lock.
	if by, sorted := m.look.sort.By(); sorted && m.look.sorted.Rekey(names, m.look.sortKey(by)) {
		pager.Reorder(&m.pager, false)
	}
}

// sortBy steps the sort (k: the sort key or the reverse key) and shows
// the locks in its order, the selection staying on its lock.
func (m *Model) sortBy(k tea.KeyPressMsg) {
	m.note = m.look.sort.Step(key.Matches(k, m.km.Reverse))
	pager.Reorder(&m.pager, true)
}

// open asks for the detail of the selected lock: the one a lock has
// wherever it is opened (lockdetail), as the account that holds it or as
// a lock nobody holds; read again now in any case, so that c and C copy
// it, with its TTL in words.
func (m Model) open() tea.Cmd {
	name, ok := m.pager.Selected()
	if !ok {
		return nil
	}
	l := m.look.items.Lock(name)
	if open, ok := m.look.detailOf(&l); ok {
		return events.Emit(open)
	}
	// Not judged yet, or its holder not read: what the row knows.
	words, _ := m.look.items.LockStatus(&l)
	now := m.look.items.JudgedAt()
	return events.Emit(detail.OpenMsg{Title: "lock " + m.look.r.ListedLockKey(&l) + "  (" + words + ")",
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
func (d *look) detailOf(l *model.Lock) (detail.OpenMsg, bool) {
	sc := d.r.Schema
	holder := l.Owner
	_, st := d.items.LockStatus(l)
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
	name, ok := m.pager.Selected()
	if !ok {
		return model.KeyRef{}, false
	}
	l := m.look.items.Lock(name)
	return model.KeyRef{Table: l.Table, Key: l.Key}, true
}

// View renders the visible rows, or says there are none.
func (m Model) View() string { return m.pager.View() }

// Status says what is loaded, or what the last key could not do.
func (m Model) Status() string {
	if m.note != "" {
		return m.note
	}
	if n := len(m.look.marked); n > 0 {
		return m.pager.Status("locks loaded") + " · " + batch.Marked(n, m.marked(), m.km.FixMarked.Help().Key)
	}
	return m.pager.Status("locks loaded")
}

// SetFilter shows only the locks that contain q
// (browser.Model.SetFilter); "" shows them all.
func (m *Model) SetFilter(q string) { m.pager.SetFilter(q) }

// Filter is the filter in force, "" for none.
func (m Model) Filter() string { return m.pager.Filter() }

// Matched is how many locks the filter keeps, of how many.
func (m Model) Matched() (kept, of int) { return m.pager.Matched() }

// Loading reports whether a page is being read.
func (m Model) Loading() bool { return m.pager.Paging().Loading() }

// Count is how many locks are loaded.
func (m Model) Count() int { return m.pager.Count() }

// look is how a lock of the view looks (pager.Look): a row names a lock
// in the item cache, which holds it as last read and judges it once the
// check is done.
type look struct {
	r     *rows.Renderer
	items *items.Cache
	// marked are the marked locks, by name: they outlive paging, the
	// filter and a reload that lists them again.
	marked map[string]bool
	sort   sorting.Order // key, owner or expiry (pager.Order)
	sorted sorting.Sorted[string]
	shown  []string // the names as sorted
}

// Sort orders the locks named by the column chosen (pager.Order).
func (l *look) Sort(read []string, from int) ([]string, bool) {
	by, sorted := l.sort.By()
	switch {
	case !sorted:
		return read, false
	case from == 0:
		l.sorted.Set(read, l.sortKey(by), l.sort.Descending())
	default:
		l.sorted.Add(read[from:], l.sortKey(by))
	}
	l.shown = l.sorted.Rows(l.shown[:0])
	return l.shown, true
}

// sortKey is what a lock is sorted by in column by: its key as the row
// shows it, its owner as stored, its TTL as a number; none for a lock
// with no owner or no TTL, last.
func (l *look) sortKey(by int) func(name string) sorting.Key {
	return func(name string) sorting.Key {
		lock := l.items.Lock(name)
		switch {
		case by == 0:
			return sorting.Text(l.r.ListedLockKey(&lock))
		case by == 1 && lock.Owner != "":
			return sorting.Text(lock.Owner)
		case by == 2 && lock.ExpiresAt != 0:
			return sorting.Number(lock.ExpiresAt)
		}
		return sorting.None
	}
}

// RowsAreNames says a row is the lock's name in the cache, the same across
// reads (pager.Named): a reload selects the lock selected before again.
func (l *look) RowsAreNames() {}

// Keep keeps a lock read in the cache, and lists its name there.
func (l *look) Keep(dst []string, lock model.Lock) []string {
	return append(dst, l.items.PutLock(lock))
}

func (l *look) Cells(name string) rows.Cells {
	lock := l.items.Lock(name)
	words, st := l.items.LockStatus(&lock)
	c := l.r.LockItemCells(&lock, words, st, l.items.JudgedAt())
	c.Marked = len(l.marked) > 0 && l.marked[name]
	c.Changed = l.items.Changed(name)
	return c
}

func (l *look) Empty() string { return "no locks" }

// problematic reports whether the lock named shows a problem, for n and N.
func (l *look) problematic(name string) bool {
	lock := l.items.Lock(name)
	_, st := l.items.LockStatus(&lock)
	return st.Problematic()
}

// article puts a or an before a noun.
func article(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// Screen is the view's layout of its rows: the columns hidden, and those
// its rows show. It is not a method, so that Model exports no more.
func Screen(m *Model) *rows.Screen { return pager.Screen(&m.pager) }
