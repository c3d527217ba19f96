package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/batch"
	"github.com/locktable/locktable/ui/check"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/live"
	"github.com/locktable/locktable/ui/locks"
	"github.com/locktable/locktable/ui/mistakes"
	"github.com/locktable/locktable/ui/others"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/styles"
	"github.com/locktable/locktable/ui/write"
	"github.com/locktable/locktable/ui/writelog"
)

// Update routes a message to the widget it is for; what one widget asks
// of another comes back as a message and is routed the same way.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := m.update(msg)
	// Help lists the keys the view under it has now, which a message
	// other than a key, a resize or a tick (a report arriving, a page
	// loaded) may turn on or off: it is laid out again then.
	inner := msg
	if e, ok := msg.(events.Msg); ok {
		inner = e.Msg
	}
	switch inner.(type) {
	case tea.KeyPressMsg, tea.WindowSizeMsg, spinner.TickMsg, live.TickMsg:
	default:
		if nm, ok := next.(Model); ok && nm.help.open {
			nm.layHelp()
			return nm, cmd
		}
	}
	return next, cmd
}

func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case events.Msg:
		next, cmd := m.update(msg.Msg)
		return next, tea.Batch(cmd, m.setup.pump.Listen())
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, m.prefetch()
	case tea.BackgroundColorMsg:
		if m.setup.opts.Theme != "dark" && m.setup.opts.Theme != "light" { // a theme chosen in the config stays
			*m.setup.st = styles.New(msg.IsDark())
		}
	case spinner.TickMsg:
		// The status line's spinner, the dialog's while it waits, and the
		// menu's while a mistake is replayed.
		var wcmd, mcmd tea.Cmd
		m.spinner, cmd = m.spinner.Update(msg)
		m.layers.write, wcmd = m.layers.write.Update(msg)
		m.layers.mistakes, mcmd = m.layers.mistakes.Update(msg)
		cmd = tea.Batch(cmd, wcmd, mcmd)
	case tea.KeyPressMsg:
		return m.onKeys(msg)
	case tea.PasteMsg:
		return m.onPaste(msg)
	case tea.MouseWheelMsg:
		if m.tooSmall() {
			return m, nil
		}
		return m.route(msg)
	case tea.MouseClickMsg:
		return m.click(msg)
	case capabilitiesMsg:
		m.takeCapabilities(msg)
	case tablesMsg, exportedMsg, columnsSavedMsg:
		return m.onCommandDone(msg)
	case accounts.PageMsg, accounts.LocksMsg, accounts.SweepMsg, accounts.RefreshedMsg, accounts.PinMsg, accounts.AddedMsg, accounts.ProblemsMsg, locks.PageMsg, locks.RefreshedMsg, others.PageMsg, others.RefreshedMsg, others.ShowMsg:
		return m.onList(msg)
	case check.ProgressMsg, check.DoneMsg, check.RejudgedMsg, check.OrphansMsg, check.ReportMsg:
		return m.onCheck(msg)
	case accounts.JumpMsg, search.ProgressMsg, search.DoneMsg, search.JumpMsg, detail.OpenMsg, detail.ItemMsg, copyItemMsg:
		return m.onLookup(msg)
	case mistakes.DoneMsg, write.SendingMsg, write.WrittenMsg, write.RenameMsg, write.DeleteMsg, write.FixMsg, write.PlanMsg, write.SentMsg, write.SavedMsg,
		write.RacePlannedMsg, write.RacerMsg, write.RaceVerifiedMsg, write.OutcomeMsg, write.UndoMsg, writelog.OpenMsg,
		dialog.SubmitMsg, dialog.SendMsg, dialog.SaveMsg, dialog.CloseMsg:
		return m.onWrite(msg)
	case live.StartedMsg, live.NoteMsg, live.ChangedMsg, live.EndedMsg, live.TickMsg:
		return m.onLive(msg)
	case batch.PlannedMsg, batch.SentMsg, batch.UndoMsg, batch.SettledMsg:
		return m.onBatch(msg)
	}
	return m, cmd
}

// onCommandDone handles what a command of the command line did in the
// background: the tables listed (:table), a file exported (:export).
func (m Model) onCommandDone(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case exportedMsg:
		return m.onExported(msg), nil
	case columnsSavedMsg:
		return m.onColumnsSaved(msg), nil
	}
	return m.onTables(msg.(tablesMsg))
}

// onBatch handles a batch of fixes' messages.
func (m Model) onBatch(msg tea.Msg) (Model, tea.Cmd) {
	if settled, ok := msg.(batch.SettledMsg); ok {
		// What was sent is unmarked; what was not stays marked.
		m.views.problems, _ = m.views.problems.Update(settled)
		m.views.locks, _ = m.views.locks.Update(settled)
		return m, nil
	}
	return m, step(&m.layers.batch, msg)
}

// onList handles the list views' answers: a page, a refresh, a pin, a
// request for the problems view.
func (m Model) onList(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case accounts.PageMsg:
		m.views.accounts, cmd = m.views.accounts.Update(msg)
		// The probes (Options.Shown) and the check start once the first
		// rows are on screen: they would share the CPU and the backend
		// with drawing them.
		if shown := m.setup.opts.Shown; shown != nil {
			m.setup.opts.Shown = nil // told once, whatever the page brought
			cmd = tea.Batch(cmd, tea.Sequence(onScreen(), tellShown(shown)))
		}
		if !m.check.Started() && !m.setup.opts.NoCheck && m.views.accounts.Err() == nil {
			cmd = tea.Batch(cmd, tea.Sequence(onScreen(), m.startCheck(false)))
		}
		var follow tea.Cmd
		m.live.Read(false)
		m.live, follow = m.live.Start() // once: later pages start nothing
		cmd = tea.Batch(cmd, follow)
	case accounts.RefreshedMsg:
		if !msg.Live {
			m.status = "" // "written; reloading the rows involved"
		}
		m.views.accounts, cmd = m.views.accounts.Update(msg)
		m.items.TakeDrift() // a write's, which runs the check again itself or judges again what it fixed
	case accounts.AddedMsg, accounts.LocksMsg, accounts.SweepMsg:
		m.views.accounts, cmd = m.views.accounts.Update(msg)
	case accounts.PinMsg:
		m.views.shown, m.help.open = viewAccounts, false
		m.layers.detail.Close()
		m.layers.writelog.Close()
		m.views.accounts.Pager().SetFilter("") // what was asked for is shown, not filtered out
		m.views.accounts, cmd = m.views.accounts.Update(msg)
		if m.items.TakeDrift() && m.check.Report() != nil && !m.check.Bar().Running && !m.setup.opts.NoCheck {
			// What was found differs from what the rows showed: the table
			// changed since the check, whose counts the header shows.
			cmd = tea.Batch(cmd, m.startCheck(false))
		}
	case accounts.ProblemsMsg:
		cmd = m.switchTo(viewProblems)
		m.views.problems.ShowKind(msg.Kind)
	case locks.PageMsg, locks.RefreshedMsg:
		m.views.locks, cmd = m.views.locks.Update(msg)
	case others.PageMsg, others.RefreshedMsg:
		m.views.others, cmd = m.views.others.Update(msg)
	case others.ShowMsg:
		cmd = m.switchTo(viewItems)
	}
	return m, cmd
}

// onCheck hands the check's progress and findings to every view that
// shows them.
func (m Model) onCheck(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case check.RejudgedMsg:
		m.check, cmd = m.check.Update(msg)
		m.views.problems.SetCheck(m.check.Bar())
		// What the reads found is known from then on to the follow too:
		// a problem a fix resolved, made again by someone else, is news.
		if gone, there, ok := msg.Judged(); ok {
			m.live.Rejudged(gone, there, msg.Since)
		}
	case check.ProgressMsg:
		m.check, cmd = m.check.Update(msg)
		m.views.problems.SetCheck(m.check.Bar())
	case check.DoneMsg:
		m.check, cmd = m.check.Update(msg)
		m.views.problems.SetCheck(m.check.Bar())
		cmd = tea.Batch(cmd, releaseMemory)
	case check.OrphansMsg:
		m.views.accounts.SetOrphans(msg.Problems)
	case check.ReportMsg:
		if msg.Checked {
			m.live.Know(msg.Report.Problems, m.checkSince) // the stream's changes are judged against it
			if now := m.clockNow(); now != 0 {
				// The check judged its TTLs when it began: what lapsed while
				// it ran (the clock's ticks skip a running check) lapses now.
				cmd = m.lapse(now)
			}
		}
		// Reports come as commands, which run side by side: one amended
		// after it may have come first. The views take only the report the
		// check holds now, the header's.
		if msg.Report != m.check.Report() {
			break
		}
		// Set once, on the cache every view judges by; the accounts put
		// its orphans on top, the problems view lists it.
		m.items.SetReport(msg.Report, msg.Duplicates)
		m.views.accounts.Judged()
		m.views.problems.SetReport(msg.Report, msg.Hint)
	}
	return m, cmd
}

// onLookup handles what a search, a jump, the detail or C read.
func (m Model) onLookup(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case accounts.JumpMsg:
		m.layers.search, cmd = m.layers.search.Update(search.JumpMsg(msg))
	case search.ProgressMsg, search.DoneMsg, search.JumpMsg:
		m.layers.search, cmd = m.layers.search.Update(msg)
	case detail.OpenMsg:
		if !m.dialogOver(layerDetail) {
			m.layers.shownRef = msg.Read
			m.layers.detail, cmd = m.layers.detail.Open(msg)
			m.help.open = m.help.open && !m.layers.detail.Shown()
		}
	case detail.ItemMsg:
		if !m.dialogOver(layerDetail) {
			m.layers.detail, cmd = m.layers.detail.Update(msg)
		}
	case copyItemMsg:
		if msg.err != nil {
			m.status = "not copied: " + errText(msg.err)
			return m, nil
		}
		m.status = fmt.Sprintf("copied the item (%d bytes of DynamoDB JSON, control characters and bidi overrides escaped as \\u) %s", len(msg.doc), osc52)
		return m, tea.SetClipboard(msg.doc)
	}
	return m, cmd
}

// onWrite handles the write flow's messages and a replayed mistake's
// result.
func (m Model) onWrite(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case mistakes.DoneMsg:
		return m.replayed(msg)
	case write.SendingMsg:
		m.own.Sending(msg.Footprints)
	case write.OutcomeMsg:
		m.layers.writelog.Record(msg)
		m.forgetUnwritten(msg)
	case write.UndoMsg:
		m.layers.write, cmd = m.layers.write.Undo(msg.Token, msg.Title)
	case writelog.OpenMsg:
		m.openLog()
	case write.WrittenMsg:
		m.status = "written; reloading the rows involved"
		var start tea.Cmd
		if msg.Committed {
			// A fix judges again only what it touched; any other write
			// (or a fix that cannot) runs the whole check.
			if start = m.check.Rejudge(m.setup.opts.Pages, msg.Rejudge, m.clockNow(), m.judged); start == nil {
				start = m.startCheck(false)
			}
		} else {
			m.status = "not written; reading the rows involved again"
		}
		// Every row that names what the write changed is read again.
		named := append(slices.Clone(msg.Accounts), m.items.Related(msg.Accounts)...)
		cmd = tea.Batch(m.views.accounts.Reread(msg.Accounts, true), m.views.locks.RefreshFor(named, msg.Locks), start)
	default:
		m.layers.write, cmd = m.layers.write.Update(msg)
	}
	return m, cmd
}

// replayed closes the menu of mistakes on a replay's result: the accounts
// it wrote are read again and the check runs again, as after any write;
// the detail says what was sent and why.
func (m Model) replayed(msg mistakes.DoneMsg) (Model, tea.Cmd) {
	m.layers.mistakes, _ = m.layers.mistakes.Update(msg)
	if msg.Err != nil {
		m.status = "not replayed: " + errText(msg.Err)
		return m, nil
	}
	r := msg.Replay
	lines, err := r.Lines(true)
	if err != nil {
		// Written all the same: the detail says why it shows nothing
		// more (a status line would be overwritten by WrittenMsg's).
		lines = []string{r.Kind + ": written, but the requests cannot be shown: " + errText(err)}
	}
	return m, tea.Batch(events.Emit(write.WrittenMsg{Accounts: r.Accounts, Committed: true}),
		events.Emit(detail.OpenMsg{Title: "replayed " + r.Kind + ": it leaves " + string(r.Problem),
			Render: func(model.Item) []string { return lines }}))
}

// onKey handles a key: the search field and the dialog take every key but
// ctrl+c; otherwise the root's own keys, then what is shown.
func (m Model) onKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	m.layers.detail.Drop() // a detail still being read is stale: the user has moved on
	km := m.keys()
	var cmd tea.Cmd
	switch {
	case m.layers.write.Sending() && key.Matches(msg, km.Interrupt, m.setup.km.Quit):
		// While a write is in flight the dialog takes no text: q, which
		// the dialog's keys (km) leave out, waits for it as ctrl+c does.
		m.layers.write, cmd = m.layers.write.Quit()
		return m, cmd
	case m.layers.batch.Sending() && key.Matches(msg, km.Interrupt, m.setup.km.Quit):
		// A batch stops after the transaction in flight, and quits once
		// it is settled.
		m.layers.batch, cmd = m.layers.batch.Quit()
		return m, cmd
	case key.Matches(msg, km.Interrupt, km.Quit), m.tooSmall() && key.Matches(msg, m.setup.km.Quit):
		return m, tea.Quit
	case m.tooSmall():
		// Nothing is shown to take the key: a y here would send a preview
		// the user cannot see.
		return m, nil
	case m.typing():
		cmd = m.on(m.top(layerSearch)).update(msg) // before m is returned: it changes m
		return m, cmd
	}
	return m.onRootKey(msg, km)
}

// onPaste hands a paste to the text field open, which takes it whole or
// says why not; it is never a key. With no field open, it is refused.
func (m Model) onPaste(msg tea.PasteMsg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch l := m.top(layerSearch); {
	case m.tooSmall():
	case l <= layerBatch: // a field, the dialog or a batch's count: the menu of mistakes takes no text
		cmd = m.on(l).update(msg)
	default:
		m.status = fmt.Sprintf("not pasted: no text field is open (%s filters, %s takes a command)",
			m.setup.km.Search.Help().Key, m.setup.km.Command.Help().Key)
	}
	return m, cmd
}

// viewFor is the view a view key switches to: the next or previous tab,
// or the one it names.
func (m Model) viewFor(msg tea.KeyPressMsg, km keymap.KeyMap) view {
	n := view(m.tabs())
	switch {
	case key.Matches(msg, km.NextView):
		return (m.views.shown + 1) % n
	case key.Matches(msg, km.PrevView):
		return (m.views.shown + n - 1) % n
	case key.Matches(msg, km.Locks):
		return viewLocks
	case key.Matches(msg, km.Problems):
		return viewProblems
	case key.Matches(msg, km.Items):
		return viewItems
	}
	return viewAccounts
}

// onRootKey handles a key over a list view, the detail or help: the
// root's own keys (km, as they work now), then what is shown.
func (m Model) onRootKey(msg tea.KeyPressMsg, km keymap.KeyMap) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	m.status = m.refusedWrite(msg)
	asked := m.exactAsked
	m.exactAsked = "" // asked of the key pressed just before, only
	switch {
	case m.status != "":
	case key.Matches(msg, km.WriteLog):
		m.openLog()
	case key.Matches(msg, km.Help):
		m.toggleHelp()
	case key.Matches(msg, km.Back):
		m.back()
	case key.Matches(msg, km.NextView, km.PrevView, km.Accounts, km.Locks, km.Problems, km.Items):
		cmd = m.switchTo(m.viewFor(msg, km))
	case key.Matches(msg, km.Search):
		m.help.open = false
		m.layers.detail.Close()
		m.layers.search, cmd = m.layers.search.Open(m.listFilter())
		m.filterShown()
		return m, cmd
	case key.Matches(msg, km.ClearFilter):
		m.setFilter("")
	case key.Matches(msg, km.Command):
		return m.openCommandLine()
	case key.Matches(msg, km.Add):
		m.layers.write, cmd = m.layers.write.Signup(m.views.accounts.SampleIDs(50))
		return m, cmd
	case key.Matches(msg, km.Break):
		m.layers.mistakes = m.layers.mistakes.Open()
		return m, nil
	case key.Matches(msg, km.Race):
		m.layers.write, cmd = m.layers.write.Race(m.views.accounts.SampleIDs(50))
		return m, cmd
	case key.Matches(msg, km.Undo):
		return m.undo()
	case key.Matches(msg, km.Reload):
		var reread tea.Cmd
		m.layers.detail, reread = m.layers.detail.Reread() // what is on screen, too
		cmd = tea.Batch(m.reload(), reread)
	case key.Matches(msg, km.CopyKey):
		ref, _ := m.copyRef()
		return m.copyKey(refKey(ref, m.setup.schema.PK))
	case key.Matches(msg, km.CopyExact):
		ref, _ := m.copyRef()
		return m.copyExact(refKey(ref, m.setup.schema.PK), asked)
	case key.Matches(msg, km.CopyItem):
		ref, _ := m.copyRef()
		return m, copyItem(m.setup.ctx, m.setup.opts.Pages, ref)
	case key.Matches(msg, m.setup.km.CopyItem) && m.layers.detail.Missing():
		m.status = "no item has this key: nothing to copy as JSON (" + km.CopyKey.Help().Key + " copies the key)"
	default:
		if m.unbound(msg, km) {
			return m.sayNothingDone(msg, km)
		}
		return m.route(msg)
	}
	return m, tea.Batch(cmd, m.prefetch())
}

// sayNothingDone hands msg, a key help does not list, to what is shown,
// and says so when nothing changed on screen: a key that does nothing
// says it does, rather than nothing. A key a view takes without listing
// it (one that says why it cannot act on this row) changes the screen.
func (m Model) sayNothingDone(msg tea.KeyPressMsg, km keymap.KeyMap) (tea.Model, tea.Cmd) {
	before := m.content()
	next, cmd := m.route(msg)
	if after, ok := next.(Model); ok && after.content() == before {
		after.status = fmt.Sprintf("%s does nothing here (%s lists the keys)", msg.String(), km.Help.Help().Key)
		return after, cmd
	}
	return next, cmd
}

// unbound reports whether msg is a printable key that no binding of what
// is shown, nor of the root's, names, enabled or not: help does not list
// it.
func (m Model) unbound(msg tea.KeyPressMsg, km keymap.KeyMap) bool {
	if msg.Text == "" || msg.Mod&^tea.ModShift != 0 {
		return false
	}
	for _, bs := range append(m.active().FullHelp(), km.FullHelp()...) {
		for _, b := range bs {
			if slices.Contains(b.Keys(), msg.String()) {
				return false
			}
		}
	}
	return true
}

// toggleHelp opens help over what is shown, or closes it.
func (m *Model) toggleHelp() {
	m.help.open, m.help.page = !m.help.open, 0
	m.layers.detail.Close()
	if m.help.open {
		m.layHelp()
	}
}

// back closes help or the detail, or leaves a list view for the accounts.
func (m *Model) back() { m.on(m.top(layerHelp)).close() }

// openLog shows the writes log over the list view.
func (m *Model) openLog() {
	m.help.open = false
	m.layers.detail.Close()
	m.layers.writelog.Open()
}

// undo previews taking back the session's last committed write, or
// redoing it when that was an undo (see writelog.Model.UndoLast).
func (m Model) undo() (Model, tea.Cmd) {
	u, why := m.layers.writelog.UndoLast()
	if why != "" {
		m.status = why
		return m, nil
	}
	var cmd tea.Cmd
	m.layers.write, cmd = m.layers.write.Undo(u.Token, u.Title)
	return m, cmd
}

// refusedWrite says why a write key does nothing on a read-only store
// ("" for any other key, or where the key writes nothing).
func (m Model) refusedWrite(msg tea.KeyPressMsg) string {
	if m.writeKeys.enabled || m.top(layerHelp) < layerWriteLog { // help or the detail: no write key
		return ""
	}
	for _, b := range append(slices.Clip(m.writeKeys.byView[m.views.shown]), m.writeKeys.race) {
		if key.Matches(msg, b) {
			why := m.setup.opts.ReadOnlyWhy
			if why == "" {
				why = "writes are disabled"
			}
			return b.Help().Key + " " + b.Help().Desc + ": read-only, " + why
		}
	}
	return ""
}

// copyItemMsg answers C: the item of the detail as DynamoDB JSON.
type copyItemMsg struct {
	doc string
	err error
}

// copyItem reads the item at ref again, consistently, as DynamoDB JSON.
func copyItem(ctx context.Context, b detail.Reader, ref model.KeyRef) tea.Cmd {
	return func() tea.Msg {
		var found model.Item
		if err := b.ReadConsistent(ctx, []model.KeyRef{ref}, func(_ string, it model.Item) { found = it }); err != nil {
			return copyItemMsg{err: err}
		}
		if found == nil {
			return copyItemMsg{err: fmt.Errorf("no item at %s: nothing to copy", model.Printable(refKey(ref, "")))}
		}
		doc, err := json.MarshalIndent(found, "", "  ")
		if err != nil {
			return copyItemMsg{err: err}
		}
		return copyItemMsg{doc: model.EscapeJSON(string(doc))}
	}
}

// refKey is a key as it is stored: its partition key pk when it has one,
// its only attribute, or every attribute as name=value.
func refKey(ref model.KeyRef, pk string) string {
	if v, ok := ref.Key[pk]; ok {
		return v
	}
	names := slices.Sorted(maps.Keys(ref.Key))
	if len(names) == 1 {
		return ref.Key[names[0]]
	}
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + "=" + ref.Key[name]
	}
	return strings.Join(parts, " ")
}

// route hands a key or the mouse wheel to what is shown.
func (m Model) route(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.on(m.top(layerHelp)).update(msg)
	return m, tea.Batch(cmd, m.prefetch())
}

// pageHelp turns the help screen's pages.
func (m *Model) pageHelp(msg tea.Msg) tea.Cmd {
	nav := m.help.nav
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, nav.PageDown, nav.Down) {
		m.help.page = min(m.help.page+1, len(m.help.pages)-1)
	} else if ok && key.Matches(k, nav.PageUp, nav.Up) {
		m.help.page = max(m.help.page-1, 0)
	}
	return nil
}

// opened opens the dialog a key asked for (asked: a write message, nil
// for none) in the update of that key, not a message later: the keys
// typed next land in it, not in the list under it. cmd is the list's.
func (m *Model) opened(cmd tea.Cmd, asked tea.Msg) tea.Cmd {
	var wcmd tea.Cmd
	if fix, ok := asked.(write.FixMsg); ok && m.layers.write.Refuses(fix.Problem) != "" {
		m.status, asked = m.layers.write.Refuses(fix.Problem), nil // a refusal is the status line's, not a dialog's
	}
	if fix, ok := asked.(batch.FixMsg); ok {
		m.layers.batch, wcmd = m.layers.batch.Fix(fix.Problems)
		return tea.Batch(cmd, wcmd)
	}
	if asked != nil {
		m.layers.write, wcmd = m.layers.write.Update(asked)
	}
	return tea.Batch(cmd, wcmd)
}

// click selects the row of the list clicked; over anything else (help,
// the detail, a dialog, the header) it does nothing.
func (m Model) click(msg tea.MouseClickMsg) (tea.Model, tea.Cmd) {
	if m.tooSmall() || m.top(layerSearch) < layerWriteLog { // the writes log takes a click as the lists do
		return m, nil
	}
	msg.Y -= listTop
	return m.route(msg)
}

// switchTo shows a list view, closing what was open over the last one.
func (m *Model) switchTo(v view) tea.Cmd {
	m.views.shown, m.help.open = v, false
	m.layers.detail.Close()
	m.layers.writelog.Close()
	t := m.views.tab()
	cmd := t.show() // the locks and the other items are read on the first visit
	m.views.put(t)
	return cmd
}

// prefetch keeps a few screens loaded below the selection of each list,
// so that scrolling does not wait on the network.
func (m *Model) prefetch() tea.Cmd {
	return tea.Batch(m.views.accounts.Pager().Prefetch(), m.views.locks.Prefetch(), m.views.others.Prefetch())
}

// failure is something that failed, and how r retries it (nil: r
// reloads). retry takes the root rather than holding it: a closure over
// it would move the root to the heap on every frame, which shows the
// first failure.
type failure struct {
	err   error
	retry func(*Model) tea.Cmd
}

// failures lists what failed, the view shown first.
func (m *Model) failures() []failure {
	fs := []failure{{m.views.accounts.Err(), func(m *Model) tea.Cmd { return m.views.accounts.Retry() }},
		{m.views.locks.Err(), func(m *Model) tea.Cmd { return m.views.locks.Retry() }},
		{m.views.others.Err(), func(m *Model) tea.Cmd { return m.views.others.Retry() }}}
	if i := slices.Index([]view{viewAccounts, viewLocks, viewItems}, m.views.shown); i > 0 {
		fs[0], fs[i] = fs[i], fs[0]
	}
	fs = append(fs, failure{m.check.Err(), func(m *Model) tea.Cmd { return m.startCheck(false) }}, failure{m.layers.search.Err(), nil}, failure{m.layers.detail.Err(), nil})
	return slices.DeleteFunc(fs, func(f failure) bool { return f.err == nil })
}

// reload retries what failed, or reads everything again with consistent
// reads and runs the check again (in the locks view, the locks only).
func (m *Model) reload() tea.Cmd {
	if fs := m.failures(); len(fs) > 0 && fs[0].retry != nil {
		if cmd := fs[0].retry(m); cmd != nil {
			return cmd
		}
	}
	m.layers.search.ClearErr()
	m.layers.detail.ClearErr()
	m.live.Read(true)
	t := m.views.tab()
	if cmd, ok := t.reload(); ok {
		m.views.put(t)
		return cmd
	}
	cmds := []tea.Cmd{m.views.accounts.Reload(), m.views.locks.Reload(), m.views.others.Reload()}
	if !m.setup.opts.NoCheck {
		cmds = append(cmds, m.startCheck(true))
	}
	return tea.Batch(cmds...)
}

// startCheck runs the check again (see check.Model.Start) and tells the
// problems view it runs.
func (m *Model) startCheck(fresh bool) tea.Cmd {
	var cmd tea.Cmd
	m.checkSince = m.judged
	m.check, cmd = m.check.Start(fresh)
	m.views.problems.SetCheck(m.check.Bar())
	return cmd
}

// releaseMemory gives the memory a finished check's census held back to
// the system at once (the Go runtime would, over minutes): the UI's
// resident memory after the check is its own, as it is on a small table.
// It runs off the update loop.
func releaseMemory() tea.Msg {
	debug.FreeOSMemory()
	return nil
}
