// Package writelog is the log of the session's writes (lazygit's command
// log): every write sent, with its operation, keys, outcome and token,
// newest first, and the audit log they are recorded in. It is fed the
// write flow's outcomes (write.OutcomeMsg) and asks it to preview taking
// one back (write.UndoMsg): an undo of a committed write, or, for an undo,
// a redo of what it undid.
package writelog

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/redact"
	"github.com/locktable/locktable/ui/batch"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/styles"
	"github.com/locktable/locktable/ui/write"
)

// OpenMsg asks for the log to be shown (the open key, :writes).
type OpenMsg struct{}

// KeyMap is the log's bindings.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	// Undo previews taking back the selected write (redoing, for an undo).
	Undo key.Binding
	// Enter opens the selected write's detail: every key and reason.
	Enter key.Binding
}

// DefaultKeyMap returns the log's bindings: lists' moves, and u.
func DefaultKeyMap() KeyMap {
	nav := browser.DefaultKeyMap()
	return KeyMap{Up: nav.Up, Down: nav.Down, PageUp: nav.PageUp, PageDown: nav.PageDown, Top: nav.Top, Bottom: nav.Bottom,
		Undo:  key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo/redo write")),
		Enter: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail"))}
}

// entry is one transaction the session sent.
type entry struct {
	res    model.Result
	undoes string // an undo's: the token of the write it takes back
	claim  bool   // a reclaim's first step, which its last step ends
	racer  string // "racer 3 of 10", in a race
	err    string // why it certainly did not apply, or has no outcome
	// group is the batch it was sent in ("" for none), and groupTitle
	// what the batch did: u on any of its writes takes back the batch.
	group, groupTitle string
}

// Model is the log: the session's writes, oldest first (shown newest
// first), and which is selected.
type Model struct {
	km      KeyMap
	st      *styles.Styles
	audit   string
	entries []entry
	shown   bool
	cursor  int // into the rows as shown: 0 is the newest
	offset  int
	width   int
	height  int
	status  string         // why the last u did nothing
	opWidth int            // of the widest operation logged, for the column
	byToken map[string]int // each write's number by its token
	// chains are what the undo chains say of each write, worked out as
	// writes are recorded (add), not on each frame.
	chains chains
}

// chains are the log's undo chains: where each write's chain goes back to
// (origins[n-1]) and which committed writes are no longer in effect
// (taken, as takenBack says).
type chains struct {
	origins []origin
	taken   map[int]int
}

// origin is where write n's undos go back to: write k, undos apart.
type origin struct{ k, undos int }

// New returns the log, empty and hidden; audit is the audit log's path
// ("": none, as on a read-only store).
func New(km KeyMap, st *styles.Styles, audit string) Model {
	return Model{km: km, st: st, audit: audit}
}

// SetSize sets the log's size in cells.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.clamp()
}

// clamp keeps the selection on a write and in view.
func (m *Model) clamp() {
	m.cursor = min(max(m.cursor, 0), max(len(m.entries)-1, 0))
	rows := m.listHeight()
	m.offset = min(max(m.offset, m.cursor-rows+1, 0), m.cursor)
}

// Shown reports whether the log is on screen.
func (m Model) Shown() bool { return m.shown }

// Open shows the log, the newest write selected.
func (m *Model) Open() { m.shown, m.cursor, m.offset, m.status = true, 0, 0, "" }

// Close hides the log.
func (m *Model) Close() { m.shown, m.status = false, "" }

// Writes are the writes a log holds, for the log of the UI that replaces
// this one (:table, :target): the log lasts as long as the UI runs,
// whatever table it shows.
type Writes struct{ entries []entry }

// Writes is what the log holds, oldest first.
func (m Model) Writes() Writes { return Writes{entries: slices.Clone(m.entries)} }

// Carry logs the writes of the log this one replaces, before any of its
// own.
func (m *Model) Carry(w Writes) {
	for _, e := range w.entries {
		m.add(e)
	}
}

// Len is the number of writes logged.
func (m Model) Len() int { return len(m.entries) }

// Record logs a write's outcome. The same write stays selected.
func (m *Model) Record(o write.OutcomeMsg) {
	if o.Claimed != "" {
		m.add(entry{res: model.Result{Operation: o.Result.Operation, Keys: o.Result.Keys, Outcome: model.Committed, Token: o.Claimed}, claim: true,
			group: o.Group, groupTitle: o.GroupTitle})
	}
	e := entry{res: o.Result, undoes: o.Undoes, group: o.Group, groupTitle: o.GroupTitle}
	if o.Racer > 0 {
		e.racer = fmt.Sprintf("racer %d of %d", o.Racer, o.Racers)
	}
	if o.Err != nil {
		e.err = model.OneLine(redact.String(o.Err.Error()))
	}
	m.add(e)
}

func (m *Model) add(e entry) {
	m.entries = append(m.entries, e)
	if m.byToken == nil {
		m.byToken = map[string]int{}
	}
	if !e.claim && e.res.Token != "" {
		m.byToken[e.res.Token] = len(m.entries) // a resend's answer settles the first
	}
	// A resend renumbers its token, which may reroute earlier chains: they
	// are all walked again, once a write.
	m.chains.origins = make([]origin, len(m.entries))
	for n := range m.entries {
		_, k, undos := m.walk(n + 1)
		m.chains.origins[n] = origin{k, undos}
	}
	m.chains.taken = m.takenBack()
	m.opWidth = max(m.opWidth, len(m.operation(len(m.entries))))
	if m.cursor > 0 {
		m.cursor++
	}
	m.clamp()
}

// at is the entry shown at row i (0: the newest), and its number (#n,
// from 1 for the session's first write).
func (m Model) at(i int) (entry, int) {
	n := len(m.entries) - i
	return m.entries[n-1], n
}

// number is the number of the write with token (its last sending), 0 if
// it is not logged.
func (m Model) number(token string) int { return m.byToken[token] }

// takenBack maps each committed write no longer in effect to the newest
// committed write of its family (a write and the undos that go back to
// it) that took it back: the family's items are as its newest left them,
// so the writes in effect are those that leave the same (an even number of
// undos apart), and undoing any of them passes its guards.
func (m Model) takenBack() map[int]int {
	type newest struct{ n, parity int }
	latest := map[int]newest{}
	for n := 1; n <= len(m.entries); n++ {
		if e := m.entries[n-1]; e.res.Outcome == model.Committed && !e.claim {
			o := m.chains.origins[n-1]
			latest[o.k] = newest{n, o.undos % 2}
		}
	}
	by := map[int]int{}
	for n := 1; n <= len(m.entries); n++ {
		if e := m.entries[n-1]; e.res.Outcome == model.Committed && !e.claim {
			o := m.chains.origins[n-1]
			if l := latest[o.k]; l.parity != o.undos%2 {
				by[n] = l.n
			}
		}
	}
	return by
}

// origin is where write n's undos go back to (base, number k) and how
// many undos lie between: an odd number undoes it, an even one (a redo)
// does it again. As recorded: it walks nothing.
func (m Model) origin(n int) (base entry, k, undos int) {
	o := m.chains.origins[n-1]
	return m.entries[o.k-1], o.k, o.undos
}

// walk follows write n's undos back to the write they go back to, for
// origin.
func (m Model) walk(n int) (base entry, k, undos int) {
	e := m.entries[n-1]
	for e.undoes != "" {
		j := m.number(e.undoes)
		if j == 0 {
			break // an undo of a write this session did not send
		}
		n, e, undos = j, m.entries[j-1], undos+1
	}
	return e, n, undos
}

// operation is the log's name for write n: its operation, an undo's
// effect with the write it goes back to ("undo #1", "redo #1").
func (m Model) operation(n int) string {
	e := m.entries[n-1]
	switch _, k, undos := m.origin(n); {
	case e.claim:
		return e.res.Operation + " claim"
	case undos == 0:
		return e.res.Operation
	case undos%2 == 1:
		return fmt.Sprintf("undo #%d", k)
	default:
		return fmt.Sprintf("redo #%d", k)
	}
}

// offer is what u does on write n: the undo to preview, or why there is
// none. Taking back an undo is a redo, named by the write it redoes.
func (m Model) offer(n int) (write.UndoMsg, string) {
	e := m.entries[n-1]
	switch {
	case e.claim:
		return write.UndoMsg{}, fmt.Sprintf("#%d is the claim step of a repair, which its last step (#%d) ends: u there takes the repair back", n, n+1)
	case m.number(e.res.Token) > n:
		return write.UndoMsg{}, fmt.Sprintf("#%d was sent again, with its token, as #%d: u there", n, m.number(e.res.Token))
	case e.res.Outcome == model.Unknown:
		return write.UndoMsg{}, fmt.Sprintf("#%d is not offered for undo: its outcome is unknown, so it may have written nothing; check its keys (locktable check), then locktable undo %s if it committed", n, e.res.Token)
	case e.res.Outcome != model.Committed:
		what := strings.ReplaceAll(string(e.res.Outcome), "_", " ")
		if what == "" {
			what = "not sent"
		}
		return write.UndoMsg{}, fmt.Sprintf("#%d is not offered for undo: it was %s, so it wrote nothing", n, what)
	}
	if k, ok := m.chains.taken[n]; ok {
		return write.UndoMsg{}, fmt.Sprintf("#%d was taken back by #%d: u on #%d puts it back", n, k, k)
	}
	base, _, undos := m.origin(n)
	verb := "undo "
	if undos%2 == 1 {
		verb = "redo "
	}
	return write.UndoMsg{Token: e.res.Token, Title: verb + base.res.Operation + " " + model.Printable(strings.Join(base.res.Keys, ", "))}, ""
}

// offerGroup is what u does on a write of batch group: take back every
// write of it that can still be taken back, newest first, each as u
// takes back one (offer); why when none can be.
func (m Model) offerGroup(group string) (batch.UndoMsg, string) {
	var u batch.UndoMsg
	var title string
	for n := len(m.entries); n >= 1; n-- {
		e := m.entries[n-1]
		if e.group != group || e.claim {
			continue
		}
		title = e.groupTitle
		if one, why := m.offer(n); why != "" {
			u.Skipped = append(u.Skipped, why)
		} else {
			u.Tokens = append(u.Tokens, one.Token)
		}
	}
	u.Title = "undo the batch: " + title
	if len(u.Tokens) == 0 {
		return batch.UndoMsg{}, "no write of the batch " + title + " can be taken back: " + strings.Join(u.Skipped, "; ")
	}
	return u, ""
}

// UndoLast is what u does over the lists: take back the newest committed
// write (locktable undo --last), redoing when that is an undo; ok false
// with why when no write of the session has committed.
func (m Model) UndoLast() (write.UndoMsg, string) {
	for n := len(m.entries); n >= 1; n-- {
		if e := m.entries[n-1]; e.res.Outcome == model.Committed && !e.claim {
			return m.offer(n)
		}
	}
	return write.UndoMsg{}, "nothing to undo: no write of this session has committed"
}

// Status says why the last u did nothing, "" when it did.
func (m Model) Status() string { return m.status }

// Update moves the selection (keys and the wheel), answers u on the
// selected write, and opens its detail on enter.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if len(m.entries) == 0 {
		return m, nil
	}
	m.status = ""
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.cursor--
		case tea.MouseWheelDown:
			m.cursor++
		}
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	m.clamp()
	return m, nil
}

func (m Model) onKey(k tea.KeyPressMsg) (Model, tea.Cmd) {
	_, n := m.at(m.cursor)
	switch {
	case key.Matches(k, m.km.Undo) && m.entries[n-1].group != "":
		u, why := m.offerGroup(m.entries[n-1].group)
		if why != "" {
			m.status = fmt.Sprintf("%s on #%d: nothing of its batch to undo (why: under the list)", m.km.Undo.Help().Key, n)
			return m, nil
		}
		return m, events.Emit(u)
	case key.Matches(k, m.km.Undo):
		u, why := m.offer(n)
		if why != "" {
			// The whole reason is under the list.
			m.status = fmt.Sprintf("%s on #%d: not offered for undo (why: under the list)", m.km.Undo.Help().Key, n)
			return m, nil
		}
		return m, events.Emit(u)
	case key.Matches(k, m.km.Enter):
		lines := m.detail(n)
		return m, events.Emit(detail.OpenMsg{Title: fmt.Sprintf("write #%d: %s", n, m.operation(n)),
			Render: func(model.Item) []string { return lines }})
	case key.Matches(k, m.km.Up):
		m.cursor--
	case key.Matches(k, m.km.Down):
		m.cursor++
	case key.Matches(k, m.km.PageUp):
		m.cursor -= m.listHeight()
	case key.Matches(k, m.km.PageDown):
		m.cursor += m.listHeight()
	case key.Matches(k, m.km.Top):
		m.cursor = 0
	case key.Matches(k, m.km.Bottom):
		m.cursor = len(m.entries) - 1
	}
	m.clamp()
	return m, nil
}

// detail is all the log knows of write n, one fact a line: what the
// rows cut at the terminal's width.
func (m Model) detail(n int) []string {
	e := m.entries[n-1]
	outcome := string(e.res.Outcome)
	if outcome == "" {
		outcome = "failed before an outcome"
	}
	lines := []string{"operation  " + m.operation(n), "outcome    " + outcome, "token      " + e.res.Token}
	if e.undoes != "" {
		lines = append(lines, "undoes     "+e.undoes)
	}
	if e.racer != "" {
		lines = append(lines, "race       "+e.racer)
	}
	if e.group != "" {
		lines = append(lines, "batch      "+model.Printable(e.groupTitle))
	}
	lines = append(lines, "keys")
	for _, k := range e.res.Keys {
		lines = append(lines, "  "+model.Printable(k))
	}
	for _, r := range e.res.Reasons {
		what := model.OneLine(r.Message)
		if r.Slot >= 0 {
			what = fmt.Sprintf("slot %d (%s): %s", r.Slot, model.OneLine(r.Action), what)
		}
		lines = append(lines, "reason     "+what)
	}
	if e.res.Note != "" {
		lines = append(lines, "note       "+model.OneLine(e.res.Note))
	}
	if e.err != "" {
		lines = append(lines, "error      "+e.err)
	}
	if e.group != "" {
		if g, why := m.offerGroup(e.group); why != "" {
			lines = append(lines, "", why)
		} else {
			lines = append(lines, "", fmt.Sprintf("%s in the log: %s, %d writes, previewed first", m.km.Undo.Help().Key, g.Title, len(g.Tokens)))
		}
	} else if u, why := m.offer(n); why != "" {
		lines = append(lines, "", why)
	} else {
		lines = append(lines, "", fmt.Sprintf("%s in the log: %s (previewed first); headless: locktable undo %s", m.km.Undo.Help().Key, u.Title, e.res.Token))
	}
	return lines
}

// ShortHelp is the help line's part for the log.
func (m Model) ShortHelp() []key.Binding {
	u, enter := m.km.Undo, m.km.Enter
	u.SetEnabled(len(m.entries) > 0)
	enter.SetEnabled(len(m.entries) > 0)
	return []key.Binding{u, enter}
}

// FullHelp is the help screen's part for the log.
func (m Model) FullHelp() [][]key.Binding {
	km := m.km
	return [][]key.Binding{{km.Up, km.Down, km.PageUp, km.PageDown, km.Top, km.Bottom}, m.ShortHelp()}
}

// head is the log's first lines: what it lists and where it is recorded.
func (m Model) head() []string {
	title := fmt.Sprintf("writes of this session, newest first: %d", len(m.entries))
	audit := "audit log: none"
	if m.audit != "" {
		audit = "audit log: " + model.Printable(m.audit)
	}
	lines := []string{m.st.Title.Render(ansi.Truncate(title, m.width, "…"))}
	for _, l := range strings.Split(ansi.Wrap(audit, max(m.width, 20), " /"), "\n") {
		lines = append(lines, m.st.Dim.Render(l))
	}
	return lines
}

// foot is the lines under the list: what u does on the selected write.
func (m Model) foot() []string {
	if len(m.entries) == 0 {
		return nil
	}
	e, n := m.at(m.cursor)
	u, why := m.offer(n)
	text := why
	if why == "" {
		text = fmt.Sprintf("%s on #%d: %s (previewed first)", m.km.Undo.Help().Key, n, u.Title)
	}
	if e.group != "" {
		g, why := m.offerGroup(e.group)
		text = why
		if why == "" {
			text = fmt.Sprintf("%s on #%d: %s, %d writes (previewed first, their number typed back)", m.km.Undo.Help().Key, n, g.Title, len(g.Tokens))
		}
	}
	return append([]string{""}, strings.Split(ansi.Wrap(text, max(m.width, 20), " "), "\n")...)
}

// listHeight is the rows the list has: two lines a write.
func (m Model) listHeight() int { return rowsBetween(m.height, m.head(), m.foot()) }

// rowsBetween is the rows of two lines that fit height under head and
// above foot.
func rowsBetween(height int, head, foot []string) int { return max((height-len(head)-len(foot))/2, 1) }

// View renders the log: its head, the writes shown, and what u does.
func (m Model) View() string {
	lines := m.head()
	if len(m.entries) == 0 {
		lines = append(lines, "", "no write yet in this session: every write sent (add, rename, delete, fix, race, undo) is listed here")
		return strings.Join(lines, "\n")
	}
	foot := m.foot()
	rows := rowsBetween(m.height, lines, foot)
	for i := m.offset; i < min(m.offset+rows, len(m.entries)); i++ {
		lines = append(lines, m.row(i)...)
	}
	return strings.Join(append(lines, foot...), "\n")
}

// row renders the write at row i on two lines: its number, outcome,
// operation and keys; its token and what else it says.
func (m Model) row(i int) []string {
	e, n := m.at(i)
	outcome := strings.ReplaceAll(string(e.res.Outcome), "_", " ")
	if outcome == "" {
		outcome = "failed"
	}
	nw := len(fmt.Sprint(len(m.entries))) + 1
	first := fmt.Sprintf("%-*s %-9s  %-*s  %s", nw, fmt.Sprintf("#%d", n), outcome, m.opWidth, m.operation(n), model.Printable(strings.Join(e.res.Keys, ", ")))
	var notes []string
	if e.racer != "" {
		notes = append(notes, e.racer)
	}
	if e.group != "" {
		notes = append(notes, "batch: "+model.Printable(e.groupTitle))
	}
	if k, ok := m.chains.taken[n]; ok {
		notes = append(notes, fmt.Sprintf("taken back by #%d", k))
	}
	switch {
	case e.err != "":
		notes = append(notes, e.err)
	case len(e.res.Reasons) > 0:
		notes = append(notes, model.OneLine(e.res.Reasons[0].Message))
	case e.res.Note != "":
		notes = append(notes, model.OneLine(e.res.Note))
	}
	second := strings.Repeat(" ", nw+1) + "token " + e.res.Token
	if e.res.Token == "" {
		second = strings.Repeat(" ", nw+1) + "never sent, no token"
	}
	if len(notes) > 0 {
		second += " · " + strings.Join(notes, " · ")
	}
	w := max(m.width-2, 10)
	first, second = ansi.Truncate(first, w, "…"), ansi.Truncate(second, w, "…")
	if i == m.cursor {
		return []string{m.st.Selected.Render("▸ " + first), "  " + second}
	}
	return []string{"  " + first, "  " + m.st.Dim.Render(second)}
}
