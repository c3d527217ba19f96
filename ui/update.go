package ui

import (
	"context"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/rows"
)

// onKey handles a key (Update then keeps help truthful). Any key makes a
// detail still being read stale: the user has moved on.
func (m Model) onKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	m.detailSeq++
	if m.searching {
		return m.onSearchKey(msg)
	}
	if m.sending != nil && (msg.String() == "ctrl+c" || key.Matches(msg, m.km.Quit) && m.view != viewDialog) {
		return m.quitDuringWrite()
	}
	if m.view == viewDialog && m.dialog != nil {
		if msg.String() == "ctrl+c" {
			return m, tea.Quit
		}
		d, cmd := m.dialog.Update(msg)
		m.dialog = &d
		return m, cmd
	}
	switch {
	case key.Matches(msg, m.km.Quit):
		return m, tea.Quit
	case key.Matches(msg, m.km.Help):
		if m.view == viewHelp {
			m.view = m.back
		} else {
			m.openOver(viewHelp)
		}
	case key.Matches(msg, m.km.Back):
		switch {
		case m.view == viewDetail || m.view == viewHelp:
			m.view = m.back
		case m.view == viewAccounts && m.accounts.pin != nil:
			m.accounts.pin = nil
			m.keepSelection(m.accounts.rebuildTop())
		case m.view != viewAccounts:
			m.view = viewAccounts
		}
	case key.Matches(msg, m.km.NextView):
		m.switchTo((m.listView() + 1) % 3)
	case key.Matches(msg, m.km.Accounts):
		m.switchTo(viewAccounts)
	case key.Matches(msg, m.km.Locks):
		m.switchTo(viewLocks)
	case key.Matches(msg, m.km.Problems):
		m.switchTo(viewProblems)
	case key.Matches(msg, m.km.Search):
		m.searching = true
		m.search.SetValue("")
		return m, m.search.Focus()
	case key.Matches(msg, m.km.Edit, m.km.Delete, m.km.Fix, m.km.Add):
		return m.onWriteKey(msg)
	case key.Matches(msg, m.km.Reload):
		cmd := m.reload()
		return m, cmd
	case key.Matches(msg, m.km.Enter):
		return m.onEnter()
	case key.Matches(msg, m.km.NextProblem):
		m.nextProblem(+1)
	case key.Matches(msg, m.km.PrevProblem):
		m.nextProblem(-1)
	default:
		return m.routeToList(msg)
	}
	cmd := m.prefetch()
	return m, cmd
}

// listView is the list view the user is in or came from.
func (m Model) listView() view {
	if m.view > viewProblems {
		return m.back
	}
	return m.view
}

// openOver opens the detail or help view over the current list view.
func (m *Model) openOver(v view) {
	m.back = m.listView()
	m.view = v
}

// switchTo shows a list view, loading the locks on first visit.
func (m *Model) switchTo(v view) {
	m.view = v
	if v == viewLocks {
		m.locksLoaded = true
	}
}

func (m Model) onSearchKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	switch msg.String() {
	case "ctrl+c":
		return m, tea.Quit
	case "esc":
		m.searching = false
		m.search.Blur()
		return m, nil
	case "enter":
		q := strings.TrimSpace(m.search.Value())
		m.searching = false
		m.search.Blur()
		if q == "" {
			return m, nil
		}
		m.searchID++
		m.searchBusy, m.err = true, nil
		m.status = "searching for " + model.Printable(q) + "…"
		return m, search(m.ctx, m.store, m.schema, m.searchID, q, m.events)
	}
	var cmd tea.Cmd
	m.search, cmd = m.search.Update(msg)
	return m, cmd
}

// routeToList hands navigation to the widget of the current view.
func (m Model) routeToList(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch m.view {
	case viewAccounts:
		m.accountsList, cmd = m.accountsList.Update(msg)
	case viewLocks:
		m.locksList, cmd = m.locksList.Update(msg)
	case viewProblems:
		m.problemsList, cmd = m.problemsList.Update(msg)
	case viewDetail:
		m.detail, cmd = m.detail.Update(msg)
	}
	k, isKey := msg.(tea.KeyPressMsg)
	m.followEnd = isKey && key.Matches(k, m.km.Bottom)
	more := m.prefetch()
	return m, tea.Batch(cmd, more)
}

// prefetch keeps a few screens loaded below the selection, so scrolling
// does not wait on the network.
func (m *Model) prefetch() tea.Cmd {
	ahead := 3 * m.listHeight()
	var cmds []tea.Cmd
	left := len(m.accounts.body) - (m.accountsList.Cursor() - len(m.accounts.top))
	if !m.acctLoading && !m.acctNext.Done() && left < ahead && m.height > 0 {
		m.acctLoading = true
		cmds = append(cmds, loadAccounts(m.ctx, m.store, m.gen, m.acctNext, m.pageWant(), m.consistent))
	}
	if m.locksLoaded && !m.locksLoad && !m.locksNext.Done() && len(m.locks.locks)-m.locksList.Cursor() < ahead {
		m.locksLoad = true
		cmds = append(cmds, loadLocks(m.ctx, m.store, m.locksGen, m.locksNext, 3*m.listHeight()))
	}
	return tea.Batch(cmds...)
}

func (m Model) onAccountsPage(msg accountsPageMsg) (tea.Model, tea.Cmd) {
	if msg.gen != m.gen {
		return m, nil
	}
	m.acctLoading = false
	if msg.err != nil {
		m.err = msg.err
		m.retry = (*Model).prefetch
		return m, nil
	}
	m.err, m.retry = nil, nil
	if m.check.Report != nil {
		dup := duplicates(m.check.Report)
		for i := range msg.page.Accounts {
			msg.page.Accounts[i].MarkDuplicates(dup)
		}
	}
	m.accounts.appendAccounts(msg.page.Accounts)
	m.acctNext = msg.page.Next
	if msg.page.Next.Done() {
		m.consistent = false
	}
	if m.followEnd {
		m.accountsList.SetCursor(m.accounts.Len() - 1)
	} else {
		m.accountsList.SetCursor(m.accountsList.Cursor())
	}
	var cmds []tea.Cmd
	if m.checkRun == 0 && !m.opts.NoCheck {
		cmds = append(cmds, m.runCheck())
	}
	cmds = append(cmds, m.prefetch())
	return m, tea.Batch(cmds...)
}

func (m Model) onLocksPage(msg locksPageMsg) (tea.Model, tea.Cmd) {
	if msg.gen != m.locksGen {
		return m, nil
	}
	m.locksLoad = false
	if msg.err != nil {
		m.err = msg.err
		m.retry = (*Model).prefetch
		return m, nil
	}
	m.err, m.retry = nil, nil
	m.locks.locks = append(m.locks.locks, msg.page.Locks...)
	m.locksNext = msg.page.Next
	m.locksList.SetCursor(m.locksList.Cursor())
	cmd := m.prefetch()
	return m, cmd
}

// runCheck starts a new background check; answers of older runs are dropped.
func (m *Model) runCheck() tea.Cmd {
	if m.checkCancel != nil {
		m.checkCancel() // a newer check makes the running one moot
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.checkCancel = cancel
	m.checkRun++
	m.check.Running, m.check.Err = true, nil
	m.check.Progress = model.CheckProgress{Approx: m.opts.ApproxItems}
	return startCheck(ctx, m.store, m.checkRun, m.events)
}

func (m Model) onCheckDone(msg checkDoneMsg) (tea.Model, tea.Cmd) {
	if msg.run != m.checkRun {
		return m, listen(m.events)
	}
	m.check.Running = false
	if msg.err != nil {
		m.check.Err = msg.err
		m.err = msg.err
		m.retry = (*Model).runCheck
		return m, listen(m.events)
	}
	report := msg.report
	m.check.Report = &report
	m.showOrphans(report.Problems)
	m.accounts.markDuplicates(duplicates(&report))
	m.locks.setReport(&report)
	m.problems.set(&report)
	m.problemsList.SetCursor(m.problemsList.Cursor())
	return m, listen(m.events)
}

// showOrphans puts the confirmed orphan locks on top of the accounts view.
func (m *Model) showOrphans(problems []model.Problem) {
	var orphans []model.Problem
	for _, p := range problems {
		if p.Kind == model.OrphanLock {
			orphans = append(orphans, p)
		}
	}
	m.accounts.orphans = orphans
	m.keepSelection(m.accounts.rebuildTop())
}

// keepSelection keeps the selected body row selected, in place, after the
// top part grew by delta rows.
func (m *Model) keepSelection(delta int) {
	switch {
	case delta == 0 || m.accountsList.Cursor() < len(m.accounts.top)-delta:
		m.accountsList.SetCursor(m.accountsList.Cursor())
	case m.accountsList.Offset() == 0:
		m.accountsList.ShiftCursor(delta) // the top is on screen: show what came
	default:
		m.accountsList.Shift(delta)
	}
}

// duplicates indexes the duplicate values of a report.
func duplicates(r *model.Report) func(ci int, v string) bool {
	set := map[lockID]bool{}
	for _, p := range r.Problems {
		if p.Kind == model.DuplicateValue {
			set[lockID{p.ConstraintIndex(), p.Value}] = true
		}
	}
	return func(ci int, v string) bool { return set[lockID{ci, v}] }
}

func (m Model) onSearchDone(msg searchDoneMsg) (tea.Model, tea.Cmd) {
	if msg.id != m.searchID {
		return m, listen(m.events)
	}
	m.searchBusy, m.status = false, ""
	if msg.err != nil {
		m.err, m.retry = msg.err, nil
		return m, listen(m.events)
	}
	p := msg.pin
	if m.check.Report != nil {
		dup := duplicates(m.check.Report)
		for i := range p.accounts {
			p.accounts[i].MarkDuplicates(dup)
		}
	}
	m.accounts.pin = &p
	m.accounts.rebuildTop()
	m.view = viewAccounts
	m.accountsList.SetCursor(min(1, m.accounts.Len()-1))
	m.accountsList.ScrollToTop()
	return m, listen(m.events)
}

// reload retries what failed, or reads everything again with consistent
// reads and runs the check again.
func (m *Model) reload() tea.Cmd {
	if m.err != nil && m.retry != nil {
		retry := m.retry
		m.err, m.retry = nil, nil
		return retry(m)
	}
	m.err = nil
	m.locksGen++
	if m.view == viewLocks {
		m.locks.locks, m.locksNext, m.locksLoad = nil, dynamo.Cursor{}, false
		m.locksList.SetCursor(0)
		return m.prefetch()
	}
	m.gen++
	m.accounts.reset()
	m.acctNext, m.acctLoading, m.consistent = dynamo.Cursor{}, true, true
	m.locks.locks, m.locksNext, m.locksLoad = nil, dynamo.Cursor{}, false
	m.accountsList.SetCursor(0)
	cmds := []tea.Cmd{loadAccounts(m.ctx, m.store, m.gen, dynamo.Cursor{}, m.pageWant(), true)}
	if !m.opts.NoCheck {
		m.check.Report = nil
		cmds = append(cmds, m.runCheck())
	}
	return tea.Batch(cmds...)
}

// nextProblem moves the selection to the next (dir +1) or previous (-1)
// row that shows a problem.
func (m *Model) nextProblem(dir int) {
	list, problematic := &m.accountsList, m.accounts.problematic
	n := m.accounts.Len()
	if m.view == viewLocks {
		list, problematic, n = &m.locksList, m.locks.problematic, m.locks.Len()
	}
	for i := list.Cursor() + dir; i >= 0 && i < n; i += dir {
		if problematic(i) {
			list.SetCursor(i)
			m.status = ""
			return
		}
	}
	m.status = "no further problem among the rows loaded"
}

func (m Model) onEnter() (tea.Model, tea.Cmd) {
	switch m.view {
	case viewAccounts:
		if m.accounts.Len() == 0 {
			return m, nil
		}
		r := m.accounts.row(m.accountsList.Cursor())
		switch r.Kind {
		case rows.Account:
			a := m.accounts.account(r)
			ref := model.KeyRef{Table: m.schema.Table, Key: m.schema.AccountKey(a.ID)}
			return m, readItem(m.ctx, m.store, m.detailSeq, "account "+rows.AccountKey(a), ref, itemOrGone)
		case rows.Lock:
			a, ci := *m.accounts.account(r), int(r.Lock)
			a.Locks = slices.Clone(a.Locks) // rendered off the update loop
			title := m.lockTitle(&a, ci)
			if a.Locks[ci].Value == "" { // no value, no lock to read
				m.openDetail(title, m.lockLines(&a, ci, nil))
				return m, nil
			}
			table, key := m.schema.LockKey(ci, a.Locks[ci].Value)
			lines := func(lock model.Item) []string { return m.lockLines(&a, ci, lock) }
			return m, readItem(m.ctx, m.store, m.detailSeq, title, model.KeyRef{Table: table, Key: key}, lines)
		case rows.Orphan:
			p := *m.accounts.orphan(r)
			table, key := m.schema.LockKey(p.ConstraintIndex(), p.Value) // the raw key
			lines := func(lock model.Item) []string {
				if lock == nil {
					return []string{"this lock no longer exists: it may have been repaired (r reloads)"}
				}
				return append(append(detail.ItemLines(lock), ""), orphanWhy(p)...)
			}
			return m, readItem(m.ctx, m.store, m.detailSeq, "lock "+model.Printable(p.Value), model.KeyRef{Table: table, Key: key}, lines)
		case rows.More:
			m.switchTo(viewProblems)
		}
	case viewLocks:
		if m.locks.Len() == 0 {
			return m, nil
		}
		l := &m.locks.locks[m.locksList.Cursor()]
		words, _ := m.locks.lockStatus(l)
		m.openDetail("lock "+m.render.LockKey(l.Constraint, l.Value)+"  ("+words+")", detail.ItemLines(l.Item))
	case viewProblems:
		if p, ok := m.problems.at(m.problemsList.Cursor()); ok {
			m.searchID++
			m.searchBusy, m.err = true, nil
			m.status = "reading the rows of this problem…"
			return m, jump(m.ctx, m.store, m.searchID, *p, m.events)
		}
	}
	return m, nil
}

func (m *Model) openDetail(title string, lines []string) {
	m.detail.Show(title, lines)
	m.openOver(viewDetail)
}

func (m Model) lockTitle(a *model.AccountView, ci int) string {
	l := a.Locks[ci]
	attr := m.schema.Constraints[ci].Attr
	if l.Status == model.LockNone || (l.Status == model.LockInvalid && l.Item == nil) {
		return attr + " of " + rows.AccountKey(a) + "  (" + string(l.Status) + ")"
	}
	return "lock " + m.render.LockKey(ci, l.Value) + "  (" + string(l.Status) + ")"
}

// lockLines is the detail of a lock row: the lock as read now, or for a
// lock that is not there, the key it should have; then why.
func (m Model) lockLines(a *model.AccountView, ci int, lock model.Item) []string {
	sc := m.schema
	l := a.Locks[ci]
	attr := sc.Constraints[ci].Attr
	id := rows.AccountKey(a)
	var lines []string
	if lock != nil {
		lines = append(detail.ItemLines(lock), "")
	} else if l.Item != nil {
		lines = append(lines, "this lock no longer exists (r reloads)", "")
	}
	switch l.Status {
	case model.LockNone:
		lines = append(lines, id+" has no "+attr+" (absent, NULL or empty): no lock is expected.")
	case model.LockInvalid:
		if l.Item == nil {
			lines = append(lines, "why: invalid_value: "+attr+" is "+rows.AttrText(a.Item, attr)+
				"; only a non-empty string whose lock key fits in 2048 bytes can be locked.")
		} else {
			lines = append(lines, "why: invalid_value: the lock's "+sc.OwnerAttr+" is not a string.")
		}
	case model.LockMissing:
		table, k := sc.LockKey(ci, l.Value)
		key := model.Item{}
		for n, v := range k {
			key[n] = model.S(v)
		}
		lines = append(lines, "expected key (table "+model.Printable(table)+"):")
		lines = append(lines, detail.ItemLines(key)...)
		lines = append(lines, "",
			"why: missing_lock: "+id+" holds "+attr+" = "+model.Printable(l.Value)+
				", so this lock must exist; no item has this key, and nothing stops another account from taking the value.")
	case model.LockForeign:
		lines = append(lines, "why: foreign_lock: the lock names "+model.Printable(l.Owner)+
			", which does not hold "+attr+" = "+model.Printable(l.Value)+"; "+id+" does.")
	case model.LockDuplicate:
		lines = append(lines, "why: duplicate_value: other accounts hold "+attr+" = "+model.Printable(l.Value)+" too (see the problems view).")
	case model.LockOK:
		lines = append(lines, "ok: "+id+" holds "+attr+" = "+model.Printable(l.Value)+" and this lock protects it.")
	}
	return lines
}
