package ui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
)

// Messages carry what they answer (a generation, a cursor, a query), so
// that an answer to a request made before a reload is dropped.

// accountsPageMsg answers loadAccounts.
type accountsPageMsg struct {
	gen  int
	page dynamo.AccountPage
	err  error
}

// locksPageMsg answers loadLocks.
type locksPageMsg struct {
	gen  int
	page dynamo.LockPage
	err  error
}

// checkProgressMsg and checkDoneMsg report the background check.
type checkProgressMsg struct {
	run int
	p   model.CheckProgress
}

type checkDoneMsg struct {
	run    int
	report model.Report
	err    error
}

// searchProgressMsg and searchDoneMsg report a search or a jump.
type searchProgressMsg struct {
	id      int
	scanned int64
	what    string
}

type searchDoneMsg struct {
	id  int
	pin pin
	err error
}

// detailMsg carries an item read for the detail view; seq drops it when
// a key was pressed since it was asked for.
type detailMsg struct {
	seq   int
	title string
	lines []string
	err   error
}

// loadAccounts reads the next page of accounts with their locks.
func loadAccounts(ctx context.Context, s Backend, gen int, from dynamo.Cursor, want int, consistent bool) tea.Cmd {
	return func() tea.Msg {
		page, err := s.AccountsPage(ctx, from, want, consistent)
		return accountsPageMsg{gen: gen, page: page, err: err}
	}
}

// loadLocks reads the next page of lock items.
func loadLocks(ctx context.Context, s Backend, gen int, from dynamo.Cursor, want int) tea.Cmd {
	return func() tea.Msg {
		page, err := s.LocksPage(ctx, from, want)
		return locksPageMsg{gen: gen, page: page, err: err}
	}
}

// listen waits for the next message from the background workers (check,
// search); the root listens again after each one.
func listen(events <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-events }
}

// post sends a message to the root without ever blocking a worker for
// long: progress is dropped rather than queued when the UI is busy.
func post(ctx context.Context, events chan<- tea.Msg, msg tea.Msg, mustArrive bool) {
	if !mustArrive {
		select {
		case events <- msg:
		default:
		}
		return
	}
	select {
	case events <- msg:
	case <-ctx.Done():
	}
}

// startCheck runs the check in the background, posting progress and the
// result to events.
func startCheck(ctx context.Context, s Backend, run int, events chan<- tea.Msg) tea.Cmd {
	return func() tea.Msg {
		go func() {
			report, err := s.Check(ctx, func(p model.CheckProgress) {
				post(ctx, events, checkProgressMsg{run: run, p: p}, p.Confirmed != nil)
			})
			post(ctx, events, checkDoneMsg{run: run, report: report, err: err}, true)
		}()
		return nil
	}
}

// search finds what q names: an account by its key, or an account by a
// value of a constraint (its lock, then the lock's owner; a lock without
// owner, or no lock, by looking for holders, which may scan).
func search(ctx context.Context, s Backend, sc *model.Schema, id int, q string, events chan<- tea.Msg) tea.Cmd {
	return func() tea.Msg {
		go func() {
			p, err := find(ctx, s, sc, q, func(what string, n int64) {
				post(ctx, events, searchProgressMsg{id: id, scanned: n, what: what}, false)
			})
			post(ctx, events, searchDoneMsg{id: id, pin: p, err: err}, true)
		}()
		return nil
	}
}

func find(ctx context.Context, s Backend, sc *model.Schema, q string, progress func(string, int64)) (pin, error) {
	p := pin{title: "search: " + model.Printable(q)}
	if a, found, err := s.Account(ctx, q); err != nil || found {
		p.accounts = append(p.accounts, a)
		return p, err
	}
	seen := map[string]bool{}
	add := func(views ...model.AccountView) {
		for _, v := range views {
			if !seen[v.ID] {
				seen[v.ID] = true
				p.accounts = append(p.accounts, v)
			}
		}
	}
	var unowned []model.Problem // locks found that name nobody, or nobody there
	var foreign []int           // constraints whose lock's owner does not hold q
	for ci := range sc.Constraints {
		v := sc.Constraints[ci].Normalize.Apply(q)
		lock, found, err := s.Lock(ctx, ci, q)
		if err != nil {
			return p, err
		}
		if !found {
			continue
		}
		owner := ""
		if o, ok := lock[sc.OwnerAttr]; ok && o.Kind == model.KindS {
			owner = o.S
		}
		if owner != "" {
			a, found, err := s.Account(ctx, owner)
			if err != nil {
				return p, err
			}
			if found {
				add(a)
				if h, hv := sc.Held(ci, a.Item); h != model.HoldsValue || hv != v {
					foreign = append(foreign, ci)
				}
				continue
			}
		}
		unowned = append(unowned, sc.LockProblem(model.OrphanLock, ci, v, owner))
	}
	if len(p.accounts) > 0 && len(unowned) == 0 && len(foreign) == 0 {
		return p, nil
	}
	// No owner to follow: look for holders by value (GSI, else a scan), for
	// the locks that name nobody, or for every attribute when no lock exists.
	scan := foreign
	for _, u := range unowned {
		scan = append(scan, u.ConstraintIndex())
	}
	if len(scan) == 0 && len(p.accounts) == 0 {
		for ci := range sc.Constraints {
			scan = append(scan, ci)
		}
	}
	for _, ci := range scan {
		attr := sc.Constraints[ci].Attr
		views, err := s.Holders(ctx, ci, q, func(n int64) { progress("scanning for "+attr+"="+model.Printable(q), n) })
		if err != nil {
			return p, err
		}
		if len(views) == 0 {
			for _, u := range unowned {
				if u.ConstraintIndex() == ci {
					p.orphans = append(p.orphans, u) // a lock nobody holds
				}
			}
		}
		add(views...)
	}
	if len(p.accounts) == 0 && len(p.orphans) == 0 {
		p.note = "nothing matches " + model.Printable(q) + " (tried the account key and every unique attribute)"
	}
	return p, nil
}

// jump reads the accounts a problem involves, to show them pinned on top.
func jump(ctx context.Context, s Backend, id int, prob model.Problem, events chan<- tea.Msg) tea.Cmd {
	return func() tea.Msg {
		go func() {
			p := pin{title: fmt.Sprintf("%s %s=%s", prob.Kind, prob.Constraint, model.Printable(prob.Value))}
			var err error
			if prob.Kind == model.OrphanLock || (prob.Kind == model.InvalidValue && prob.Lock != nil) {
				p.orphans = append(p.orphans, prob)
			}
			ids := append([]string{}, prob.Accounts...)
			if prob.Owner != "" && prob.Kind != model.OrphanLock {
				ids = append(ids, prob.Owner)
			}
			for _, aid := range ids {
				a, found, e := s.Account(ctx, aid)
				if e != nil {
					err = e
					break
				}
				if found {
					p.accounts = append(p.accounts, a)
				}
			}
			if len(p.accounts) == 0 && len(p.orphans) == 0 {
				p.note = "these rows are gone: the problem may have been fixed (r reloads)"
			}
			post(ctx, events, searchDoneMsg{id: id, pin: p, err: err}, true)
		}()
		return nil
	}
}

// readItem reads an item with a consistent read for the detail view and
// renders it with lines; lines(nil) says what to show when it is gone.
func readItem(ctx context.Context, s Backend, seq int, title string, ref model.KeyRef, lines func(model.Item) []string) tea.Cmd {
	return func() tea.Msg {
		var found model.Item
		err := s.ReadConsistent(ctx, []model.KeyRef{ref}, func(_ string, it model.Item) { found = it })
		if err != nil {
			return detailMsg{seq: seq, title: title, err: err}
		}
		return detailMsg{seq: seq, title: title, lines: lines(found)}
	}
}

// itemOrGone renders an item that should exist.
func itemOrGone(it model.Item) []string {
	if it == nil {
		return []string{"this item no longer exists: it may have been deleted (r reloads)"}
	}
	return detail.ItemLines(it)
}

func orphanWhy(p model.Problem) []string {
	why := "why: orphan_lock: no account holds " + p.Constraint + " = " + model.Printable(p.Value) + ", so nobody can ever claim this value again."
	if p.Owner != "" {
		why += " Its owner " + model.Printable(p.Owner) + " does not hold it (renamed or deleted without releasing the lock)."
	}
	return []string{why}
}
