// Package write runs the write dialog: it opens it for a signup, a rename,
// a delete or a repair; plans and prepares the guarded transaction (after
// looking for other holders of new values); sends it; and hands the dialog
// the outcome. The request itself stays here: the dialog is shown a
// preview. It owns its request id and the write in flight, which quitting
// waits for.
package write

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/redact"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
	"github.com/locktable/locktable/writes"
)

// Backend is what a write asks of the tables: what the write flow needs
// (package writes runs every write, as it does for the CLI).
type Backend interface {
	writes.Store
	// ConsistentReader reads a race's cancelled racers back (see
	// writes.RaceViolations).
	writes.ConsistentReader
}

// reqID numbers dialogs, so that an answer for a dialog since closed is
// dropped.
type reqID int

// operation is what the open dialog writes.
type operation int

const (
	opSignup operation = iota
	opRename
	opDelete
	opRepair
	opRace
	opUndo
)

// PlanMsg answers a planning request: a prepared transaction, or why
// there is none.
type PlanMsg struct {
	req     reqID
	tx      backend.Tx
	preview dialog.Preview
	skip    string
	err     error
	// refused is the outcome of a write the holder lookup refused: not
	// sent, but recorded, and logged.
	refused *model.Result
}

// SentMsg answers a send.
type SentMsg struct {
	req reqID
	res model.Result
	err error
}

// RereadMsg answers the read of an account whose rename was cancelled:
// the account as it is now, for the form's retry to start from.
type RereadMsg struct {
	req   reqID
	item  model.Item
	found bool
	err   error
}

// SavedMsg answers a save of the previewed request: where it went.
type SavedMsg struct {
	req  reqID
	path string
	err  error
}

// WrittenMsg says the dialog of a write that was sent closed, whatever
// its outcome: the accounts it involves, and the locks it wrote, are to
// be read again.
type WrittenMsg struct {
	Accounts []string
	// Locks are the lock items the write changed (a lock deleted by a
	// repair names no account to read it again with).
	Locks     []model.KeyRef
	Committed bool
	// Rejudge are the problems the write fixed, every repair of them
	// committed: the check judges them again by the keys they involve
	// (check.Model.Rejudge) rather than running whole. Empty: it runs.
	Rejudge []model.Problem
}

// SendingMsg tells the root, before writes are sent, what they will leave
// on the table (model.Planner.Footprints): the stream's records that carry
// it are the session's own, not someone else's changes.
type SendingMsg struct{ Footprints []model.Footprint }

// Sending returns the command that announces the writes txs (SendingMsg),
// then runs send: the root is told before any record of them can come.
func Sending(schema *model.Schema, send tea.Cmd, txs ...backend.Tx) tea.Cmd {
	var fs []model.Footprint
	for _, tx := range txs {
		fs = append(fs, model.Planner{Schema: schema}.Footprints(tx.Plan, tx.Token)...)
	}
	return tea.Sequence(events.Emit(SendingMsg{Footprints: fs}), send)
}

// OutcomeMsg reports the outcome of one write the session sent, once it
// is known, whatever it is: what the writes log (ui/writelog) lists.
type OutcomeMsg struct {
	Result model.Result
	// Undoes is, for an undo, the token of the write it takes back.
	Undoes string
	// Claimed is, for the repair of an ownerless orphan lock whose claim
	// committed, the claim's token: Result is then its last step's.
	Claimed string
	// Racer is a race's racer, from 1, of Racers (0: not a race).
	Racer, Racers int
	// Err says why a write certainly did not apply (refused, not sent,
	// rejected); with no Result.Outcome, why it has none.
	Err error
	// Group is the batch the write was sent in (ui/batch: fixes of many
	// problems, or the undo of such a batch), "" for none; GroupTitle
	// says what the batch did. The writes log lists them as one group.
	Group, GroupTitle string
}

// UndoMsg asks for the preview of taking back the write with Token;
// Title says what that does ("undo rename ACCT#a1", "redo ...").
type UndoMsg struct{ Token, Title string }

// SelectAProblem is what f says on a row that shows no problem.
const SelectAProblem = "select a problem row (a lock marked in words, an orphan, or a row of the problems view)"

// RenameMsg asks for the rename form of an account.
type RenameMsg struct{ Account model.AccountView }

// DeleteMsg asks to delete an account and release its locks.
type DeleteMsg struct{ Account model.AccountView }

// FixMsg asks to repair a problem; the repair's plan says why when a
// person decides.
type FixMsg struct{ Problem model.Problem }

// Model is the write dialog and the transaction it is about.
type Model struct {
	ctx     context.Context
	backend Backend
	schema  *model.Schema
	st      *styles.Styles
	km      dialog.KeyMap
	// items hold the last finished check's report and its duplicate
	// values: the values others hold, its findings the candidates of a
	// holder lookup.
	items  *items.Cache
	dialog *dialog.Model // nil when closed
	req    reqID
	op     operation
	id     string // the account a rename or delete is about
	// seen is that account as the screen showed it: a rename or delete
	// from here is guarded on it (model.Planner.Rename).
	seen model.Item
	// prepared is the transaction the dialog previews; sending, the one in
	// flight: quitting waits for its outcome (quitting), unless asked
	// twice. farewell is what to print once the UI has left the terminal.
	prepared     *backend.Tx
	sending      *backend.Tx
	quitting     bool
	farewell     string
	written      []string       // the accounts the last write sent involves
	writtenLocks []model.KeyRef // and the locks it changes
	// fixing is the problem a repair's dialog is about; fixed, once its
	// repair committed, to be judged again by its keys (Rejudge).
	fixing, fixed *model.Problem
	// A race's: the loaded ids new keys are made like, every racer's
	// transaction, and the board once it has started.
	sampleIDs []string
	raceTxs   []backend.Tx
	board     *board
	// SaveDir is where w saves a previewed request ("": the current
	// directory).
	SaveDir string
	width   int
	height  int
}

// New returns the write flow, with no dialog open, judging by the check
// c holds.
func New(ctx context.Context, backend Backend, schema *model.Schema, st *styles.Styles, c *items.Cache, km dialog.KeyMap) Model {
	return Model{ctx: ctx, backend: backend, schema: schema, st: st, items: c, km: km}
}

// SetSize sets the dialog's size in cells.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	if m.dialog != nil {
		m.dialog.SetSize(w, h)
	}
}

// Open reports whether the dialog is open.
func (m Model) Open() bool { return m.dialog != nil }

func (m *Model) open(title string, fields []dialog.Field, op operation, id string) {
	m.req++
	m.seen = nil
	d := dialog.New(m.km, m.st, m.schema, title, fields)
	d.SetSize(m.width, m.height)
	m.dialog, m.prepared = &d, nil
	m.op, m.id = op, id
	m.raceTxs, m.board = nil, nil
	m.fixing, m.fixed = nil, nil
}

// shown is the item a row showed, never nil: a write from a row is
// guarded on what it showed, even an account shown with no attributes.
func shown(it model.Item) model.Item {
	if it == nil {
		return model.Item{}
	}
	return it
}

// Signup opens the form of a new account, its key suggested like ids,
// keys of the table.
func (m Model) Signup(ids []string) (Model, tea.Cmd) {
	sc := m.schema
	one, _ := sc.Nouns()
	fields := []dialog.Field{dialog.NewField(one, model.AccountIDs{Schema: sc}.NewLike(ids), func(v string) error {
		_, err := model.Planner{Schema: sc}.Signup(v, nil)
		return err
	})}
	for _, c := range sc.Constraints {
		fields = append(fields, dialog.NewField(c.Attr, "", m.validator(c.Attr)))
	}
	for i := range fields {
		fields[i].Original = "" // new values: nothing was loaded
	}
	m.open("add "+one+": signup with its locks", fields, opSignup, "")
	return m, nil
}

// Rename opens the form of account a's unique attributes.
func (m Model) Rename(a model.AccountView) (Model, tea.Cmd) {
	var fields []dialog.Field
	for _, c := range m.schema.Constraints {
		fields = append(fields, dialog.NewField(c.Attr, formValue(a.Item, c.Attr), m.validator(c.Attr)))
	}
	m.open("rename "+rows.AccountKey(&a), fields, opRename, a.ID)
	m.seen = shown(a.Item)
	return m, nil
}

// formValue is attribute name of it as the form edits it: a string as
// stored, byte for byte; another type as its text (rows.AttrText).
func formValue(it model.Item, name string) string {
	if v, ok := it[name]; ok && v.Kind == model.KindS {
		return v.S
	}
	return rows.AttrText(it, name)
}

// Delete plans deleting account a and releasing its locks.
func (m Model) Delete(a model.AccountView) (Model, tea.Cmd) {
	m.open("delete "+rows.AccountKey(&a)+" and release its locks", nil, opDelete, a.ID)
	m.seen = shown(a.Item)
	ctx, f, req, id, others, seen := m.ctx, m.flow(), m.req, a.ID, m.items.Duplicates(), m.seen
	return m, tea.Batch(m.dialog.Init(), func() tea.Msg {
		return req.planned(f.Delete(ctx, id, seen, others))
	})
}

// Fix plans the repair of problem p; where a person decides, the plan's
// Skip (model.Problem.LeftToAPerson) says why. A problem a row knows only
// for its own account is repaired as the check found it, with every
// holder.
func (m Model) Fix(p model.Problem) (Model, tea.Cmd) {
	p = m.asChecked(p)
	m.open(fmt.Sprintf("fix %s %s=%s", p.Kind, p.Constraint, model.Printable(p.Value)), nil, opRepair, "")
	m.fixing = &p
	ctx, f, req := m.ctx, m.flow(), m.req
	return m, tea.Batch(m.dialog.Init(), func() tea.Msg {
		return req.planned(f.Repair(ctx, p))
	})
}

// asChecked is problem p as the last check found it, with every holder,
// where it found it.
func (m Model) asChecked(p model.Problem) model.Problem {
	if r := m.items.Report(); r != nil {
		for _, q := range r.Problems {
			if q.Kind == p.Kind && q.ConstraintIndex() == p.ConstraintIndex() && q.Value == p.Value {
				return q
			}
		}
	}
	return p
}

// Refuses says why a fix of problem p opens no dialog, for the status
// line: a person decides (model.Problem.LeftToAPerson), judged as the
// last check found p; "" when a repair is planned.
func (m Model) Refuses(p model.Problem) string {
	why := m.asChecked(p).LeftToAPerson()
	if why == "" {
		return ""
	}
	return "no repair planned: " + why // the row selected says which problem
}

// Undo plans taking back the write with token (see UndoMsg): the items
// it changed set back, guarded by their being as it left them, previewed
// like any write under title.
func (m Model) Undo(token, title string) (Model, tea.Cmd) {
	m.open(title, nil, opUndo, "")
	ctx, f, req, h := m.ctx, m.flow(), m.req, writes.FromReport(m.items.Report())
	return m, tea.Batch(m.dialog.Init(), func() tea.Msg {
		return req.planned(f.Undo(ctx, "", token, h))
	})
}

// validator checks a value of attr as it is typed: UTF-8, no control
// characters, and a lock key that fits.
func (m Model) validator(attr string) func(string) error {
	sc := m.schema
	return func(v string) error {
		if err := model.ValidateText(attr, v); err != nil {
			return err
		}
		ci := sc.Constraint(attr)
		if h, _ := sc.Held(ci, model.Item{attr: model.S(v)}); h == model.HoldsInvalid {
			return fmt.Errorf("lock key would exceed %d bytes", model.MaxPartitionKeyBytes)
		}
		return nil
	}
}

// flow is the write flow on the dialog's backend.
func (m Model) flow() writes.Flow { return writes.Flow{Store: m.backend, Schema: m.schema} }

// planned is the answer to dialog req of a write the flow planned: its
// request and the preview said from it, a repair's skip, or why there is
// none (a value refused by the holder lookup sends the dialog back to its
// form, saying why).
func (req reqID) planned(w writes.Write, err error) PlanMsg {
	switch {
	case err != nil:
		return PlanMsg{req: req, err: err}
	case w.Skip != "":
		return PlanMsg{req: req, skip: w.Skip}
	case w.Refused != nil:
		return PlanMsg{req: req, err: errors.New(w.Refused.Reasons[0].Message), refused: w.Refused}
	}
	doc, err := w.Tx.Request.CLIInput()
	if err != nil {
		return PlanMsg{req: req, err: err}
	}
	// Escaped, the request is the same JSON, and safe to copy and paste.
	preview := dialog.Preview{Plan: w.Tx.Plan, Slots: w.Tx.Slots, Token: w.Tx.Token, Request: model.EscapeJSON(string(doc))}
	if w.Lookup.Ran || w.Lookup.Skipped {
		preview.Lookup = w.Lookup.String() // escaped
	}
	return PlanMsg{req: req, tx: w.Tx, preview: preview}
}

// Update opens the dialog, hands it keys and answers what it asks for.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case RenameMsg:
		return m.Rename(msg.Account)
	case DeleteMsg:
		return m.Delete(msg.Account)
	case FixMsg:
		return m.Fix(msg.Problem)
	case UndoMsg:
		return m.Undo(msg.Token, msg.Title)
	}
	if m.dialog == nil {
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m.onKey(msg)
	case tea.PasteMsg:
		if m.board == nil { // a race's board takes no text
			d, cmd := m.dialog.Update(msg)
			m.dialog = &d
			return m, cmd
		}
	case spinner.TickMsg:
		d, cmd := m.dialog.Update(msg)
		m.dialog = &d
		return m, cmd
	case dialog.SubmitMsg:
		return m, m.submit(msg.Values)
	case PlanMsg:
		return m.showPlan(msg)
	case RacePlannedMsg:
		return m.showRace(msg)
	case RacerMsg:
		return m.racerAnswered(msg)
	case RaceVerifiedMsg:
		return m.raceVerified(msg)
	case dialog.SaveMsg:
		return m, m.saveRequest()
	case SavedMsg, RereadMsg:
		m.took(msg)
	case dialog.SendMsg:
		return m.send()
	case SentMsg:
		return m.sent(msg)
	case dialog.CloseMsg:
		return m.close(msg.Committed)
	}
	return m, nil
}

// onKey hands a key to the dialog, or to a race's board: it scrolls;
// nothing else until every racer has its answer and the cancelled ones
// are read back; then enter or esc closes it.
func (m Model) onKey(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	if m.board != nil {
		if m.board.done() && key.Matches(msg, m.km.Close, m.km.Back) {
			return m.close(len(m.written) > 0)
		}
		m.scrollBoard(msg)
		return m, nil
	}
	d, cmd := m.dialog.Update(msg)
	m.dialog = &d
	return m.closeIfDone(cmd)
}

// closeIfDone closes the dialog in this update when a key closed it, so
// that the next key finds what is under it; cmd is the dialog's.
func (m Model) closeIfDone(cmd tea.Cmd) (Model, tea.Cmd) {
	if committed, closed := m.dialog.Closed(); closed {
		var wcmd tea.Cmd
		m, wcmd = m.close(committed)
		return m, tea.Batch(cmd, wcmd)
	}
	return m, cmd
}

// close closes the dialog; the accounts a sent write involves are to be
// read again.
func (m Model) close(committed bool) (Model, tea.Cmd) {
	m.dialog, m.prepared, m.raceTxs, m.board = nil, nil, nil, nil
	if ids, locks := m.written, m.writtenLocks; committed || len(ids) > 0 || len(locks) > 0 {
		w := WrittenMsg{Accounts: ids, Locks: locks, Committed: committed}
		if m.fixed != nil {
			w.Rejudge = []model.Problem{*m.fixed}
		}
		m.written, m.writtenLocks, m.fixed = nil, nil, nil
		return m, events.Emit(w)
	}
	return m, nil
}

// showPlan shows a planned write's preview, or why there is none.
func (m Model) showPlan(msg PlanMsg) (Model, tea.Cmd) {
	switch {
	case msg.req != m.req: // for a dialog since closed
		return m, nil
	case msg.refused != nil:
		m.dialog.SetError(redact.String(msg.err.Error()))
		return m.closeIfDone(tea.Batch(events.Emit(OutcomeMsg{Result: *msg.refused}), m.dialog.Replay()))
	case msg.err != nil:
		m.dialog.SetError(redact.String(msg.err.Error()))
	case msg.skip != "":
		m.dialog.SetSkipped(msg.skip)
	default:
		m.prepared = &msg.tx
		cmd := m.dialog.SetPlan(msg.preview)
		return m.closeIfDone(tea.Batch(cmd, m.dialog.Replay()))
	}
	return m.closeIfDone(m.dialog.Replay())
}

// showRace shows a planned race's preview, or why there is none.
func (m Model) showRace(msg RacePlannedMsg) (Model, tea.Cmd) {
	switch {
	case msg.req != m.req:
		return m, nil
	case msg.err != nil:
		m.dialog.SetError(redact.String(msg.err.Error()))
	default:
		m.raceTxs, m.prepared = msg.txs, &msg.txs[0]
		cmd := m.dialog.SetPlan(msg.preview)
		return m.closeIfDone(tea.Batch(cmd, m.dialog.Replay()))
	}
	return m.closeIfDone(m.dialog.Replay())
}

// submit plans the write the form's values describe.
func (m Model) submit(values map[string]string) tea.Cmd {
	ctx, f, sc, req, h := m.ctx, m.flow(), m.schema, m.req, writes.FromReport(m.items.Report())
	switch m.op {
	case opSignup:
		attrs := map[string]string{}
		for _, c := range sc.Constraints {
			attrs[c.Attr] = values[c.Attr]
		}
		one, _ := sc.Nouns()
		id := values[one]
		return func() tea.Msg { return req.planned(f.Signup(ctx, id, attrs, h)) }
	case opRace:
		return m.submitRace(values)
	case opRename:
		id, others, seen := m.id, m.items.Duplicates(), m.seen
		changes := map[string]string{}
		for _, field := range m.dialog.Fields() {
			if v := field.Value(); v != field.Original {
				changes[field.Label] = v
			}
		}
		return func() tea.Msg { return req.planned(f.Rename(ctx, id, changes, seen, others, h)) }
	}
	return nil
}

// send sends the previewed write, or starts the race.
func (m Model) send() (Model, tea.Cmd) {
	if m.prepared == nil {
		return m, nil
	}
	if m.op == opRace {
		return m, m.startRace()
	}
	tx, f, req := *m.prepared, m.flow(), m.req
	m.sending = &tx
	// Quitting does not cancel a write: it waits for the outcome (see
	// Quit), which is settled under this context.
	wctx := context.WithoutCancel(m.ctx)
	return m, Sending(m.schema, func() tea.Msg {
		res, err := f.Send(wctx, writes.Write{Tx: tx})
		return SentMsg{req: req, res: res, err: err}
	}, tx)
}

// sent shows a sent write's outcome (or, quitting, keeps it to print).
func (m Model) sent(msg SentMsg) (Model, tea.Cmd) {
	if msg.req != m.req {
		return m, nil
	}
	m.sending = nil
	if m.quitting {
		m.farewell = farewell(msg.res, msg.err)
		return m, tea.Quit
	}
	logged := events.Emit(Outcome(*m.prepared, msg.res, msg.err))
	switch {
	case msg.err != nil && msg.res.Outcome != "":
		// Certainly not applied: the outcome says how, in words.
		m.dialog.SetFailure(msg.res, redact.String(msg.err.Error()))
		return m, logged
	case msg.err != nil:
		m.dialog.SetError(redact.String(msg.err.Error()))
		return m, logged
	}
	m.dialog.SetResult(msg.res)
	m.written, m.writtenLocks = written(m.prepared.Plan), writtenLocks(m.prepared.Plan) // read again whatever the outcome
	if msg.res.Outcome == model.Committed {
		m.fixed = m.fixing // nil but for a repair
	}
	if m.op == opRename && msg.res.Outcome == model.Cancelled {
		return m, tea.Batch(logged, m.readAccount())
	}
	return m, logged
}

// readAccount reads the account being renamed as it is now: a rename
// cancelled because another writer changed it is retried from what is
// there, not from what the row showed (each retry would be cancelled
// the same way).
func (m Model) readAccount() tea.Cmd {
	ctx, r, req := m.ctx, m.backend, m.req
	ref := model.KeyRef{Table: m.schema.Table, Key: m.schema.AccountKey(m.id)}
	return func() tea.Msg {
		msg := RereadMsg{req: req}
		msg.err = r.ReadConsistent(ctx, []model.KeyRef{ref}, func(_ string, it model.Item) {
			msg.item, msg.found = it, true
		})
		return msg
	}
}

// took takes what a command read or saved for the open dialog.
func (m *Model) took(msg tea.Msg) {
	switch msg := msg.(type) {
	case SavedMsg:
		m.saved(msg)
	case RereadMsg:
		m.reread(msg)
	}
}

// reread takes the account as read now into the form: the guard of the
// retry (seen) and each field's "was"; a value the user left as loaded
// takes the new one. A failed read or a deleted account changes nothing:
// the retry then says why itself.
func (m *Model) reread(msg RereadMsg) {
	if msg.req != m.req || m.dialog == nil || msg.err != nil || !msg.found {
		return
	}
	m.seen = shown(msg.item)
	now := map[string]string{}
	for _, c := range m.schema.Constraints {
		now[c.Attr] = formValue(msg.item, c.Attr)
	}
	m.dialog.Reload(now)
}

// Outcome is the log's record of tx sent, with its result res: a
// reclaim whose result has a token of its own claimed the lock first,
// with tx's token.
func Outcome(tx backend.Tx, res model.Result, err error) OutcomeMsg {
	o := OutcomeMsg{Result: res, Undoes: tx.Plan.Undoes, Err: err}
	if r := tx.Plan.Reclaim; r != nil && !r.Resume && res.Token != "" && res.Token != tx.Token {
		o.Claimed = tx.Token
	}
	return o
}

// saveRequest saves the previewed request to a file (see save).
func (m Model) saveRequest() tea.Cmd {
	if m.prepared == nil {
		return nil
	}
	tx, dir, req := *m.prepared, m.SaveDir, m.req
	return func() tea.Msg {
		path, err := save(dir, tx)
		return SavedMsg{req: req, path: path, err: err}
	}
}

// saved says where the request went, or why it did not.
func (m *Model) saved(msg SavedMsg) {
	switch {
	case msg.req != m.req:
	case msg.err != nil:
		m.dialog.SetInfo("not saved: " + redact.String(msg.err.Error()))
	default:
		// The path on a line of its own, not wrapped at its hyphens.
		what := "the request (send it with aws dynamodb transact-write-items --cli-input-json file://PATH)"
		if r := m.prepared; r != nil && r.Plan.Reclaim != nil && !r.Plan.Reclaim.Resume {
			what = "step 1's request (the claim alone: sent by hand it leaves the lock claimed)"
		}
		m.dialog.SetInfo("saved " + what + " to:\n" + msg.path)
	}
}

// save writes the request of tx as the AWS CLI takes it (model.EscapeJSON) to
// locktable-tx-TOKEN.json in dir, and returns its path.
func save(dir string, tx backend.Tx) (string, error) {
	doc, err := tx.Request.CLIInput()
	if err != nil {
		return "", err
	}
	path, err := filepath.Abs(filepath.Join(dir, "locktable-tx-"+tx.Token+".json"))
	if err != nil {
		return "", err
	}
	// Escaped: the same JSON, and safe to cat.
	if err := os.WriteFile(path, []byte(model.EscapeJSON(string(doc))+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("save the request: %w", err)
	}
	return path, nil
}

// written lists the accounts a plan touches.
func written(p model.Plan) []string {
	var ids []string
	for _, a := range p.Actions {
		if a.Account != "" && !slices.Contains(ids, a.Account) {
			ids = append(ids, a.Account)
		}
	}
	return ids
}

// writtenLocks are the lock items plan p changes, to be read again.
func writtenLocks(p model.Plan) []model.KeyRef {
	var refs []model.KeyRef
	for _, a := range p.Actions {
		if a.Kind != model.ActCheck && a.Constraint >= 0 {
			refs = append(refs, model.KeyRef{Table: a.Table, Key: a.Key})
		}
	}
	return refs
}

// Sending reports whether a write is in flight.
func (m Model) Sending() bool { return m.sending != nil }

// Quit answers ctrl+c (or q) while a write is in flight: the first waits
// for its outcome and then quits, saying what it was; the second quits at
// once, leaving the outcome unknown, with its token.
func (m Model) Quit() (Model, tea.Cmd) {
	if !m.quitting {
		m.quitting = true
		return m, nil
	}
	tx := m.sending
	if m.board != nil {
		m.farewell = fmt.Sprintf("UNKNOWN   race: quit before %d of %d racers answered; check the keys (locktable check)", m.board.left, len(m.board.txs))
		return m, tea.Quit
	}
	m.farewell = fmt.Sprintf("UNKNOWN   %s %s (token %s): quit before its outcome was known; check the keys (locktable check) before trying again",
		tx.Plan.Operation, model.Printable(strings.Join(tx.Plan.Keys, ", ")), tx.Token)
	return m, tea.Quit
}

// Changed says, in the open dialog, that someone else wrote an item it
// is about since it was read (refs, which the table's stream named),
// before anything is sent: what it previews may no longer be what is
// there (the send is guarded on what was read, and is cancelled if that
// changed).
func (m *Model) Changed(refs []model.KeyRef) {
	if m.dialog == nil || m.sending != nil || m.board != nil || m.dialog.Stage == dialog.StageResult || m.dialog.Stage == dialog.StageSkipped {
		return // nothing is about to be sent
	}
	var about []model.KeyRef
	if m.id != "" {
		about = append(about, model.KeyRef{Table: m.schema.Table, Key: m.schema.AccountKey(m.id)})
	}
	if m.fixing != nil {
		about = append(about, model.Classifier{Schema: m.schema}.Involved(*m.fixing)...)
	}
	if m.prepared != nil { // what a previewed plan writes or checks: a signup's, an undo's
		for _, a := range m.prepared.Plan.Actions {
			about = append(about, model.KeyRef{Table: a.Table, Key: a.Key})
		}
	}
	for _, r := range refs {
		if slices.ContainsFunc(about, func(a model.KeyRef) bool { return a.ID() == r.ID() }) {
			m.dialog.SetChanged("changed under this dialog: someone else wrote " + model.Printable(r.Text()) +
				" since it was read; sending is guarded and is cancelled if that matters (esc, then open it again, starts from what is there now)")
			return
		}
	}
}

// Status says what the flow is waiting for, "" when nothing.
func (m Model) Status() string {
	if m.quitting {
		return "a write is in flight: quitting once its outcome is known (ctrl+c again to quit now, outcome unknown)"
	}
	return ""
}

// farewell says how the write the UI waited for before quitting ended.
func farewell(res model.Result, err error) string {
	if err != nil {
		return fmt.Sprintf("%s not written: %s", res.Operation, model.OneLine(err.Error()))
	}
	return fmt.Sprintf("%-9s %s %s (token %s)", res.Outcome, res.Operation, model.Printable(strings.Join(res.Keys, ", ")), res.Token)
}

// Farewell is what to print once the UI has left the terminal: the
// outcome of a write it waited for before quitting.
func (m Model) Farewell() string { return m.farewell }

// Stage is where the open dialog is (StageForm when none is open).
func (m Model) Stage() dialog.Stage {
	if m.dialog == nil {
		return dialog.StageForm
	}
	return m.dialog.Stage
}

// ShortHelp is the open dialog's help line.
func (m Model) ShortHelp() []key.Binding {
	if m.dialog == nil {
		return nil
	}
	if m.board != nil {
		up := key.NewBinding(key.WithKeys(m.km.Up.Keys()...), key.WithHelp(m.km.Up.Help().Key, "scroll"))
		if !m.board.done() {
			return []key.Binding{up}
		}
		return []key.Binding{m.km.Close, up}
	}
	return m.dialog.ShortHelp()
}

// FullHelp is the open dialog's bindings.
func (m Model) FullHelp() [][]key.Binding {
	if m.dialog == nil {
		return nil
	}
	if m.board != nil {
		return [][]key.Binding{m.ShortHelp()}
	}
	return m.dialog.FullHelp()
}

// View renders the dialog, or a race's board.
func (m Model) View() string {
	if m.dialog == nil {
		return ""
	}
	if m.board != nil {
		return m.boardView()
	}
	return m.dialog.View()
}
