// Package accounts is the accounts view: pages of accounts, each followed
// by one row per unique attribute for its lock, under the orphan locks the
// check confirmed and a pinned group (search results, the rows of a
// problem, accounts just written). Its pager (ui/pager) owns the list, the
// paging, the loading state and the request id; the view supplies what
// it reads, how a row looks, and the rows on top (the pager's head).
package accounts

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/lockdetail"
	"github.com/locktable/locktable/ui/pager"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/sorting"
	"github.com/locktable/locktable/ui/write"
)

// Backend is what the accounts view reads.
type Backend interface {
	AccountsPage(ctx context.Context, from backend.Cursor, want int, consistent bool) (backend.AccountPage, error)
	Account(ctx context.Context, id string) (model.AccountView, bool, error)
}

// PageMsg answers a page request.
type PageMsg = pager.PageMsg[model.AccountView]

// RefreshedMsg carries accounts read again after a write; gone lists those
// that no longer exist.
type RefreshedMsg struct {
	req     pager.Request
	written []string // the accounts written (the others were read as related)
	// Live says someone else wrote them (Reread): nothing is pinned.
	Live bool
	// added says someone else inserted them (AddedMsg): those no list shows
	// are pinned as added by others, the selection staying.
	added bool
	views []model.AccountView
	gone  []string
	err   error
}

// PinMsg pins a group on top of the view.
type PinMsg struct{ Pin Pin }

// JumpMsg asks for the rows of a problem that are not loaded, pinned on
// top (n and N walking the check's problems past what is loaded).
type JumpMsg struct{ Problem model.Problem }

// ProblemsMsg asks for the problems view on the group of problems of Kind
// (the "… more orphan locks" row).
type ProblemsMsg struct{ Kind model.ProblemKind }

// Model is the accounts view.
type Model struct {
	ctx     context.Context
	backend Backend
	r       *rows.Renderer
	km      KeyMap
	src     *source // how rows look, and the rows on top
	pager   pager.Model[model.AccountView, rows.Row]
	// restore is the body row selected before a reload, selected again
	// once its account's page is read again (pages are read until it is).
	restore *selection
	// problems are the finished check's, in its order, for n and N past
	// the rows loaded; walk is the one of them pinned by n or N (-1: none),
	// jumping says a pin asked for by n or N is on its way, and seekMore
	// that n waits for the next page to look further.
	problems []model.Problem
	walk     int
	jumping  bool
	seekMore bool
	note     string // what the last key could not do
	err      error  // what reading accounts again after a write failed with
	// first reads the first page (Init): the pager's read, or a wait for
	// the page asked for before the view existed (ui.Open, SetFirst).
	first tea.Cmd
	// firstLocks waits for the locks of that page, read after it (nil:
	// none, or asked for already).
	firstLocks FirstLocks
	// asked is what the last key asks of the write dialog (Asked).
	asked tea.Msg
	// Sort is the order the accounts loaded are shown in, as the view's
	// keys set it (the header says it): read it, the keys change it.
	Sort *sorting.Order
	// sweeper is the read of every account at once, when one runs (G,
	// n: the backend is a Sweeper).
	sweeper sweeper
	// consistent: pages are read consistently (since a reload).
	consistent bool
	// goneSelected: the selected account went (deleted), and the row
	// after it is to be selected, though it may be on disk (settle).
	goneSelected bool
}

// Asked returns what the last key asks of the write dialog (a rename, a
// delete, a fix; nil for none) and forgets it: the root opens the dialog
// in the same update, so that the keys typed next land in it.
func (m *Model) Asked() tea.Msg {
	a := m.asked
	m.asked = nil
	return a
}

// FirstPage waits for a first page asked for ahead of the view. Its
// accounts may come before their locks (model.LockUnread), which a
// FirstLocks brings then.
type FirstPage func() (backend.AccountPage, error)

// FirstLocks waits for the accounts of a FirstPage judged, their locks
// read.
type FirstLocks func() ([]model.AccountView, error)

// LocksMsg brings the locks of the first page's accounts, drawn before
// them (FirstLocks).
type LocksMsg struct {
	req   pager.Request
	views []model.AccountView
	err   error
}

// Want is how many accounts a page asks for in a list of height rows: a
// few screens' worth, at least 50.
func Want(height, constraints int) int { return accountsFor(3*height, constraints) }

// accountsFor is how many accounts a page asks for to fill n rows of the
// list, at least 50.
func accountsFor(n, constraints int) int { return max(n/(1+constraints), 50) }

// FirstWant is how many accounts the first page asks for in a list of
// height rows: the ones that fill it (an account takes a row, and one
// more for each of its locks), so that the first rows wait for the fewest
// items; the view asks for the screens below once they are shown
// (Prefetch).
func FirstWant(height, constraints int) int {
	per := 1 + constraints
	return (height + per - 1) / per
}

// New returns the accounts view, loading: Init asks for the first page.
func New(ctx context.Context, backend Backend, r *rows.Renderer, c *items.Cache, km KeyMap) Model {
	src := newSource(r, c, km.Unpin.Help().Key)
	one, _ := r.Schema.Nouns()
	km.Edit.SetHelp(km.Edit.Help().Key, "edit/rename "+one)
	km.Delete.SetHelp(km.Delete.Help().Key, "delete "+one)
	m := Model{ctx: ctx, backend: backend, r: r, km: km, src: src, walk: -1, Sort: &src.sorting.order}
	m.pager = pager.New(ctx, m.read(false), pager.Look[model.AccountView, rows.Row](src), r, km.KeyMap)
	m.first = m.pager.Open(nil) // Init asks for the first page
	return m
}

// read reads a page of accounts, consistently or not, for as many rows
// as the pager wants.
func (m Model) read(consistent bool) pager.Read[model.AccountView] {
	b, constraints := m.backend, len(m.r.Schema.Constraints)
	return func(ctx context.Context, from backend.Cursor, want int) (pager.Page[model.AccountView], error) {
		page, err := b.AccountsPage(ctx, from, accountsFor(want, constraints), consistent)
		return pager.Page[model.AccountView]{Rows: page.Accounts, Next: page.Next}, err
	}
}

// Pager is the view's list, as a pager: where its reads stand, its
// selection, its filter and its size are asked of it.
func (m *Model) Pager() *pager.Model[model.AccountView, rows.Row] { return &m.pager }

// keys are the bindings as they work now: esc unpins only what is pinned;
// e and d need an account's row (or one of its locks), f a problem's.
func (m Model) keys() KeyMap {
	km := m.km
	km.Stop.SetEnabled(m.sweeper.running())
	km.Unpin.SetEnabled(m.src.pin != nil && !m.sweeper.running())
	account, problem := m.selectedTakes()
	km.Edit.SetEnabled(km.Edit.Enabled() && account)
	km.Delete.SetEnabled(km.Delete.Enabled() && account)
	km.Fix.SetEnabled(km.Fix.Enabled() && problem)
	return km
}

// selectedTakes says what SelectedAccount and SelectedProblem would find
// on the selected row, from its kind and its lock's status alone: the
// help line asks every frame, and building the account view for it would
// cost a map and a clone each time.
func (m Model) selectedTakes() (account, problem bool) {
	r, ok := m.pager.Selected()
	if !ok {
		return false, false
	}
	switch r.Kind {
	case rows.Account:
		return true, false
	case rows.Lock:
		switch m.src.status(r) {
		case model.LockMissing, model.LockForeign, model.LockDuplicate, model.LockInvalid, model.LockExpired, model.LockExpiring:
			return true, true
		}
		return true, false
	case rows.Orphan:
		return false, true
	}
	return false, false
}

// Takes reports whether the selected row takes b: the help line offers
// e, d and f only where they act.
func (m Model) Takes(b key.Binding) bool {
	km := m.keys()
	return keymap.Offered(b, km.Edit, km.Delete, km.Fix)
}

// ShortHelp is the help line's part for this view.
func (m Model) ShortHelp() []key.Binding { return m.keys().ShortHelp() }

// FullHelp is the help screen's part for this view.
func (m Model) FullHelp() [][]key.Binding { return m.keys().FullHelp() }

// Init asks for the first page, or waits for the one asked for ahead.
func (m Model) Init() tea.Cmd { return m.first }

// SetFirst hands the view a first page asked for before it existed, and
// the wait for its locks when its accounts come without them (nil: they
// come with them).
func (m *Model) SetFirst(first FirstPage, locks FirstLocks) {
	if first == nil {
		return
	}
	m.firstLocks = locks
	m.first = m.pager.Open(func() (pager.Page[model.AccountView], error) {
		page, err := first()
		return pager.Page[model.AccountView]{Rows: page.Accounts, Next: page.Next}, err
	})
}

// DisableWrites turns off the keys that ask for a write.
func (m *Model) DisableWrites() {
	m.km.Edit.SetEnabled(false)
	m.km.Delete.SetEnabled(false)
	m.km.Fix.SetEnabled(false)
}

// Reload reads every account again, consistently (from now on: what was
// just written is read), the pinned ones too. The rows shown stay until
// the first page comes: if it does not, they stay, marked stale, with
// why.
func (m *Model) Reload() tea.Cmd {
	m.src.judgedBy, m.err = m.src.items.Report(), nil
	m.stopSweep("")
	m.consistent = true
	m.pager.SetRead(m.read(true))
	reload := m.pager.Reload()
	var pinned tea.Cmd
	if ids := m.src.pinnedIDs(); len(ids) > 0 {
		pinned = m.Reread(ids, true)
	}
	return tea.Batch(reload, pinned)
}

// Err is what failed, if anything did: a page, or the accounts read
// again after a write.
func (m Model) Err() error {
	if err := m.pager.Paging().Err(); err != nil {
		return err
	}
	return m.err
}

// Retry forgets the failure and redoes what failed, when that can be
// redone (nil otherwise: the accounts read again after a write are read
// again with a reload). A failed reload is redone whole, the pinned
// accounts too.
func (m *Model) Retry() tea.Cmd {
	switch {
	case m.pager.Paging().Err() == nil:
		m.err = nil
		return nil
	case m.pager.Paging().Stale() != nil:
		return m.Reload()
	}
	return m.pager.Retry()
}

// Reread reads again, consistently, the accounts of ids, and with them
// every account shown whose rows name what they hold (a value, or one of
// them as a lock's owner): a write changed what those rows say. written
// says this session wrote them: those no list shows are pinned as
// written. Otherwise someone else did (the table's stream told of them),
// or they are polled: only those the cache holds are read (those on
// disk when their block comes back: TouchedMsg), and nothing is pinned
// (AddedMsg shows the accounts others inserted).
func (m Model) Reread(ids []string, written bool) tea.Cmd {
	if written {
		return m.refresh(ids, false)
	}
	ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return !m.src.items.Has(id) })
	if len(ids) == 0 {
		return nil
	}
	return m.refresh(ids, true)
}

// TouchedMsg names what someone else's changes involve (the table's
// stream told): the accounts written or named by a lock written, and the
// values written or held. The accounts on disk among them, or holding
// those values, are read again when their block comes back.
type TouchedMsg struct {
	IDs    []string
	Values []items.LockValue
}

// AddedMsg names accounts someone else inserted (the table's stream
// told): those the view does not list are read and pinned on top under
// "added by others" (added).
type AddedMsg struct{ IDs []string }

// added shows accounts someone else inserted that the view does not
// list: they are read and pinned on top under "added by others", each
// leaving the group once a page lists it, the selection staying on its
// row. A group of another kind on top (a search, a jump, this session's
// writes) stays: the table read to its end, they join the accounts
// listed, at their end, as a next page would list them; else they are
// not shown until a page lists them.
func (m Model) added(ids []string) tea.Cmd {
	ids = slices.DeleteFunc(ids, func(id string) bool { _, listed := m.src.index[id]; return listed || m.src.isPinned(id) })
	if len(ids) == 0 || (m.src.pin != nil && !m.src.pin.added && !m.pager.Paging().Done()) {
		return nil
	}
	read := m.refresh(ids, false)
	return func() tea.Msg {
		msg, _ := read().(RefreshedMsg)
		msg.added = true
		return msg
	}
}

// OnScreen lists the accounts about the selection, as many either side
// as rows fit the list (n), and those pinned on top: what is on screen,
// for polling.
func (m *Model) OnScreen(n int) []string {
	var ids []string
	if m.src.pin != nil {
		for _, a := range m.src.pin.Accounts {
			ids = append(ids, a.ID)
		}
	}
	at := 0
	if a, ok := m.SelectedAccount(); ok {
		if i, listed := m.src.index[a.ID]; listed {
			at = m.src.sorting.place(i)
		}
	}
	for p := max(at-n, 0); p < min(at+n, len(m.src.main)); p++ {
		ids = append(ids, m.src.main[m.src.sorting.nth(p)])
	}
	return ids
}

// refresh reads ids again, and the accounts shown that name what they
// hold; live says someone else wrote them.
func (m Model) refresh(ids []string, live bool) tea.Cmd {
	ctx, b, req := m.ctx, m.backend, m.pager.Paging().Request()
	read := slices.Clone(ids)
	for _, id := range m.src.items.Related(ids) {
		if _, shown := m.src.index[id]; shown || m.src.isPinned(id) {
			read = append(read, id)
		}
	}
	return func() tea.Msg {
		msg := RefreshedMsg{req: req, written: ids, Live: live}
		for _, id := range read {
			a, found, err := b.Account(ctx, id)
			if err != nil {
				msg.err = err
				return msg
			}
			if found {
				msg.views = append(msg.views, a)
			} else {
				msg.gone = append(msg.gone, id)
			}
		}
		return msg
	}
}

// Judged shows what the finished check the item cache holds found: its
// rows are judged by the cache, its orphan locks go on top.
func (m *Model) Judged() {
	r := m.src.items.Report()
	if r == nil {
		return
	}
	m.src.emptyTable = r.ScannedItems == 0
	if p := m.src.pin; p != nil && p.Problem != nil {
		p.fixed = !m.src.items.Reports(*p.Problem)
	}
	m.src.prunePinnedOrphans(r.Problems)
	m.problems, m.walk = r.Problems, -1
	m.resort()
	m.setOrphans(r.Problems, false)
}

// SetOrphans shows the orphan locks a running check confirmed so far on
// top of the view, marked partial, keeping the selected row selected.
func (m *Model) SetOrphans(problems []model.Problem) { m.setOrphans(problems, true) }

func (m *Model) setOrphans(problems []model.Problem, partial bool) {
	var orphans []model.Problem
	for _, p := range problems {
		// An expired lock nobody holds is on top too: it blocks its value
		// as an orphan does, until DynamoDB deletes it.
		if p.Kind == model.OrphanLock || p.Kind == model.ExpiredLock && len(p.Accounts) == 0 {
			orphans = append(orphans, p)
		}
	}
	m.src.setOrphans(orphans, partial)
	m.setHead()
}

// setHead lays out the rows on top again, the selected row staying
// selected.
//
// The selection is a row's key, not its place: on top, it stays on the
// row that shows the same (an orphan, a pinned account or its lock)
// wherever the new top puts it; below, on its account's row.
func (m *Model) setHead() {
	m.keepSelection(func() { m.pager.SetHead(m.src.rebuildTop()) })
}

// keepSelection makes change to the rows, the selected row staying
// selected, by its key (setHead).
func (m *Model) keepSelection(change func()) {
	at, was := m.pager.Cursor(), slices.Clone(m.src.topKeys)
	var below *selection // the row read selected, if one is
	if r, ok := m.pager.Selected(); ok {
		below = m.src.selection(r)
	}
	change()
	if below != nil {
		// Found again by its key: under a filter the rows on top that
		// came or went are not all shown, so a shift by their number
		// would land on another row.
		if i, ok := m.src.rowOf(*below); ok {
			pager.Reselect(&m.pager, i)
		}
		m.offHeading()
		return
	}
	m.reselect(at, was)
}

// reselect selects again the row on top that was at place at of was (the
// top before it changed), wherever the top puts it now; a pinned
// account's row that left the top because a page lists the account is
// followed to its row below. A row at was's place is left as the pager
// put it.
func (m *Model) reselect(at int, was []shownAs) {
	if at < 0 || at >= len(was) {
		return
	}
	w := was[at]
	if i := slices.IndexFunc(m.src.topKeys, func(s shownAs) bool { return s.key == w.key }); i >= 0 {
		pager.Reselect(&m.pager, i)
		return
	}
	// An orphan that left its group (past the first few shown) may still
	// be shown in the other (a search's pin): the lock is the same.
	if i := slices.IndexFunc(m.src.topKeys, func(s shownAs) bool { return w.orphan != "" && s.orphan == w.orphan }); i >= 0 {
		pager.Reselect(&m.pager, i)
		return
	}
	if w.account == "" {
		return
	}
	if i, ok := m.src.rowOf(rowSelection(w.account, w.kind, w.lock)); ok {
		pager.Reselect(&m.pager, i)
	}
}

// Update handles pages, pins and keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case PageMsg:
		return m.onPage(msg)
	case RefreshedMsg:
		return m.onRefreshed(msg)
	case LocksMsg:
		return m.onLocks(msg), nil
	case AddedMsg:
		return m, m.added(msg.IDs)
	case SweepMsg:
		return m.onSweep(msg)
	case TouchedMsg:
		m.src.touched(msg.IDs, msg.Values)
		return m, nil
	case PinMsg:
		if !m.jumping {
			m.walk = -1 // a search or a jump of the problems view
		}
		m.jumping = false
		m.pin(msg.Pin)
		return m, nil
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.MouseWheelMsg, tea.MouseClickMsg:
		var cmd tea.Cmd
		m.pager, cmd = m.pager.Update(msg)
		return m, tea.Batch(cmd, m.settle(), m.pager.Prefetch())
	}
	return m, nil
}

func (m Model) onKey(k tea.KeyPressMsg) (Model, tea.Cmd) {
	km := m.keys()
	m.note = ""
	m.restore, m.seekMore = nil, false // a key moves the selection: no longer restore it
	var cmd tea.Cmd
	switch {
	case key.Matches(k, km.Stop):
		m.stopSweep(fmt.Sprintf("stopped reading every %s after %s items", m.one(), rows.Count(m.sweeper.progress.Items)))
	case key.Matches(k, km.Enter):
		cmd = m.open()
	case key.Matches(k, km.NextProblem):
		cmd = m.seek(+1)
	case key.Matches(k, km.PrevProblem):
		cmd = m.seek(-1)
	case key.Matches(k, km.Unpin):
		m.src.setPin(nil)
		m.setHead()
	case key.Matches(k, km.Sort, km.Reverse):
		m.note = m.Sort.Step(key.Matches(k, km.Reverse))
		pager.Reorder(&m.pager, true) // the selection stays on its row
	case key.Matches(k, m.km.Edit, m.km.Delete):
		// Matched as bound, not as help offers them: on a row they do not
		// act on, the status says why.
		a, ok := m.SelectedAccount()
		switch {
		case !ok:
			m.note = m.whyNoAccount(k)
		case key.Matches(k, km.Edit):
			m.asked = write.RenameMsg{Account: a}
		default:
			m.asked = write.DeleteMsg{Account: a}
		}
	case key.Matches(k, m.km.Fix):
		if p, ok := m.SelectedProblem(); ok {
			m.asked = write.FixMsg{Problem: p}
		} else {
			m.note = m.whyNothingToFix()
		}
	default:
		// g and G go to the first and the last account listed: the
		// window goes there first, if they are on disk.
		var moved tea.Cmd
		switch {
		case key.Matches(k, km.Top) && m.src.win.lo > 0:
			moved = m.windowAt(0)
		case key.Matches(k, km.Bottom) && !m.src.win.endHeld():
			moved = m.windowAt(len(m.src.win.counts) - 1)
		}
		var sweep tea.Cmd
		if key.Matches(k, km.Bottom) {
			sweep = m.sweep(false) // G reads every account at once
		}
		m.pager, cmd = m.pager.Update(k) // the list's keys
		return m, tea.Batch(moved, sweep, cmd, m.settle(), m.pager.Prefetch())
	}
	return m, tea.Batch(cmd, m.pager.Prefetch())
}

// seek moves to the next (dir +1) or previous (-1) row that shows a
// problem. Past the rows loaded it walks the finished check's problems in
// order, pinning those whose rows are not loaded; before the check ends,
// n reads the next page and looks again.
func (m *Model) seek(dir int) tea.Cmd {
	inWalk := m.walk >= 0 && m.pager.Cursor() < m.src.pinEnd
	match := m.src.problematic
	if inWalk { // within the pinned problem's rows first
		match = func(r rows.Row) bool { return r.Set == setPinned && m.src.problematic(r) }
	}
	if m.pager.Seek(dir, match) {
		return nil
	}
	if m.problems != nil && (inWalk || dir > 0) {
		for i := m.walk + dir; i >= 0 && i < len(m.problems); i += dir {
			if p := m.problems[i]; !m.src.shows(p) {
				m.walk, m.jumping = i, true
				m.note = fmt.Sprintf("problem %d of %d: reading its rows…", i+1, len(m.problems))
				return events.Emit(JumpMsg{Problem: p})
			}
		}
		if inWalk && dir < 0 { // before the first problem pinned: the rows loaded
			m.walk = -1
			m.pager.SetCursor(m.pager.Len())
			if m.pager.Seek(-1, m.src.problematic) {
				return nil
			}
		}
	}
	return m.seekPast(dir, inWalk, match)
}

// seekPast looks for the next (dir +1) or previous (-1) row that shows a
// problem past the window, in the blocks on disk, and then, before the
// check ends, n reads the next page and looks again.
func (m *Model) seekPast(dir int, inWalk bool, match func(rows.Row) bool) tea.Cmd {
	var moved tea.Cmd
	if m.problems == nil || dir < 0 && !inWalk {
		var found bool
		if found, moved = m.seekOnDisk(dir, match); found {
			return moved
		}
	}
	if dir > 0 && m.problems == nil && !m.pager.Paging().Done() {
		if sweep := m.sweep(true); sweep != nil || m.sweeper.running() {
			// One scan of the rest, not a page after a page: n looks
			// again once every account is read.
			m.note = ""
			return tea.Batch(moved, sweep)
		}
		m.seekMore, m.note = true, "looking for the next problem in the next page…"
		return tea.Batch(moved, m.pager.More()) // none while one is read: n looks again when it comes
	}
	m.note = "no further problem among the rows loaded"
	return moved
}

// onPage takes a page: the pager keeps its rows (a failed read keeps
// those shown, said to be stale when a reload failed). A reload's first
// page replaces them: the body row selected is selected again once its
// account is read again.
func (m Model) onPage(msg PageMsg) (Model, tea.Cmd) {
	var selected *selection
	if r, ok := m.pager.Selected(); ok {
		selected = m.src.selection(r)
	}
	locks := m.firstLocks // the first page's, whatever page this is
	m.firstLocks = nil
	m.src.kept = m.src.kept[:0]
	switch m.pager.Take(msg) {
	case pager.Dropped, pager.Failed, pager.FailedReload:
		return m, nil
	case pager.Reloaded:
		if m.restore == nil {
			m.restore = selected
		}
	}
	// A page asked for before a sweep began: its accounts are listed
	// before the sweep's, which does not list them again.
	m.sweeper.listedBefore(m.src.kept)
	m.err = nil
	if locks != nil {
		m2, cmd := m.onPageTaken()
		return m2, tea.Batch(awaitLocks(locks, m.pager.Paging().Request()), cmd)
	}
	return m.onPageTaken()
}

// onPageTaken follows a page taken: the pinned accounts it lists leave
// the group on top, n looks on, the selection before a reload is found
// again, and the next page is asked for ahead.
func (m Model) onPageTaken() (Model, tea.Cmd) {
	if m.src.unpinListed() {
		m.setHead()
	}
	if m.seekMore {
		m.seekMore, m.note = false, ""
		if cmd := m.seek(+1); cmd != nil || m.seekMore {
			return m, cmd
		}
	}
	if m.restore != nil {
		if i, ok := m.src.rowOf(*m.restore); ok {
			m.restore = nil
			m.pager.SetCursor(i)
		} else if !m.pager.Paging().Done() {
			return m, tea.Batch(m.settle(), m.pager.More())
		} else {
			m.restore = nil // gone since: the top stays selected
		}
	}
	return m, tea.Batch(m.settle(), m.pager.Prefetch())
}

// awaitLocks waits for the first page's locks, for the rows of request
// req.
func awaitLocks(locks FirstLocks, req pager.Request) tea.Cmd {
	return func() tea.Msg {
		views, err := locks()
		return LocksMsg{req: req, views: views, err: err}
	}
}

// onLocks shows the first page's locks on the rows drawn without them.
// A row read again meanwhile (a write, someone else's) keeps what it
// shows; after a reload the rows are others, and judged already.
func (m Model) onLocks(msg LocksMsg) Model {
	if msg.req != m.pager.Paging().Request() {
		return m
	}
	if msg.err != nil {
		// The rows stay without a verdict; r reads them again.
		m.err = fmt.Errorf("reading the locks of the first rows: %w", msg.err)
		return m
	}
	for _, a := range msg.views {
		if m.src.items.Unread(a.ID) {
			m.src.items.Put(a)
		}
	}
	m.src.generation++
	m.resort()
	m.setHead()
	return m
}

// resort sorts the accounts loaded anew when sorted by their problems:
// a report or their locks judged them again. The selection stays on its
// row; the rows on top are not sorted: they stay where they are.
func (m *Model) resort() {
	if by, _ := m.Sort.By(); by == len(m.r.Schema.Constraints)+1 {
		pager.Reorder(&m.pager, true)
	}
}

// rekey places the accounts of views again, read again, when sorted.
func (m *Model) rekey(views []model.AccountView) {
	if _, sorted := m.Sort.By(); !sorted {
		return
	}
	ids := make([]string, len(views))
	for i, a := range views {
		ids[i] = a.ID
	}
	if m.src.rekey(ids) {
		pager.Reorder(&m.pager, false)
	}
}

// removeRows drops the rows of the accounts gone, from the pinned group
// and the rows read at once (pager.SetRows: a filter judges them all).
// The selection is a row's key, not its place: it stays on its account's
// row, or on its row on top, wherever that is now; when its own account
// went, on the row after it, the nearest, and the status says so.
func (m *Model) removeRows(gone []string) {
	if len(gone) == 0 {
		return
	}
	sel, ok := m.pager.Selected()
	id := ""
	if ok && sel.Set == setMain && (sel.Kind == rows.Account || sel.Kind == rows.Lock) {
		id = m.src.id(sel)
	}
	at, was := m.pager.Cursor(), slices.Clone(m.src.topKeys)
	body := m.src.remove(gone)
	m.pager.SetRows(m.src.rebuildTop(), body)
	switch {
	case id != "":
		if i, found := m.src.rowOf(rowSelection(id, sel.Kind, sel.Lock)); found {
			pager.Reselect(&m.pager, i)
		} else {
			m.note = model.Printable(id) + " is gone: the row after it is selected"
			m.goneSelected = true
		}
	default:
		m.reselect(at, was)
	}
}

func (m Model) onRefreshed(msg RefreshedMsg) (Model, tea.Cmd) {
	if msg.req != m.pager.Paging().Request() {
		return m, nil
	}
	if msg.err != nil {
		m.err = msg.err
		return m, nil
	}
	if msg.added {
		return m.onAdded(msg), nil
	}
	if msg.Live {
		// Someone else's write: the rows held show it, nothing moves.
		for _, a := range msg.views {
			m.src.items.Put(a)
		}
		m.removeRows(msg.gone)
		m.rekey(msg.views)
		m.setHead()
		return m, m.settle()
	}
	// The accounts written that no list shows are pinned as written: an
	// earlier write's pin gives way (those of it written again stay), but
	// not the accounts others added, which no write of ours explains.
	var added []model.AccountView
	written := m.src.pin != nil && m.src.pin.written && !m.src.pin.added
	for _, a := range msg.views {
		m.src.items.Put(a)
		_, listed := m.src.index[a.ID]
		if slices.Contains(msg.written, a.ID) && !listed && (written || !m.src.isPinned(a.ID)) {
			added = append(added, a)
		}
	}
	m.removeRows(msg.gone)
	m.rekey(msg.views)
	switch {
	case len(added) > 0:
		m.pinWritten(added)
	case written:
		// An earlier write's accounts: this write's are all listed.
		m.src.setPin(nil)
		m.setHead()
	default:
		m.setHead() // the accounts gone leave the pinned group
	}
	return m, m.settle()
}

// pinWritten pins the accounts a write of ours wrote that no list shows;
// the accounts others added stay, beside them, under one heading.
//
// The selection stays on its row (setHead): a write sent from another
// view (a fix in the problems view) pins the accounts it wrote here
// without moving what the user had selected in this one.
func (m *Model) pinWritten(written []model.AccountView) {
	p := Pin{Title: "written", Accounts: written, written: true}
	if m.src.pin != nil && m.src.pin.added {
		for _, id := range m.src.pinned {
			if a, ok := m.src.items.Account(id); ok && !slices.ContainsFunc(written, func(w model.AccountView) bool { return w.ID == id }) {
				written = append(written, a)
			}
		}
		p = Pin{Title: "written, and added by others", Accounts: written, written: true, added: true}
	}
	m.note = ""
	m.src.setPin(&p)
	m.setHead()
}

// onAdded pins the accounts others inserted that no list shows, beside
// those pinned so already, the selection staying where it is.
func (m Model) onAdded(msg RefreshedMsg) Model {
	if m.src.pin != nil && !m.src.pin.added {
		// Another group is on top: the accounts join the list at its end
		// if no page will list them.
		if m.pager.Paging().Done() {
			m.listAtEnd(msg)
		}
		return m
	}
	var added []model.AccountView
	for _, id := range m.src.pinned {
		if a, ok := m.src.items.Account(id); ok {
			added = append(added, a)
		}
	}
	for _, a := range msg.views {
		if _, listed := m.src.index[a.ID]; !listed && slices.Contains(msg.written, a.ID) && !m.src.isPinned(a.ID) {
			added = append(added, a)
		}
	}
	if len(added) > 0 {
		title := "added by others"
		if m.src.pin != nil {
			title = m.src.pin.Title // "written, and added by others" stays so
		}
		m.src.setPin(&Pin{Title: title, Accounts: added, written: true, added: true})
		m.setHead()
	}
	return m
}

// listAtEnd lists the accounts others inserted that msg read, and no
// list shows, at the end of those listed: the table is read to its end,
// and no page will list them. The selection stays on its row.
func (m *Model) listAtEnd(msg RefreshedMsg) {
	var views []model.AccountView
	for _, a := range msg.views {
		if _, listed := m.src.index[a.ID]; !listed && slices.Contains(msg.written, a.ID) && !m.src.isPinned(a.ID) {
			views = append(views, a)
		}
	}
	if len(views) > 0 {
		// Sorted, they may land anywhere above the selection.
		m.keepSelection(func() { m.pager.SetRows(m.src.rebuildTop(), m.src.listAtEnd(views)) })
	}
}

// pin shows p on top, its first row selected.
func (m *Model) pin(p Pin) {
	m.note = ""
	m.src.setPin(&p)
	m.setHead()
	m.pager.SetCursor(0) // the title on top, the row under it selected
}

// View renders the visible rows, or says there are none.
func (m Model) View() string { return m.pager.View() }

// Status says what is loaded, or what the last key could not do.
func (m Model) Status() string {
	switch {
	case m.note != "":
		return m.note
	case m.sweeper.running():
		return m.sweeper.status(m.km.Stop.Help().Key)
	case m.pager.Paging().Loading():
		return "loading " + m.src.many + "…"
	}
	return m.pager.Status(m.src.loaded)
}

// one is what an item of the account table is called: account, or record.
func (m Model) one() string {
	one, _ := m.r.Schema.Nouns()
	return one
}

// article puts a or an before a noun.
func article(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// Title is the view's name on its tab: Accounts, or Records.
func (m Model) Title() string { return strings.ToUpper(m.src.many[:1]) + m.src.many[1:] }

// SampleIDs returns up to n keys of the accounts loaded, for a new one's
// key to look like them.
func (m Model) SampleIDs(n int) []string {
	ids := make([]string, 0, min(n, len(m.src.main)))
	ids = append(ids, m.src.main[:min(n, len(m.src.main))]...)
	return ids
}

// Count is how many accounts are loaded (pinned ones aside).

// Pinned reports whether a group is pinned on top (esc unpins it).
func (m Model) Pinned() bool { return m.src.pin != nil }

// SelectedAccount is the account of the selected row, when it is an
// account or one of its locks.
func (m Model) SelectedAccount() (model.AccountView, bool) {
	r, ok := m.pager.Selected()
	if !ok || r.Kind != rows.Account && r.Kind != rows.Lock {
		return model.AccountView{}, false
	}
	return *m.src.account(r), true
}

// SelectedProblem is the problem the selected row shows, as the row knows
// it (a lock row knows only its own account). Why one is left to a person
// is the repair plan's to say (model.Problem.LeftToAPerson), not the row's.
func (m Model) SelectedProblem() (p model.Problem, ok bool) {
	r, selected := m.pager.Selected()
	if !selected {
		return p, false
	}
	sc := m.r.Schema
	switch r.Kind {
	case rows.Orphan:
		return *m.src.orphan(r), true
	case rows.Lock:
		a := m.src.account(r)
		l, ci := a.Locks[r.Lock], int(r.Lock)
		switch l.Status {
		case model.LockMissing:
			return model.Classifier{Schema: sc}.HolderProblem(model.MissingLock, ci, l.Value, "", []string{a.ID}), true
		case model.LockForeign:
			return sc.Spelled(model.Classifier{Schema: sc}.HolderProblem(model.ForeignLock, ci, l.Value, l.Owner, []string{a.ID}), l.Alt), true
		case model.LockDuplicate:
			return sc.Spelled(model.Classifier{Schema: sc}.HolderProblem(model.DuplicateValue, ci, l.Value, l.Owner, []string{a.ID}), l.Alt), true
		case model.LockInvalid:
			return sc.Spelled(model.Classifier{Schema: sc}.HolderProblem(model.InvalidValue, ci, l.Value, l.Owner, []string{a.ID}), l.Alt), true
		case model.LockExpired, model.LockExpiring:
			return sc.Spelled(lockdetail.TTLProblem(sc, a, ci), l.Alt), true
		}
	}
	return p, false
}
