package ui

import (
	"maps"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/live"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/write"
)

// onLive handles what the follow of the table's stream reports: its
// start and end (the header says them), what it survived (the status
// line), and the changes others made.
func (m Model) onLive(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case live.NoteMsg:
		m.status = "stream of " + model.Printable(msg.Table) + ": " + model.Printable(msg.Note)
	case live.ChangedMsg:
		return m.changed(msg)
	case live.StartedMsg:
		m.live = m.live.Update(msg)
		if !msg.Resumed {
			return m, nil
		}
		// What was written while it was not followed was not seen one
		// write at a time: the rows on screen catch up now, the rest at
		// r or the next check.
		m.status = "live again: the rows on screen read again; r reads everything, and checks"
		m.live.Read(true)
		return m, m.poll()
	case live.TickMsg:
		var due bool
		m.live, due = m.live.Update(msg).Poll()
		cmd := m.lapse(model.Epoch(msg.Now))
		if due {
			cmd = tea.Batch(cmd, m.poll())
		}
		return m, cmd
	default:
		m.live = m.live.Update(msg)
	}
	return m, nil
}

// changed shows changes someone else made: every row held that they
// touch, or that names what they touched, is read again (consistently)
// in every view, the detail too, and the problems they made appear or
// resolved go into the check's report.
func (m Model) changed(msg live.ChangedMsg) (Model, tea.Cmd) {
	m.judged = max(m.judged, msg.Batch)
	if msg.Err != nil {
		m.status = "the table changed, but the changes could not be judged: " + errText(msg.Err)
	}
	ids, locks := live.Touched(m.setup.schema, m.items, msg.Changes)
	named := append(slices.Clone(ids), m.items.Related(ids)...)
	// The accounts view's on disk are read again when they come back.
	involved, values := live.Involved(m.setup.schema, msg.Changes)
	m.views.accounts, _ = m.views.accounts.Update(accounts.TouchedMsg{IDs: involved, Values: values})
	others := live.TouchedItems(m.setup.schema, m.items, msg.Changes)
	// Every change is read again; only someone else's are marked, and
	// told to an open dialog or batch (their own records are not news).
	theirs := m.own.Theirs(msg.Changes)
	if len(theirs) > 0 {
		theirIDs, theirLocks, theirItems := ids, locks, others // all of them: touched already
		if len(theirs) < len(msg.Changes) {
			theirIDs, theirLocks = live.Touched(m.setup.schema, m.items, theirs)
			theirItems = live.TouchedItems(m.setup.schema, m.items, theirs)
		}
		m.items.MarkChanged(append(append(slices.Clone(theirIDs), lockKeys(theirLocks)...), lockKeys(theirItems)...))
	}
	refs := make([]model.KeyRef, len(theirs))
	for i, c := range theirs {
		refs[i] = model.KeyRef{Table: c.Table, Key: m.setup.schema.KeyOf(c.Table, c.Keys)}
	}
	m.layers.write.Changed(refs) // an open dialog says so before anything is sent
	m.layers.batch.Changed(refs)
	var amend tea.Cmd
	m.check, amend = m.check.Amend(msg.Appeared, msg.Resolved)
	m.check = m.check.Lapsing(withTTL(m.setup.schema, msg.Changes))
	if r := m.check.Report(); r != nil {
		amend = tea.Batch(amend, m.check.Suspect(m.setup.opts.Pages, suspectDuplicates(m.setup.schema, m.items, r, msg.Changes), m.clockNow(), m.judged))
	}
	m.views.problems.SetCheck(m.check.Bar())
	var added tea.Cmd
	if inserted := m.inserted(msg.Changes); len(inserted) > 0 {
		added = events.Emit(accounts.AddedMsg{IDs: inserted})
	}
	return m, tea.Batch(m.views.accounts.Reread(ids, false), added, m.views.locks.RefreshFor(named, locks),
		m.views.others.RefreshFor(others), amend, m.rereadDetail(msg.Changes))
}

// suspectDuplicates are the problems changes may have made that the
// follow cannot see and report may not have: a value an account holds
// now that another account the cache holds holds too (a duplicate), a
// lock handed to an owner who does not hold its value while accounts the
// cache holds do (foreign); check.Model.Suspect reads them.
func suspectDuplicates(sc *model.Schema, cache *items.Cache, report *model.Report, changes []model.Change) []model.Problem {
	var ps []model.Problem
	cl := model.Classifier{Schema: sc}
	for _, c := range changes {
		e := cl.Classify(c.Table, c.Image())
		if c.New != nil && e.Kind == model.EntryLock && e.Owner != "" && !model.IsClaim(e.Owner) {
			// A lock handed to an owner who does not hold its value, which
			// accounts the UI holds hold: a foreign lock, not an orphan.
			holders := cache.Holding(map[items.LockValue]bool{{Constraint: e.Constraint, Value: e.Value}: true})
			if len(holders) > 0 && !slices.Contains(holders, e.Owner) {
				ps = append(ps, cl.HolderProblem(model.ForeignLock, e.Constraint, e.Value, e.Owner, holders))
			}
			continue
		}
		if c.New == nil || e.Kind != model.EntryAccount {
			continue
		}
		for ci := range sc.Constraints {
			h, v := sc.Held(ci, c.New)
			if h != model.HoldsValue || slices.ContainsFunc(report.Problems, func(p model.Problem) bool {
				return p.Kind == model.DuplicateValue && p.ConstraintIndex() == ci && p.Value == v
			}) {
				continue
			}
			holders := cache.Holding(map[items.LockValue]bool{{Constraint: ci, Value: v}: true})
			if !slices.Contains(holders, e.ID) {
				holders = append(holders, e.ID)
			}
			if len(holders) > 1 {
				slices.Sort(holders)
				ps = append(ps, cl.HolderProblem(model.DuplicateValue, ci, v, "", holders))
			}
		}
	}
	return ps
}

// clockNow is the time on the UI's clock, in epoch seconds; 0 without
// one (TTLs are then judged at the report's time).
func (m Model) clockNow() int64 {
	if c := m.setup.opts.Clock; c.Set() {
		return model.Epoch(c.Now())
	}
	return 0
}

// withTTL are the locks changes left with a TTL, each as the
// expired_lock it may become (check.Model.Lapsing): one nobody holds has
// no problem now, and none the follow tells when its TTL passes.
func withTTL(sc *model.Schema, changes []model.Change) []model.Problem {
	var ps []model.Problem
	cl := model.Classifier{Schema: sc}
	for _, c := range changes {
		if c.New == nil {
			continue
		}
		if e := cl.Classify(c.Table, c.New); e.Kind == model.EntryLock {
			if at := sc.LockTTL(e.Constraint, c.New); at > 0 {
				p := cl.LockProblem(model.ExpiredLock, e.Constraint, e.Value, e.Owner)
				p.ExpiresAt = at
				ps = append(ps, p)
			}
		}
	}
	return ps
}

// inserted are the accounts changes inserted that the item cache does
// not hold: no view shows them.
func (m *Model) inserted(changes []model.Change) []string {
	var ids []string
	cl := model.Classifier{Schema: m.setup.schema}
	for _, c := range changes {
		if c.Event != model.ChangeInsert || c.Table != m.setup.schema.Table {
			continue
		}
		if e := cl.Classify(c.Table, c.Image()); e.Kind == model.EntryAccount && !m.items.Has(e.ID) {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// rereadDetail reads the detail's item again when changes touched it.
func (m *Model) rereadDetail(changes []model.Change) tea.Cmd {
	ref := m.layers.shownRef
	if ref == nil || !m.layers.detail.Shown() {
		return nil
	}
	for _, c := range changes {
		if c.Table == ref.Table && maps.Equal(m.setup.schema.KeyOf(c.Table, c.Keys), ref.Key) {
			var cmd tea.Cmd
			m.layers.detail, cmd = m.layers.detail.Reread()
			return cmd
		}
	}
	return nil
}

// lockKeys are the cache's names of the lock items at refs.
func lockKeys(refs []model.KeyRef) []string {
	keys := make([]string, len(refs))
	for i, r := range refs {
		keys[i] = items.LockKey(r.Table, r.Key)
	}
	return keys
}

// holderFinder is what looks for the holders of a value by value among
// the UI's roles (nil: none does).
func holderFinder(lookup search.Backend) backend.HolderFinder {
	f, _ := lookup.(backend.HolderFinder)
	return f
}

// poll reads the rows on screen again (Options.Follow), when the table
// is not followed (views.poll says which).
func (m *Model) poll() tea.Cmd { return m.views.poll(m.listHeight()) }

// lapse judges the time words on screen at now (epoch seconds), reading
// nothing: the rows' words count from it, a lock whose TTL it passed is
// expired, and an expiring lock the report lists becomes an expired one.
func (m *Model) lapse(now int64) tea.Cmd {
	m.items.SetNow(now)
	m.views.problems.SetNow(now)
	var cmd tea.Cmd
	m.check, cmd = m.check.Lapse(m.setup.opts.Pages, now, m.judged)
	return cmd
}

// forgetUnwritten drops the footprints of a write whose outcome says it
// wrote nothing (or, a reclaim whose claim committed, not its last step):
// no record of it will come to match them.
func (m Model) forgetUnwritten(o write.OutcomeMsg) {
	switch o.Result.Outcome {
	case model.Committed, model.Unknown:
		return // its records come, or may
	case model.Skipped:
		if o.Claimed != "" {
			return // a reclaim that gave the lock back: that record comes
		}
	}
	if o.Claimed != "" {
		m.own.Forget(o.Claimed, true)
		return
	}
	m.own.Forget(o.Result.Token, false)
}
