package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/rows"
)

// planMsg answers a planning request of the write dialog seq; answers
// for a dialog since closed are dropped. The dialog is shown preview;
// tx, the request itself, stays with the root.
type planMsg struct {
	seq     int
	tx      dynamo.Tx
	preview dialog.Preview
	skip    string
	err     error
}

// writeDoneMsg answers a send of the write dialog seq.
type writeDoneMsg struct {
	seq int
	res model.Result
	err error
}

// refreshedMsg carries accounts re-read after a write; gone lists the
// ones that no longer exist.
type refreshedMsg struct {
	views []model.AccountView
	gone  []string
	err   error
}

// prepare turns a plan for dialog seq into a ready transaction message.
func prepare(seq int, s Backend, p model.Plan, err error, mustType string) planMsg {
	if err != nil {
		return planMsg{seq: seq, err: err}
	}
	tx, err := s.Prepare(p, dynamo.NewToken())
	if err != nil {
		return planMsg{seq: seq, err: err}
	}
	doc, err := dynamo.CLIJSON(tx.Input)
	if err != nil {
		return planMsg{seq: seq, err: err}
	}
	return planMsg{seq: seq, tx: tx, preview: dialog.Preview{Plan: p, Token: tx.Token(), Request: string(doc), MustType: mustType}}
}

// holderLookup returns how a signup or rename looks for other holders of
// its new values before it is previewed (PATTERN.md, "Other holders"):
// from the finished check, whose missing locks and duplicates name the
// accounts to read again consistently; before the check is done, by the
// store's own lookup (the --index GSI or a consistent scan).
func (m *Model) holderLookup() func(Backend, context.Context, []dynamo.Wanted) (dynamo.HolderLookup, error) {
	r := m.check.Report
	if r == nil {
		return (Backend).LookupHolders
	}
	candidates := map[dynamo.Wanted][]string{}
	for _, p := range r.Problems {
		if p.Kind == model.MissingLock || p.Kind == model.DuplicateValue {
			w := dynamo.Wanted{Constraint: p.ConstraintIndex(), Value: p.Value}
			candidates[w] = append(candidates[w], p.Accounts...)
		}
	}
	return func(s Backend, ctx context.Context, values []dynamo.Wanted) (dynamo.HolderLookup, error) {
		return s.ConfirmHolders(ctx, values, candidates)
	}
}

// prepareNew is prepare for a plan that locks new values: a value another
// account holds without its lock is refused (and the refusal recorded)
// before anything is previewed, and the dialog goes back to its form.
func prepareNew(ctx context.Context, seq int, s Backend, p model.Plan, err error,
	lookup func(Backend, context.Context, []dynamo.Wanted) (dynamo.HolderLookup, error)) planMsg {
	if values := dynamo.NewValues(p); err == nil && len(values) > 0 {
		found, lerr := lookup(s, ctx, values)
		if lerr != nil {
			return planMsg{seq: seq, err: lerr}
		}
		if taken := dynamo.TakenValues(p, found); len(taken) > 0 {
			res := s.Refuse(p, taken)
			return planMsg{seq: seq, err: errors.New(res.Reasons[0].Message)}
		}
	}
	return prepare(seq, s, p, err, "")
}

// others says which values other accounts are known to hold: the check's
// duplicates, when it is done.
func (m *Model) others() model.OthersHold {
	if m.check.Report == nil {
		return nil
	}
	return duplicates(m.check.Report)
}

// selectedAccount is the account of the selected row in the accounts view.
func (m *Model) selectedAccount() (*model.AccountView, bool) {
	if m.view != viewAccounts || m.accounts.Len() == 0 {
		return nil, false
	}
	r := m.accounts.row(m.accountsList.Cursor())
	if r.Kind != rows.Account && r.Kind != rows.Lock {
		return nil, false
	}
	return m.accounts.account(r), true
}

// onWriteKey opens the write dialog for e, d, f and a.
func (m Model) onWriteKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if !m.store.Writable() {
		m.status = "read-only: writes are disabled (--read-only, or a remote endpoint without --write)"
		return m, nil
	}
	sc := m.schema
	ctx, s := m.ctx, m.store
	switch {
	case key.Matches(msg, m.km.Add):
		fields := []dialog.Field{dialog.NewField("account", sc.AccountPrefix+dynamo.NewToken()[:8], func(v string) error {
			_, err := sc.Signup(v, nil)
			return err
		})}
		for _, c := range sc.Constraints {
			fields = append(fields, dialog.NewField(c.Attr, "", m.validator(c.Attr)))
		}
		for i := range fields {
			fields[i].Original = "" // new values: nothing was loaded
		}
		m.openDialog("add account: signup with its locks", fields, "signup", "")
		return m, nil
	case key.Matches(msg, m.km.Edit):
		a, ok := m.selectedAccount()
		if !ok {
			m.status = "select an account to rename"
			return m, nil
		}
		var fields []dialog.Field
		for _, c := range sc.Constraints {
			fields = append(fields, dialog.NewField(c.Attr, rows.AttrText(a.Item, c.Attr), m.validator(c.Attr)))
		}
		m.openDialog("rename "+rows.AccountKey(a), fields, "rename", a.ID)
		return m, nil
	case key.Matches(msg, m.km.Delete):
		a, ok := m.selectedAccount()
		if !ok {
			m.status = "select an account to delete"
			return m, nil
		}
		id, others := a.ID, m.others()
		m.openDialog("delete "+rows.AccountKey(a)+" and release its locks", nil, "delete", id)
		seq := m.dialogSeq
		return m, func() tea.Msg {
			p, err := s.PlanDelete(ctx, id, others)
			return prepare(seq, s, p, err, id)
		}
	case key.Matches(msg, m.km.Fix):
		p, why, ok := m.selectedProblem()
		if !ok {
			m.status = "select a problem row (a lock marked in words, an orphan, or a row of the problems view)"
			return m, nil
		}
		m.openDialog(fmt.Sprintf("fix %s %s=%s", p.Kind, p.Constraint, model.Printable(p.Value)), nil, "repair", "")
		if why != "" {
			m.dialog.SetSkipped(why)
			return m, nil
		}
		seq := m.dialogSeq
		return m, func() tea.Msg {
			r, err := s.PlanRepair(ctx, p)
			if err != nil || r.Skip != "" {
				return planMsg{seq: seq, err: err, skip: r.Skip}
			}
			lock, _, err := s.LockAt(ctx, p.ConstraintIndex(), p.Value)
			mustType := ""
			if o, ok := lock[sc.OwnerAttr]; err == nil && ok && o.Kind == model.KindS && o.S != "" {
				mustType = o.S // the lock still names an owner: type it back
			}
			return prepare(seq, s, r.Plan, err, mustType)
		}
	}
	return m, nil
}

// validator checks a value of attr as it is typed: UTF-8, no control
// characters, and a lock key that fits.
func (m *Model) validator(attr string) func(string) error {
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

// selectedProblem is the problem the selected row shows, or why it is
// left to a person. A lock row knows only its own account: where the check
// has the same problem, with every holder, that is the one repaired.
func (m *Model) selectedProblem() (model.Problem, string, bool) {
	p, why, ok := m.rowProblem()
	if !ok || why != "" || m.check.Report == nil {
		return p, why, ok
	}
	for _, q := range m.check.Report.Problems {
		if q.Kind == p.Kind && q.ConstraintIndex() == p.ConstraintIndex() && q.Value == p.Value {
			return q, "", true
		}
	}
	return p, why, ok
}

// rowProblem is the problem the selected row shows, as the row knows it.
func (m *Model) rowProblem() (model.Problem, string, bool) {
	sc := m.schema
	switch m.view {
	case viewProblems:
		if p, ok := m.problems.at(m.problemsList.Cursor()); ok {
			return *p, "", true
		}
	case viewAccounts:
		if m.accounts.Len() == 0 {
			break
		}
		r := m.accounts.row(m.accountsList.Cursor())
		switch r.Kind {
		case rows.Orphan:
			return *m.accounts.orphan(r), "", true
		case rows.Lock:
			a := m.accounts.account(r)
			l := a.Locks[r.Lock]
			ci := int(r.Lock)
			switch l.Status {
			case model.LockMissing:
				return sc.HolderProblem(model.MissingLock, ci, l.Value, "", []string{a.ID}), "", true
			case model.LockForeign:
				return sc.HolderProblem(model.ForeignLock, ci, l.Value, l.Owner, []string{a.ID}), "", true
			case model.LockDuplicate, model.LockInvalid:
				kind := model.DuplicateValue
				if l.Status == model.LockInvalid {
					kind = model.InvalidValue
				}
				why := "a person decides: other accounts hold this value too. Close this, then press e to rename or d to delete one of the accounts."
				if kind == model.InvalidValue {
					why = "this value cannot be locked as it is. Close this, then press e to give the account a valid value, or d to delete it."
				}
				return sc.HolderProblem(kind, ci, l.Value, l.Owner, []string{a.ID}), why, true
			}
		}
	}
	return model.Problem{}, "", false
}

func (m *Model) openDialog(title string, fields []dialog.Field, op, id string) {
	km := m.km // the dialog's own keys: esc always closes it
	km.Back.SetEnabled(true)
	m.dialogSeq++
	d := dialog.New(km, m.st, m.schema, title, fields)
	d.SetSize(m.width, m.listHeight())
	m.dialog = &d
	m.dialogOp, m.dialogID = op, id
	m.openOver(viewDialog)
}

// onDialogMsg answers the dialog's requests.
func (m Model) onDialogMsg(msg tea.Msg) (tea.Model, tea.Cmd) {
	ctx, s, sc, seq := m.ctx, m.store, m.schema, m.dialogSeq
	switch msg := msg.(type) {
	case planMsg:
		if msg.seq != seq {
			return m, nil // for a dialog since closed
		}
	case writeDoneMsg:
		if msg.seq != seq {
			return m, nil
		}
	}
	switch msg := msg.(type) {
	case dialog.SubmitMsg:
		switch m.dialogOp {
		case "signup":
			attrs := map[string]string{}
			for _, c := range sc.Constraints {
				attrs[c.Attr] = msg.Values[c.Attr]
			}
			id, lookup := msg.Values["account"], m.holderLookup()
			return m, func() tea.Msg {
				p, err := sc.Signup(id, attrs)
				return prepareNew(ctx, seq, s, p, err, lookup)
			}
		case "rename":
			id, others, lookup := m.dialogID, m.others(), m.holderLookup()
			changes := map[string]string{}
			for _, f := range m.dialog.Fields() {
				if v := f.Input.Value(); v != f.Original {
					changes[f.Label] = v
				}
			}
			return m, func() tea.Msg {
				p, err := s.PlanRename(ctx, id, changes, others)
				return prepareNew(ctx, seq, s, p, err, lookup)
			}
		}
	case planMsg:
		switch {
		case msg.err != nil:
			m.dialog.SetError(errText(msg.err))
		case msg.skip != "":
			m.dialog.SetSkipped(msg.skip)
		default:
			m.prepared = &msg.tx
			return m, m.dialog.SetPlan(msg.preview)
		}
	case dialog.SendMsg:
		if m.prepared == nil {
			return m, nil
		}
		tx := *m.prepared
		m.sending = &tx
		// Quitting does not cancel a write: it waits for the outcome (see
		// quitDuringWrite), which is settled under this context.
		wctx := context.WithoutCancel(ctx)
		return m, func() tea.Msg {
			res, err := s.Execute(wctx, tx)
			return writeDoneMsg{seq: seq, res: res, err: err}
		}
	case writeDoneMsg:
		m.sending = nil
		if m.quitting {
			m.farewell = farewell(msg.res, msg.err)
			return m, tea.Quit
		}
		if msg.err != nil {
			m.dialog.SetError(errText(msg.err))
			return m, nil
		}
		m.dialog.SetResult(msg.res)
		if msg.res.Outcome == model.Committed {
			m.lastWrite = m.writtenAccounts()
		}
	case dialog.CloseMsg:
		m.dialog, m.prepared = nil, nil
		m.view = m.back
		if !msg.Committed {
			return m, nil
		}
		ids := m.lastWrite
		m.status = "written; reloading the rows involved"
		check := m.runCheck()
		return m, tea.Batch(refresh(ctx, s, ids), check)
	}
	return m, nil
}

// quitDuringWrite answers ctrl+c (or q) while a write is in flight: the
// first waits for its outcome and then quits, saying what it was; the
// second quits at once, leaving the outcome unknown, with its token.
func (m Model) quitDuringWrite() (tea.Model, tea.Cmd) {
	if !m.quitting {
		m.quitting = true
		m.status = "a write is in flight: quitting once its outcome is known (ctrl+c again to quit now, outcome unknown)"
		return m, nil
	}
	tx := m.sending
	m.farewell = fmt.Sprintf("UNKNOWN   %s %s (token %s): quit before its outcome was known; check the keys (locktable check) before trying again",
		tx.Plan.Operation, model.Printable(strings.Join(tx.Plan.Keys, ", ")), tx.Token())
	return m, tea.Quit
}

// farewell says how the write the UI waited for before quitting ended.
func farewell(res model.Result, err error) string {
	if err != nil {
		return fmt.Sprintf("%s not written: %s", res.Operation, model.OneLine(err.Error()))
	}
	return fmt.Sprintf("%-9s %s %s (token %s)", res.Outcome, res.Operation, model.Printable(strings.Join(res.Keys, ", ")), res.Token)
}

// Farewell is what the UI asks to be printed once it has left the
// terminal: the outcome of a write it waited for before quitting.
func (m Model) Farewell() string { return m.farewell }

// writtenAccounts lists the accounts the committed plan touched.
func (m *Model) writtenAccounts() []string {
	var ids []string
	if m.prepared == nil {
		return nil
	}
	for _, a := range m.prepared.Plan.Actions {
		if a.Account != "" && !slices.Contains(ids, a.Account) {
			ids = append(ids, a.Account)
		}
	}
	return ids
}

// refresh re-reads accounts with consistent reads after a write.
func refresh(ctx context.Context, s Backend, ids []string) tea.Cmd {
	return func() tea.Msg {
		var msg refreshedMsg
		for _, id := range ids {
			a, found, err := s.Account(ctx, id)
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

func (m Model) onRefreshed(msg refreshedMsg) (tea.Model, tea.Cmd) {
	m.status = ""
	if msg.err != nil {
		m.err = msg.err
		return m, nil
	}
	var added []model.AccountView
	for _, a := range msg.views {
		if _, shown := m.accounts.index[a.ID]; shown || m.accounts.pinned(a.ID) {
			m.accounts.replaceAccount(a)
		} else {
			added = append(added, a)
		}
	}
	if len(msg.gone) > 0 {
		m.accounts.remove(msg.gone)
	}
	if len(added) > 0 {
		m.accounts.pin = &pin{title: "written", accounts: added}
		m.accounts.rebuildTop()
		m.accountsList.SetCursor(1)
		m.accountsList.ScrollToTop()
	} else {
		m.keepSelection(0)
	}
	return m, nil
}

func emitMsg(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }
