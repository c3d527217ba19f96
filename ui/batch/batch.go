// Package batch is the bulk write of the terminal UI: every problem
// marked in the problems or locks view fixed (F), or every write of such
// a batch taken back (u in the writes log). It plans each write with the
// one write flow (package writes: the repair's planner, as locktable
// repair plans them), previews every transaction with a count by kind,
// asks for their number typed back, then sends them in order under a
// progress bar; esc stops before the next one. Each outcome goes to the
// writes log as one group.
package batch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/redact"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
	"github.com/locktable/locktable/ui/textfield"
	"github.com/locktable/locktable/ui/write"
	"github.com/locktable/locktable/writes"
)

// FixMsg asks to fix every problem of Problems, in that order (F on the
// marked rows).
type FixMsg struct{ Problems []model.Problem }

// UndoMsg asks to take back every write of a batch that can still be
// taken back: Tokens, in the order to send them, each planned as u plans
// one (writes.Flow.Undo). Skipped says, for each write of the batch that
// cannot be, why; Title says what taking the batch back does.
type UndoMsg struct {
	Title   string
	Tokens  []string
	Skipped []string
}

// SettledMsg says a batch closed: Sent are the problems whose repair was
// sent (settled, whatever its outcome); the others stay marked.
type SettledMsg struct{ Sent []model.Problem }

// Marked says, for the status line, how many problems are marked (n)
// and what fixKey does with them, the marked problems ps: it fixes those
// a repair is planned for, and sends nothing for those left to a person
// (model.Problem.LeftToAPerson), counted by what they are.
func Marked(n int, ps []model.Problem, fixKey string) string {
	fixes := 0
	left := map[[2]string]int{} // by the words for one and many
	var order [][2]string
	for _, p := range ps {
		if p.LeftToAPerson() == "" {
			fixes++
			continue
		}
		what, ok := leftWords[p.Kind]
		if !ok {
			what = [2]string{string(p.Kind), string(p.Kind)}
		}
		if left[what] == 0 {
			order = append(order, what)
		}
		left[what]++
	}
	words := make([]string, len(order))
	for i, w := range order {
		words[i] = fmt.Sprintf("%d %s", left[w], w[min(left[w]-1, 1)])
	}
	var does string
	switch {
	case fixes == n && n == 1:
		does = fixKey + " fixes it"
	case fixes == n:
		does = fixKey + " fixes them"
	case fixes == 0 && len(words) > 0:
		does = "none " + fixKey + " can fix: " + strings.Join(words, ", ")
	case fixes == 0:
		does = "none " + fixKey + " can fix"
	case len(words) > 0:
		does = fmt.Sprintf("%s fixes %d, not %s", fixKey, fixes, strings.Join(words, ", "))
	default:
		does = fmt.Sprintf("%s fixes %d", fixKey, fixes)
	}
	return fmt.Sprintf("%d marked (%s)", n, does)
}

// leftWords name a problem left to a person, one and many, by its kind.
var leftWords = map[model.ProblemKind][2]string{
	model.DuplicateValue: {"duplicate", "duplicates"},
	model.InvalidValue:   {"invalid value", "invalid values"},
	model.MissingLock:    {"value several accounts hold", "values several accounts hold"},
	model.ForeignLock:    {"value several accounts hold", "values several accounts hold"},
	model.ExpiredLock:    {"expired lock a person assigns", "expired locks a person assigns"},
	model.ExpiringLock:   {"expiring lock a person assigns", "expiring locks a person assigns"},
}

// PlannedMsg answers the planning of a batch.
type PlannedMsg struct {
	req    int
	ready  []planned
	unsent []model.Result
	err    error
}

// SentMsg answers the sending of transaction i of a batch.
type SentMsg struct {
	req, i int
	res    model.Result
	err    error
}

// planned is one write of a batch, ready to send, and the problem it
// fixes (zero for an undo).
type planned struct {
	w       writes.Write
	problem model.Problem
	kind    string // what the preview counts it as
}

type stage int

const (
	stagePlanning stage = iota
	stagePreview
	stageSending
	stageDone
)

// Model is a batch: closed, or planning, previewed, sending or done.
type Model struct {
	ctx    context.Context
	flow   writes.Flow
	st     *styles.Styles
	km     dialog.KeyMap
	report func() *model.Report // the last check's, for an undo's holder lookup
	open   bool
	req    int
	stage  stage
	title  string
	group  string // the writes log's group of this batch: a fresh token
	ready  []planned
	unsent []model.Result // skipped or refused when planned: never sent
	err    string         // why planning failed
	typed  textinput.Model
	wrong  string // why the last enter did not send
	// changed says someone else wrote a key of the batch since it was
	// planned (the table's stream told), "" when nobody did.
	changed string
	// sent are the outcomes of the transactions sent so far, in order;
	// failed is why the last one certainly did not apply, if it did not.
	sent     []model.Result
	failed   string
	stopping bool // esc while sending: no transaction after the one in flight
	// stop closes with stopping: a transaction not sent yet, waiting for
	// the --max-wcu budget above all, is then not sent (backend.WithStop);
	// heldBack says one was.
	stop     chan struct{}
	heldBack bool
	quitting bool // ctrl+c while sending: quit once it answers
	farewell string
	bar      progress.Model
	body     viewport.Model
	// maxWCU is --max-wcu, the write budget the store paces the
	// transactions within (0: none): the preview and the progress say it;
	// paced is the preview's line, said once the batch is planned.
	maxWCU float64
	paced  string
	width  int
	height int
}

// New returns a closed batch that writes through store under schema.
// report is the last finished check's report (nil before one); maxWCU
// is the write budget the store paces transactions within (--max-wcu;
// 0: none), which the batch says.
func New(ctx context.Context, store writes.Store, schema *model.Schema, st *styles.Styles, km dialog.KeyMap, report func() *model.Report, maxWCU float64) Model {
	m := Model{ctx: ctx, flow: writes.Flow{Store: store, Schema: schema}, st: st, km: km, report: report, maxWCU: maxWCU}
	m.typed = textfield.New()
	m.typed.Prompt = "> "
	m.bar = progress.New(progress.WithWidth(40), progress.WithFillCharacters('█', '░'))
	m.body = viewport.New()
	m.body.SoftWrap = false
	m.body.KeyMap = viewport.KeyMap{
		Up: km.Up, Down: km.Down, PageUp: km.PageUp, PageDown: km.PageDown,
		HalfPageUp: key.NewBinding(key.WithDisabled()), HalfPageDown: key.NewBinding(key.WithDisabled()),
		Left: key.NewBinding(key.WithDisabled()), Right: key.NewBinding(key.WithDisabled()),
	}
	return m
}

// Open reports whether a batch is open.
func (m Model) Open() bool { return m.open }

// Sending reports whether a transaction of the batch is in flight.
func (m Model) Sending() bool { return m.open && m.stage == stageSending }

// SetSize sets the batch's size in cells.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.bar.SetWidth(max(min(w-2, 60), 10))
	m.layout()
}

// start opens a batch titled title, planning with plan.
func (m Model) start(title string, plan func(ctx context.Context) PlannedMsg) (Model, tea.Cmd) {
	m.req++
	m.open, m.stage, m.title, m.group = true, stagePlanning, title, backend.NewToken()
	m.ready, m.unsent, m.sent, m.err, m.failed, m.wrong, m.changed = nil, nil, nil, "", "", "", ""
	m.stopping, m.quitting, m.stop, m.heldBack = false, false, make(chan struct{}), false
	m.typed.SetValue("")
	m.layout()
	ctx, req := m.ctx, m.req
	return m, func() tea.Msg {
		msg := plan(ctx)
		msg.req = req
		return msg
	}
}

// Fix plans the repair of every problem of ps, as locktable repair plans
// each (writes.Flow.Repair: re-read with consistent reads, the ownerless
// orphan's claim among them).
func (m Model) Fix(ps []model.Problem) (Model, tea.Cmd) {
	f := m.flow
	ps = slices.Clone(ps)
	return m.start(fmt.Sprintf("fix %d marked problems", len(ps)), func(ctx context.Context) PlannedMsg {
		var msg PlannedMsg
		for _, p := range ps {
			w, err := f.Repair(ctx, p)
			if err != nil {
				return PlannedMsg{err: fmt.Errorf("plan the repair of %s %s=%s: %w", p.Kind, p.Constraint, model.Printable(p.Value), err)}
			}
			if !w.Ready() {
				msg.unsent = append(msg.unsent, w.Unsent())
				continue
			}
			msg.ready = append(msg.ready, planned{w: w, problem: p, kind: string(p.Kind)})
		}
		return msg
	})
}

// Undo plans taking back every write of u.Tokens, each as u in the
// writes log plans one (writes.Flow.Undo), guarded by its items being
// as it left them.
func (m Model) Undo(u UndoMsg) (Model, tea.Cmd) {
	f, h := m.flow, writes.FromReport(m.report())
	tokens, skipped := slices.Clone(u.Tokens), slices.Clone(u.Skipped)
	return m.start(u.Title, func(ctx context.Context) PlannedMsg {
		var msg PlannedMsg
		for _, why := range skipped {
			msg.unsent = append(msg.unsent, model.Result{Operation: "undo", Outcome: model.Skipped, Note: why, Reasons: []model.Reason{}, Keys: []string{}})
		}
		for _, token := range tokens {
			w, err := f.Undo(ctx, "", token, h)
			if err != nil {
				msg.unsent = append(msg.unsent, model.Result{Operation: "undo", Outcome: model.Skipped, Token: token, Reasons: []model.Reason{}, Keys: []string{},
					Note: "not planned: " + model.OneLine(redact.String(err.Error()))})
				continue
			}
			if !w.Ready() {
				msg.unsent = append(msg.unsent, w.Unsent())
				continue
			}
			msg.ready = append(msg.ready, planned{w: w, kind: w.Tx.Plan.Operation})
		}
		return msg
	})
}

// mustType is what the confirmation asks to be typed: the number of
// transactions (model.Plan.TypeBack, TypedBack).
func (m Model) mustType() model.Plan { return model.Plan{MustType: strconv.Itoa(len(m.ready))} }

// Update answers the batch's messages and keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case FixMsg:
		return m.Fix(msg.Problems)
	case UndoMsg:
		return m.Undo(msg)
	case PlannedMsg:
		if msg.req != m.req || !m.open {
			return m, nil
		}
		return m.planned(msg)
	case SentMsg:
		if msg.req != m.req || !m.open {
			return m, nil
		}
		return m.answered(msg)
	case tea.KeyPressMsg:
		if m.open {
			return m.onKey(msg)
		}
	case tea.PasteMsg:
		if m.open && m.stage == stagePreview {
			m.typed.SetValue(m.typed.Value() + msg.Content)
		}
	}
	return m, nil
}

// planned shows the preview of the planned batch.
func (m Model) planned(msg PlannedMsg) (Model, tea.Cmd) {
	m.ready, m.unsent, m.stage, m.paced = msg.ready, msg.unsent, stagePreview, ""
	if m.maxWCU > 0 {
		plans := make([]model.Plan, len(m.ready))
		for i, p := range m.ready {
			plans[i] = p.w.Tx.Plan
		}
		m.paced = "paced within " + m.pace() + ": " + model.PaceSaid(plans, m.maxWCU)
	}
	if msg.err != nil {
		m.err, m.stage = model.OneLine(redact.String(msg.err.Error())), stageDone
	}
	if len(m.ready) == 0 {
		m.stage = stageDone
	}
	m.layout()
	m.body.GotoTop()
	if m.stage == stagePreview {
		return m, m.typed.Focus()
	}
	return m, nil
}

func (m Model) onKey(k tea.KeyPressMsg) (Model, tea.Cmd) {
	km := m.keys()
	switch m.stage {
	case stagePlanning:
		if key.Matches(k, km.Back) {
			return m.close()
		}
	case stagePreview:
		switch {
		case key.Matches(k, km.Back):
			return m.close()
		case key.Matches(k, km.SendTyped):
			if !m.mustType().TypedBack(strings.TrimSpace(m.typed.Value())) {
				m.wrong = "type " + m.mustType().TypeBack() + " exactly to send"
				return m, nil
			}
			m.stage, m.wrong = stageSending, ""
			m.typed.Blur()
			m.layout()
			return m, m.send(0)
		case key.Matches(k, km.Up, km.Down, km.PageUp, km.PageDown):
			var cmd tea.Cmd
			m.body, cmd = m.body.Update(k)
			return m, cmd
		default:
			var cmd tea.Cmd
			m.typed, cmd = m.typed.Update(k)
			m.wrong = ""
			return m, cmd
		}
	case stageSending:
		if key.Matches(k, km.Back) {
			m = m.stopSending()
			m.layout()
		}
	case stageDone:
		switch {
		case key.Matches(k, km.Back, km.Close):
			return m.close()
		case key.Matches(k, km.Up, km.Down, km.PageUp, km.PageDown):
			var cmd tea.Cmd
			m.body, cmd = m.body.Update(k)
			return m, cmd
		}
	}
	return m, nil
}

// stopSending stops the batch: no transaction after the one in flight,
// and that one too while it has not left (waiting for the write budget).
func (m Model) stopSending() Model {
	if !m.stopping {
		m.stopping = true
		close(m.stop)
	}
	return m
}

// send sends transaction i; quitting does not cancel it (its outcome is
// settled under a context of its own, as the write dialog's), but a stop
// before it leaves keeps it (stopSending).
func (m Model) send(i int) tea.Cmd {
	f, req, w := m.flow, m.req, m.ready[i].w
	wctx := backend.WithStop(context.WithoutCancel(m.ctx), m.stop)
	return write.Sending(m.flow.Schema, func() tea.Msg {
		res, err := f.Send(wctx, w)
		return SentMsg{req: req, i: i, res: res, err: err}
	}, w.Tx)
}

// answered records transaction i's outcome in the writes log and sends
// the next, unless esc stopped the batch, a write certainly failed (as
// repair stops), or it was the last.
func (m Model) answered(msg SentMsg) (Model, tea.Cmd) {
	o := write.Outcome(m.ready[msg.i].w.Tx, msg.res, msg.err)
	o.Group, o.GroupTitle = m.group, m.title
	logged := events.Emit(o)
	switch {
	case errors.Is(msg.err, backend.ErrStopped):
		// Stopped before it left: one of those not sent, not a failure.
		m.heldBack = true
	case msg.err != nil:
		m.sent = append(m.sent, msg.res)
		m.failed = model.OneLine(redact.String(msg.err.Error()))
	default:
		m.sent = append(m.sent, msg.res)
	}
	next := msg.i + 1
	if m.quitting {
		m.farewell = m.summary()
		return m, tea.Sequence(logged, tea.Quit)
	}
	if next < len(m.ready) && !m.stopping && msg.err == nil {
		m.layout()
		return m, tea.Batch(logged, m.send(next))
	}
	m.stage = stageDone
	m.layout()
	m.body.GotoTop()
	return m, logged
}

// Quit answers ctrl+c while a transaction is in flight: the first stops
// the batch after it, and the UI quits once its outcome is known, saying
// what was sent (Farewell); the second quits at once, the outcome of the
// one in flight unknown, with its token.
func (m Model) Quit() (Model, tea.Cmd) {
	if !m.quitting {
		m, m.quitting = m.stopSending(), true
		m.layout()
		return m, nil
	}
	tx := m.ready[len(m.sent)].w.Tx
	m.farewell = m.summary() + fmt.Sprintf("\nUNKNOWN   %s %s (token %s): quit before its outcome was known; check the keys (locktable check) before trying again",
		tx.Plan.Operation, model.Printable(strings.Join(tx.Plan.Keys, ", ")), tx.Token)
	return m, tea.Quit
}

// Farewell is what to print once the UI has left the terminal, after a
// batch it waited for: how many of its transactions were sent.
func (m Model) Farewell() string { return m.farewell }

// close closes the batch: the rows its writes touched are read again,
// and the views unmark the problems whose repair was sent.
func (m Model) close() (Model, tea.Cmd) {
	m.open = false
	m.typed.Blur()
	if len(m.sent) == 0 {
		return m, nil
	}
	var w write.WrittenMsg
	var sent []model.Problem
	all := true // every repair sent committed: judged again by their keys
	for i, res := range m.sent {
		p := m.ready[i]
		w.Committed = w.Committed || res.Outcome == model.Committed
		all = all && res.Outcome == model.Committed
		for _, a := range p.w.Tx.Plan.Actions {
			if a.Account != "" && !model.IsClaim(a.Account) && !slices.Contains(w.Accounts, a.Account) {
				w.Accounts = append(w.Accounts, a.Account)
			}
			if a.Kind != model.ActCheck && a.Constraint >= 0 {
				w.Locks = append(w.Locks, model.KeyRef{Table: a.Table, Key: a.Key})
			}
		}
		if p.problem.Kind != "" {
			sent = append(sent, p.problem)
		}
	}
	if all {
		w.Rejudge = sent
	}
	return m, tea.Batch(events.Emit(w), events.Emit(SettledMsg{Sent: sent}))
}

// keys are the dialog's bindings as they work at the batch's stage.
func (m Model) keys() dialog.KeyMap {
	k := m.km
	for _, b := range []*key.Binding{&k.Next, &k.Prev, &k.Preview, &k.Send, &k.Resend, &k.Copy, &k.Save} {
		b.SetEnabled(false)
	}
	long := m.body.TotalLineCount() > m.body.Height()
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown} {
		*b = untypedNav(*b)
		b.SetEnabled(long && (m.stage == stagePreview || m.stage == stageDone))
	}
	k.SendTyped.SetEnabled(m.stage == stagePreview)
	k.Close.SetEnabled(m.stage == stageDone)
	switch m.stage {
	case stageSending:
		k.Back.SetHelp(k.Back.Help().Key, "stop after this transaction")
		k.Back.SetEnabled(!m.stopping)
	case stageDone:
		k.Back.SetHelp(k.Back.Help().Key, "close")
	default:
		k.Back.SetHelp(k.Back.Help().Key, "cancel")
	}
	return k
}

// untypedNav is a scrolling binding without the keys that are text in
// the box the number is typed in (j, k, space).
func untypedNav(b key.Binding) key.Binding {
	var keys []string
	for _, k := range b.Keys() {
		if len([]rune(k)) > 1 && k != "space" && !textfield.Edits(k) {
			keys = append(keys, k)
		}
	}
	h := b.Help()
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(h.Key, h.Desc))
}

// ShortHelp is the batch's help line.
func (m Model) ShortHelp() []key.Binding {
	k := m.keys()
	return []key.Binding{k.SendTyped, k.Close, k.Back, k.Up}
}

// FullHelp is every binding that works at the batch's stage.
func (m Model) FullHelp() [][]key.Binding {
	k := m.keys()
	return [][]key.Binding{{k.SendTyped, k.Close, k.Back}, {k.Up, k.Down, k.PageUp, k.PageDown}}
}

// Counts says how many transactions of each kind the batch sends, in
// the order the kinds first come.
func (m Model) counts() string {
	var kinds []string
	n := map[string]int{}
	for _, p := range m.ready {
		if n[p.kind] == 0 {
			kinds = append(kinds, p.kind)
		}
		n[p.kind]++
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, n[k])
	}
	return strings.Join(parts, ", ")
}

// head is the lines above the scrolled body at the batch's stage.
func (m Model) head() []string {
	lines := []string{m.st.Title.Render(model.Printable(m.title))}
	switch m.stage {
	case stagePlanning:
		lines = append(lines, "reading what each write involves, with consistent reads…")
	case stagePreview:
		count := fmt.Sprintf("%d transactions (%s), sent one at a time in this order", len(m.ready), m.counts())
		if len(m.unsent) > 0 { // else nothing is listed last
			count += fmt.Sprintf("; %d not sent (listed last)", len(m.unsent))
		}
		lines = append(lines, count)
		if m.paced != "" {
			lines = append(lines, m.paced)
		}
		lines = append(lines, "type "+m.mustType().TypeBack()+" (the number of transactions) to send: "+m.typed.View())
		if m.changed != "" {
			lines = append(lines, m.st.Error.Render(m.changed))
		}
		if m.wrong != "" {
			lines = append(lines, m.st.Error.Render(m.wrong))
		}
	case stageSending:
		n := len(m.sent)
		sent := fmt.Sprintf("sent %d of %d transactions", n, len(m.ready))
		if m.maxWCU > 0 {
			sent += ", paced within " + m.pace()
		}
		lines = append(lines, m.bar.ViewAs(float64(n)/float64(len(m.ready))), sent)
		if m.stopping {
			lines = append(lines, "stopping: the transaction in flight is settled, the others are not sent")
		}
	case stageDone:
		lines = append(lines, m.summary())
	}
	// Wrapped, not cut: the count and the summary are what the batch is.
	return append(rows.Wrap(lines, m.width), "")
}

// pace names the write budget: --max-wcu N.
func (m Model) pace() string { return "--max-wcu " + strconv.FormatFloat(m.maxWCU, 'f', -1, 64) }

// summary says what the batch did: how many were sent, of how many, by
// outcome, and what was left.
func (m Model) summary() string {
	if m.err != "" {
		return "nothing sent: " + m.err
	}
	if len(m.ready) == 0 {
		return fmt.Sprintf("nothing to send: none of the %d writes can be made (why: below)", len(m.unsent))
	}
	by := map[model.Outcome]int{}
	for _, r := range m.sent {
		by[r.Outcome]++
	}
	var outs []string
	for _, o := range []model.Outcome{model.Committed, model.Skipped, model.Cancelled, model.Unknown, model.NotSent, model.Refused} {
		if by[o] > 0 {
			outs = append(outs, fmt.Sprintf("%d %s", by[o], strings.ReplaceAll(string(o), "_", " ")))
		}
	}
	s := fmt.Sprintf("sent %d of %d transactions", len(m.sent), len(m.ready))
	if len(outs) > 0 {
		s += ": " + strings.Join(outs, ", ")
	}
	if left := len(m.ready) - len(m.sent); left > 0 {
		why := "stopped (esc)"
		switch {
		case m.heldBack && m.maxWCU > 0:
			why = "stopped (esc) while the next waited for " + m.pace() + ", so it was not sent either"
		case m.heldBack:
			why = "stopped (esc) before the next left, so it was not sent either"
		}
		if m.failed != "" {
			why = "stopped: a write failed: " + m.failed
		}
		s += fmt.Sprintf("; %s, %d not sent (still marked)", why, left)
	}
	return s
}

// lines is the scrolled body: each transaction as the write dialog says
// it (its slots and conditions, a reclaim's three steps), then those not
// sent; once sending, each outcome beside its transaction.
func (m Model) lines() []string {
	var lines []string
	for i, p := range m.ready {
		tx := p.w.Tx
		state := ""
		switch {
		case i < len(m.sent):
			state = " → " + outcomeText(m.sent[i])
		case m.stage == stageDone || m.stopping:
			state = " → not sent"
		}
		lines = append(lines, fmt.Sprintf("%d. %s %s (token %s)%s", i+1, tx.Plan.Operation, model.Printable(strings.Join(tx.Plan.Keys, ", ")), tx.Token, state))
		if tx.Plan.Reclaim != nil && !tx.Plan.Reclaim.Resume {
			lines = append(lines, "  step 1 of 3, claim the lock; then 2, look for holders again; 3, delete it, or give it back if someone holds the value:")
		}
		lines = append(lines, dialog.SlotLines(tx.Slots)...)
		if tx.Plan.Note != "" {
			lines = append(lines, "  note: "+model.Printable(tx.Plan.Note))
		}
	}
	if len(m.unsent) > 0 {
		lines = append(lines, "", fmt.Sprintf("not sent (%d):", len(m.unsent)))
		for _, r := range m.unsent {
			lines = append(lines, "  "+outcomeText(r))
		}
	}
	return rows.Wrap(lines, m.width)
}

// outcomeText is a result in a line: its outcome and what it says.
func outcomeText(r model.Result) string {
	s := strings.ReplaceAll(string(r.Outcome), "_", " ")
	if r.Note != "" {
		s += ": " + model.OneLine(r.Note)
	}
	if len(r.Reasons) > 0 {
		s += ": " + model.OneLine(r.Reasons[0].Message)
	}
	return s
}

// layout fills the body for the stage and gives it the room under the
// head.
func (m *Model) layout() {
	m.body.SetWidth(max(m.width, 1))
	m.body.SetHeight(max(m.height-len(m.head()), 3))
	m.body.SetContentLines(m.lines())
}

// View renders the batch.
func (m Model) View() string {
	if !m.open {
		return ""
	}
	return strings.Join(m.head(), "\n") + "\n" + m.body.View()
}

// Changed tells the previewed batch that someone else wrote the items at
// refs: where one is a key a transaction writes or checks, the preview
// says so before anything is sent.
func (m *Model) Changed(refs []model.KeyRef) {
	if !m.open || m.stage != stagePreview {
		return // nothing is about to be sent
	}
	for _, p := range m.ready {
		for _, a := range p.w.Tx.Plan.Actions {
			at := model.KeyRef{Table: a.Table, Key: a.Key}
			for _, r := range refs {
				if r.ID() == at.ID() {
					m.changed = "changed under this batch: someone else wrote " + model.Printable(r.Text()) +
						" since it was planned; each transaction is guarded and is cancelled if that matters (esc, then F again, plans from what is there now)"
					m.layout()
					return
				}
			}
		}
	}
}
