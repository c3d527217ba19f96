package write

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/redact"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/writes"
)

// A race shows why the pattern works: N new accounts claim the same value
// at the same instant, each with the guarded signup locktable sends, and
// the lock's condition lets exactly one commit; the others are cancelled,
// slot by slot. It is `locktable race --op signup` with its racers as
// rows that resolve as their answers come.

// racersField is the form's field for the number of racers.
const racersField = "racers"

// RacePlannedMsg answers a race's form: every racer's transaction, ready,
// and the preview of the first (they differ only by account and token).
type RacePlannedMsg struct {
	req     reqID
	txs     []backend.Tx
	preview dialog.Preview
	err     error
}

// RacerMsg is one racer's answer.
type RacerMsg struct {
	req reqID
	i   int
	res model.Result
	err error
}

// RaceVerifiedMsg answers the reads back of a race's cancelled racers:
// those found written all the same.
type RaceVerifiedMsg struct {
	req        reqID
	violations []writes.Violation
	err        error
}

// board is a race under way or run: one row per racer.
type board struct {
	txs     []backend.Tx
	results []*model.Result // nil: no answer yet
	errs    []error
	left    int // racers without an answer
	answers <-chan RacerMsg
	// Once every racer has answered, the cancelled ones are read back
	// (verifying until the answer); violations are those found written,
	// and verifyErr why they could not be read.
	verifying  bool
	violations []writes.Violation
	verifyErr  error
	scroll     int // the first racer's line shown, when they do not all fit
}

// violation returns what was found written of racer i (from 0), if it
// was reported cancelled and found written.
func (b *board) violation(i int) (writes.Violation, bool) {
	for _, v := range b.violations {
		if v.Racer == i+1 {
			return v, true
		}
	}
	return writes.Violation{}, false
}

// done reports whether the race is over: every racer answered and the
// cancelled ones read back.
func (b *board) done() bool { return b.left == 0 && !b.verifying }

// committed returns the accounts of the racers that committed.
func (b *board) committed() []string {
	var ids []string
	for i, r := range b.results {
		if r != nil && r.Outcome == model.Committed {
			ids = append(ids, b.txs[i].Plan.Actions[0].Account)
		}
	}
	return ids
}

// Race opens the form of a race: the values every racer claims (the first
// unique attribute suggested, a fresh value) and how many racers; new
// accounts' keys are suggested like ids.
func (m Model) Race(ids []string) (Model, tea.Cmd) {
	sc := m.schema
	_, many := sc.Nouns()
	var fields []dialog.Field
	for i, c := range sc.Constraints {
		v := ""
		if i == 0 {
			v = "race-" + randomHex(3)
		}
		fields = append(fields, dialog.NewField(c.Attr, v, m.validator(c.Attr)))
	}
	fields = append(fields, dialog.NewField(racersField, "10", func(v string) error {
		_, err := racerCount(v)
		return err
	}))
	for i := range fields {
		fields[i].Original = ""
	}
	m.open("race: new "+many+" claim the same values at once", fields, opRace, "")
	m.sampleIDs = ids
	return m, nil
}

// racerCount reads the racers field: 2 to 100, as `locktable race --n`.
func racerCount(v string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 2 || n > 100 {
		return 0, fmt.Errorf("want 2 to 100 racers")
	}
	return n, nil
}

// planRace prepares n signups of new accounts that all claim attrs.
func planRace(req reqID, f writes.Flow, ids []string, attrs map[string]string, n int) RacePlannedMsg {
	msg := RacePlannedMsg{req: req}
	racers, err := f.Racers(attrs, n, ids)
	if err != nil {
		msg.err = err
		return msg
	}
	var names []string
	for _, w := range racers {
		msg.txs = append(msg.txs, w.Tx)
		names = append(names, w.Tx.Plan.Keys[0])
	}
	first := msg.txs[0]
	doc, err := first.Request.CLIInput()
	if err != nil {
		msg.err = err
		return msg
	}
	p := first.Plan
	p.Note = fmt.Sprintf("%d racers send this transaction at the same instant, each for an account of its own (%s and %d more) and with its own token: the guarded lock puts let one commit",
		n, model.Printable(names[0]), n-1)
	msg.preview = dialog.Preview{Plan: p, Slots: first.Slots, Token: first.Token, Request: model.EscapeJSON(string(doc))}
	return msg
}

// submitRace plans the race the form describes.
func (m Model) submitRace(values map[string]string) tea.Cmd {
	sc, f, req, ids := m.schema, m.flow(), m.req, m.sampleIDs
	attrs := map[string]string{}
	for _, c := range sc.Constraints {
		if v := values[c.Attr]; v != "" {
			attrs[c.Attr] = v
		}
	}
	n, err := racerCount(values[racersField])
	return func() tea.Msg {
		if err != nil {
			return RacePlannedMsg{req: req, err: err}
		}
		if len(attrs) == 0 {
			return RacePlannedMsg{req: req, err: fmt.Errorf("give at least one value to race for")}
		}
		return planRace(req, f, ids, attrs, n)
	}
}

// startRace sends every racer's transaction at once through the write
// flow's race (writes.Flow.Race, as `locktable race`); each answer comes
// back as a RacerMsg, read off the board's channel one at a time.
func (m *Model) startRace() tea.Cmd {
	txs := m.raceTxs
	answers := make(chan RacerMsg, len(txs))
	m.board = &board{txs: txs, results: make([]*model.Result, len(txs)), errs: make([]error, len(txs)), left: len(txs), answers: answers}
	m.sending = &txs[0]
	f, req := m.flow(), m.req
	ws := make([]writes.Write, len(txs))
	for i, tx := range txs {
		ws[i] = writes.Write{Tx: tx}
	}
	// Quitting does not cancel the racers: it waits for their outcomes.
	ctx := context.WithoutCancel(m.ctx)
	return Sending(m.schema, func() tea.Msg {
		go f.Race(ctx, ws, func(i int, res model.Result, err error) {
			answers <- RacerMsg{req: req, i: i, res: res, err: err}
		})
		return <-answers
	}, txs...)
}

// nextRacer waits for the next racer's answer.
func nextRacer(answers <-chan RacerMsg) tea.Cmd {
	return func() tea.Msg { return <-answers }
}

// racerAnswered records racer i's answer; once every racer has one, the
// winners are the accounts written.
func (m Model) racerAnswered(msg RacerMsg) (Model, tea.Cmd) {
	if msg.req != m.req || m.board == nil || m.board.results[msg.i] != nil {
		return m, nil
	}
	bd := m.board
	bd.results[msg.i], bd.errs[msg.i] = &msg.res, msg.err
	o := Outcome(bd.txs[msg.i], msg.res, msg.err)
	o.Racer, o.Racers = msg.i+1, len(bd.txs)
	logged := events.Emit(o) // the winner's signup is what u takes back
	bd.left--
	if bd.left > 0 {
		return m, tea.Batch(logged, nextRacer(bd.answers))
	}
	// Nothing is in flight but reads: quitting now need not wait.
	m.sending = nil
	m.written = bd.committed()
	bd.verifying = true
	return m, tea.Batch(logged, verifyRace(m.ctx, m.req, m.backend, m.schema, bd))
}

// verifyRace reads back, consistently, what the cancelled racers of bd
// would have written (see writes.RaceViolations): a cancelled transaction
// writes nothing, so any of it found is a guard that did not hold.
func verifyRace(ctx context.Context, req reqID, b Backend, sc *model.Schema, bd *board) tea.Cmd {
	txs := bd.txs
	results := make([]model.Result, len(bd.results))
	for i, r := range bd.results {
		results[i] = *r
	}
	return func() tea.Msg {
		v, err := writes.RaceViolations(ctx, b, sc, txs, results)
		return RaceVerifiedMsg{req: req, violations: v, err: err}
	}
}

// raceVerified records the reads back of the cancelled racers: those found
// written show as violations, and are read again with the winners.
func (m Model) raceVerified(msg RaceVerifiedMsg) (Model, tea.Cmd) {
	if msg.req != m.req || m.board == nil || !m.board.verifying {
		return m, nil
	}
	bd := m.board
	bd.verifying, bd.violations, bd.verifyErr = false, msg.violations, msg.err
	for _, v := range msg.violations {
		if !slices.Contains(m.written, v.Key) {
			m.written = append(m.written, v.Key)
		}
	}
	if m.quitting {
		m.farewell = m.raceSummary()
		return m, tea.Quit
	}
	return m, nil
}

// raceSummary says how the race ended, in one line.
func (m Model) raceSummary() string {
	bd := m.board
	won := bd.committed()
	var verdict string
	switch {
	case bd.verifying:
		verdict = "reading the cancelled racers back…"
	case bd.verifyErr != nil:
		verdict = "UNVERIFIED: " + model.OneLine(redact.String(bd.verifyErr.Error()))
	default:
		verdict, _ = writes.RaceVerdict(len(won), bd.violations)
	}
	s := fmt.Sprintf("%d of %d racers committed: %s", len(won), len(bd.txs), verdict)
	if len(won) > 0 {
		s += " (" + model.Printable(strings.Join(won, ", ")) + ")"
	}
	return s
}

// boardView renders the race: one line per racer, its outcome and, when
// cancelled, the first failed slot in words; then the verdict, which stays
// on screen. Once the race is over the winners and any racer written
// although cancelled come first; racers past the room scroll.
func (m Model) boardView() string {
	bd := m.board
	var lines []string
	for _, i := range bd.order() {
		lines = append(lines, m.racerLine(i))
	}
	foot := m.boardFoot()
	if room := m.boardRoom(foot); len(lines) > room {
		top := min(bd.scroll, len(lines)-room+1)
		more := m.st.Dim.Render(fmt.Sprintf("racers %d-%d of %d (%s/%s scroll)", top+1, top+room-1, len(lines),
			m.km.Up.Help().Key, m.km.PageDown.Help().Key))
		lines = append(lines[top:top+room-1:top+room-1], more)
	}
	return m.st.Title.Render(model.Printable(m.dialog.Title)) + "\n" + strings.Join(lines, "\n") + "\n\n" + foot + "\n"
}

// order is the order the racers are listed in: by number while they
// race; once it is over, those written first (winners, then any written
// although cancelled), so that the verdict's racers are on screen.
func (b *board) order() []int {
	idx := make([]int, len(b.txs))
	for i := range idx {
		idx[i] = i
	}
	if !b.done() {
		return idx
	}
	rank := func(i int) int {
		if r := b.results[i]; r != nil && r.Outcome == model.Committed {
			return 0
		}
		if _, written := b.violation(i); written {
			return 1
		}
		return 2
	}
	slices.SortStableFunc(idx, func(a, c int) int { return rank(a) - rank(c) })
	return idx
}

// racerLine is racer i's line.
func (m Model) racerLine(i int) string {
	bd, tx := m.board, m.board.txs[i]
	account := model.Printable(tx.Plan.Actions[0].Account)
	line := fmt.Sprintf("racer %3d  %-9s %s", i+1, "racing…", account)
	v, written := bd.violation(i)
	r := bd.results[i]
	if r != nil {
		head := fmt.Sprintf("racer %3d  %-9s ", i+1, r.Outcome)
		if written {
			// First: at 80 columns what is cut is the slot.
			account += "  WRITTEN although cancelled: " + model.OneLine(strings.Join(v.Found, "; "))
		}
		why, action := racerWhy(r, bd.errs[i])
		// What a narrow line leaves out, in turn: the action (the same
		// lock put for every racer, shown in the preview), then the id of
		// a racer that wrote nothing; the holder a slot names stays whole.
		fits := []string{head + account + why + action, head + account + why}
		if !written {
			fits = append(fits, head+strings.TrimPrefix(why, "  "))
		}
		line = fits[0]
		for _, l := range fits {
			if line = l; ansi.StringWidth(l) <= max(m.width, 20) {
				break
			}
		}
	}
	line = ansi.Truncate(line, max(m.width, 20), "…")
	switch {
	case written:
		return m.st.Status[model.LockDuplicate].Render(line)
	case r != nil && r.Outcome == model.Committed:
		return m.st.Status[model.LockOK].Render(line)
	}
	return line
}

// boardFoot is the board's last lines: how many racers answered, then
// the verdict, wrapped.
func (m Model) boardFoot() string {
	bd := m.board
	foot := fmt.Sprintf("%d of %d racers answered", len(bd.txs)-bd.left, len(bd.txs))
	switch {
	case bd.verifying:
		foot += "; " + m.raceSummary()
	case bd.left == 0:
		foot = m.raceSummary() + "; " + m.km.Close.Help().Key + " closes, and the check runs again"
	}
	return ansi.Wrap(foot, max(m.width, 20), " ")
}

// boardRoom is the lines the racers have below the title and above a
// blank line and foot.
func (m Model) boardRoom(foot string) int {
	return max(m.height-3-strings.Count(foot, "\n"), 2)
}

// scrollBoard scrolls the racers' lines when they do not all fit.
func (m Model) scrollBoard(k tea.KeyPressMsg) {
	bd, room := m.board, m.boardRoom(m.boardFoot())
	switch {
	case key.Matches(k, m.km.Up):
		bd.scroll--
	case key.Matches(k, m.km.Down):
		bd.scroll++
	case key.Matches(k, m.km.PageUp):
		bd.scroll -= room - 1
	case key.Matches(k, m.km.PageDown):
		bd.scroll += room - 1
	}
	bd.scroll = max(min(bd.scroll, len(bd.txs)-room+1), 0)
}

// racerWhy says why a racer did not commit, after two spaces: its first
// failed slot, and apart the slot's action; or what kept it from being
// sent. Both are "" for a racer that committed.
func racerWhy(r *model.Result, err error) (why, action string) {
	if len(r.Reasons) > 0 {
		rs := r.Reasons[0]
		if rs.Slot >= 0 {
			return "  " + model.OneLine(fmt.Sprintf("slot %d: %s", rs.Slot, rs.Message)), " " + model.OneLine("("+rs.Action+")")
		}
		return "  " + model.OneLine(rs.Code+": "+rs.Message), ""
	}
	if err != nil {
		return "  " + model.OneLine(redact.String(err.Error())), ""
	}
	return "", ""
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
