// Package dialog is the write dialog: a form (for add and rename), the
// preview of the exact request, an optional typed confirmation, and the
// result read slot by slot. It does no I/O: it asks the root with
// messages, and the root answers with SetPlan, SetResult and SetError.
package dialog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
	"github.com/locktable/locktable/ui/textfield"
)

// Stage is where the dialog is.
type Stage int

// The stages of a write.
const (
	StageForm    Stage = iota // editing values
	StageWaiting              // the root is planning or sending
	StagePreview              // the request, ready to send
	StageResult               // sent: committed, cancelled or unknown
	StageSkipped              // nothing to send: a person decides
)

// Field is one input of the form. It edits the value itself: Input holds
// it escaped (model.EscapeText: a control character as its escape, a
// backslash doubled), and Value reads it back, so that what is sent keeps
// every byte not edited.
type Field struct {
	Label    string
	Original string // the value as loaded, as stored; "" for new accounts
	Input    textinput.Model
	validate func(string) error
}

// SubmitMsg asks the root to plan with the form's values (label -> value).
type SubmitMsg struct{ Values map[string]string }

// Preview is a prepared transaction as the dialog shows it: what each
// action is for, and what must be typed back to send it (Plan.MustType),
// the exact request and its token. The request itself stays with whoever
// sends it.
type Preview struct {
	Plan    model.Plan
	Slots   []model.Slot // each action and its conditions, from the request
	Token   string
	Request string // the request as the AWS CLI takes it (--cli-input-json)
	// Lookup says how the write's holder lookup looked, how much it read
	// and what it found (writes.Lookup.String, as the CLI says it); "":
	// none ran.
	Lookup string
}

// SaveMsg asks the root to save the previewed request to a file.
type SaveMsg struct{}

// SendMsg asks the root to send the previewed transaction (again, with
// the same token, after an unknown outcome).
type SendMsg struct{}

// CloseMsg says the dialog is done; Committed says a write went through.
type CloseMsg struct{ Committed bool }

// Model is the dialog's state.
type Model struct {
	km      KeyMap
	st      *styles.Styles
	schema  *model.Schema
	Title   string
	Stage   Stage
	fields  []Field
	focus   int
	tx      *Preview
	preview viewport.Model
	typed   textinput.Model
	result  *model.Result
	err     string // as it may be shown
	note    string
	info    string // what the last copy or save did
	// changed says that someone else wrote what the dialog is about
	// since it was read (SetChanged), until it closes.
	changed string
	spin    spinner.Model
	waiting string // what the root is doing, while StageWaiting
	// sending says the wait is for a send's outcome; early are the keys
	// pressed (tea.KeyPressMsg) and the text pasted (tea.PasteMsg) while
	// waiting for a plan, handed to the preview once it is shown
	// (Replay): what is typed or pasted right after d lands in its box.
	sending bool
	early   []tea.Msg
	// closed says a key closed the dialog (Closed), committed whether a
	// write went through: the flow closes it in the same update, so that
	// the next key finds the list.
	closed, committed bool
	scroll            int // the first line of an outcome shown, when it is longer than the dialog
	width             int
	height            int
}

// New returns a dialog titled title. With fields it opens on the form;
// without, it waits for the root's plan.
func New(km KeyMap, st *styles.Styles, schema *model.Schema, title string, fields []Field) Model {
	m := Model{km: km, st: st, schema: schema, Title: title, fields: fields, Stage: StageWaiting,
		spin: spinner.New(spinner.WithSpinner(spinner.Dot)), waiting: "reading what the write involves"}
	if len(fields) > 0 {
		m.Stage = StageForm
		m.fields[0].Input.Focus()
	}
	m.preview = viewport.New()
	m.preview.SoftWrap = false // previewLines wraps between words
	m.preview.KeyMap = viewport.KeyMap{
		Up: km.Up, Down: km.Down, PageUp: km.PageUp, PageDown: km.PageDown,
		HalfPageUp: key.NewBinding(key.WithDisabled()), HalfPageDown: key.NewBinding(key.WithDisabled()),
		Left: key.NewBinding(key.WithDisabled()), Right: key.NewBinding(key.WithDisabled()),
	}
	m.typed = textfield.New()
	m.typed.Prompt = "> "
	return m
}

// Init starts the spinner of a dialog that opens waiting for its plan.
func (m Model) Init() tea.Cmd {
	if m.Stage == StageWaiting {
		return m.spin.Tick
	}
	return nil
}

// wait moves to StageWaiting, saying what for, with the spinner turning.
func (m *Model) wait(what string) tea.Cmd {
	m.Stage, m.waiting, m.sending = StageWaiting, what, false
	return m.spin.Tick
}

// Closed reports whether a key closed the dialog, and whether a write it
// showed went through.
func (m Model) Closed() (committed, closed bool) { return m.committed, m.closed }

// close marks the dialog closed by a key.
func (m *Model) close(committed bool) { m.closed, m.committed = true, committed }

// Replay hands the keys pressed and the text pasted while the plan was
// read to the stage it opened on, in order; a key that would send (or
// close what says why nothing is sent) is dropped, since the user had not
// seen it.
func (m *Model) Replay() tea.Cmd {
	early := m.early
	m.early = nil
	var cmds []tea.Cmd
	for _, msg := range early {
		if p, ok := msg.(tea.PasteMsg); ok {
			if m.Stage != StageWaiting && !m.closed {
				*m = m.paste(p.Content)
			}
			continue
		}
		k := msg.(tea.KeyPressMsg)
		km := m.keys()
		if m.Stage == StageWaiting || m.closed || !m.typing(k) && key.Matches(k, km.Send, km.SendTyped, km.Resend, km.Preview, km.Close) {
			continue
		}
		var cmd tea.Cmd
		*m, cmd = m.Update(k)
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// typing reports whether k is text for the typed confirmation's box: the
// preview asks for a key typed back and k has text. Such keys never copy,
// save or scroll.
func (m Model) typing(k tea.KeyPressMsg) bool {
	return m.Stage == StagePreview && m.tx.Plan.MustType != "" && k.Text != ""
}

// NewField returns a form field holding value (as stored); validate runs
// on the value as the user types.
func NewField(label, value string, validate func(string) error) Field {
	in := textfield.New()
	in.Prompt = ""
	text := model.EscapeText(value)
	in.CharLimit = max(2048, utf8.RuneCountInString(text)) // never cuts what was loaded
	in.SetValue(text)
	return Field{Label: label, Original: value, Input: in, validate: validate}
}

// Reload takes the values as they are now (label -> value, as stored) as
// each field's original; a field still holding its old original takes
// the new value too, so that only what the user edited is changed.
func (m *Model) Reload(now map[string]string) {
	for i := range m.fields {
		f := &m.fields[i]
		v, ok := now[f.Label]
		if !ok {
			continue
		}
		if f.Value() == f.Original {
			f.Input.SetValue(model.EscapeText(v))
		}
		f.Original = v
	}
}

// Value is the field's value as it is sent: its text unescaped.
func (f Field) Value() string { return model.UnescapeText(f.Input.Value()) }

// Err is what is wrong with the field's value as it is now ("" for
// nothing). The value as loaded is not the user's to fix: a stored
// value the form would refuse is sent back as it is, byte for byte.
func (f Field) Err() string {
	v := f.Value()
	if f.validate == nil || v == f.Original {
		return ""
	}
	if err := f.validate(v); err != nil {
		return err.Error()
	}
	return ""
}

// SetSize sets the dialog's size in cells.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	for i := range m.fields {
		m.fields[i].Input.SetWidth(max(w-24, 10))
	}
	m.preview.SetWidth(w)
	// Below the title: the typed answer, an error and a note.
	m.preview.SetHeight(max(h-4, 3))
	if m.tx != nil {
		m.preview.SetContentLines(m.previewLines())
	}
}

// SetPlan shows the prepared transaction, asking for p.Plan.MustType to
// be typed before sending when it is set.
func (m *Model) SetPlan(p Preview) tea.Cmd {
	m.tx, m.err, m.result = &p, "", nil
	m.Stage = StagePreview
	m.preview.SetContentLines(m.previewLines())
	m.preview.GotoTop()
	m.typed.SetValue("")
	if p.Plan.MustType != "" {
		return m.typed.Focus()
	}
	return nil
}

// typedLine asks for the key typed back, with the box it is typed in:
// beside the question where the box keeps room there, else on a line of
// its own under the question wrapped, so that a long key never pushes the
// box off the screen; the box scrolls along a text wider than itself.
func (m Model) typedLine() string {
	want := m.tx.Plan.TypeBack()
	ask := "type " + want + " to send:"
	if m.width > 0 && ansi.StringWidth(ask) > 2*m.width {
		// A key of more than two lines would push the box off the
		// screen; it is cut, and its length said (c on its row copies
		// it as it is asked for, to paste here).
		ask = fmt.Sprintf("type %s (%d characters; c on its row copies them) to send:",
			ansi.Truncate(want, m.width, "…"), utf8.RuneCountInString(want))
	}
	in := m.typed
	if m.width == 0 {
		return ask + " " + in.View()
	}
	const minBox = 12
	// The box's cells: its prompt, the text shown, and the cursor past it.
	box := func(room int) int { return room - ansi.StringWidth(in.Prompt) - 1 }
	if room := m.width - ansi.StringWidth(ask) - 1; box(room) >= minBox {
		in.SetWidth(box(room))
		return ask + " " + in.View()
	}
	in.SetWidth(max(box(m.width), 1))
	return m.wrap(ask, 0) + "\n" + in.View()
}

// SetSkipped shows why nothing is sent.
func (m *Model) SetSkipped(why string) {
	m.Stage, m.note, m.scroll = StageSkipped, why, 0
}

// SetError shows an error, as it may be shown (credentials redacted); a
// form error sends the user back to the form.
func (m *Model) SetError(text string) {
	m.err = text
	switch {
	case len(m.fields) > 0:
		m.Stage = StageForm
	case m.tx != nil:
		m.Stage = StagePreview
	default:
		m.Stage = StageSkipped // nothing to send: show the error, enter closes
	}
}

// SetFailure shows the outcome of a write that certainly did not apply
// (refused, not sent, rejected) and why, as it may be shown.
func (m *Model) SetFailure(r model.Result, text string) {
	m.SetResult(r)
	m.err = text
}

// SetChanged says, until the dialog closes, that someone else wrote what
// it is about since it was read.
func (m *Model) SetChanged(text string) { m.changed = text }

// SetInfo says what a copy or a save did.
func (m *Model) SetInfo(text string) { m.info = text }

// SetResult shows the outcome. A cancelled or unknown write keeps the
// dialog open, slot by slot, for the user to edit and retry.
func (m *Model) SetResult(r model.Result) {
	m.result, m.Stage, m.err, m.scroll = &r, StageResult, "", 0
}

// reclaims reports whether the write is a reclaim's three steps (claim,
// look, delete or give back), this request step 1.
func (m Model) reclaims() bool {
	return m.tx != nil && m.tx.Plan.Reclaim != nil && !m.tx.Plan.Reclaim.Resume
}

// previewLines is what each action does, in words, then the exact request
// and how to send it with the AWS CLI.
func (m Model) previewLines() []string {
	var lines []string
	head := "one TransactWriteItems (all or none), applied only if every condition holds:"
	if m.reclaims() {
		head = "step 1 of 3: " + head
	}
	lines = append(lines, head)
	lines = append(lines, SlotLines(m.tx.Slots)...)
	if m.tx.Plan.Note != "" {
		lines = append(lines, "  note: "+m.tx.Plan.Note)
	}
	lines = append(lines, m.oddLines()...)
	if m.tx.Lookup != "" {
		lines = append(lines, "", m.tx.Lookup)
	}
	lines = append(lines, "")
	if m.reclaims() {
		// Step 3 is planned from what step 2 reads, so no file holds it;
		// step 1 sent alone leaves the lock claimed.
		if says := m.saveAndCopy(); says != "" {
			lines = append(lines, "step 1's request: "+says+";")
		}
		lines = append(lines, "the three steps cannot be replayed by hand as one: this request is step 1 alone, which leaves the lock claimed;",
			"step 3 (delete the lock, or give it back) is planned from what step 2 finds, with a token of its own, shown with the outcome")
	} else {
		if says := m.saveAndCopy(); says != "" {
			lines = append(lines, "the request: "+says+";")
		}
		lines = append(lines, "send it with: aws dynamodb transact-write-items --cli-input-json file://FILE",
			"(its ClientRequestToken makes a resend within 10 minutes a no-op)")
	}
	// EscapeJSON keeps the request valid JSON to copy, and the same;
	// indented, one member a line, it wraps between tokens, not in them.
	doc := model.EscapeJSON(m.tx.Request)
	var pretty bytes.Buffer
	if json.Indent(&pretty, []byte(doc), "", "  ") == nil {
		doc = pretty.String()
	}
	for _, l := range strings.Split(doc, "\n") {
		lines = append(lines, model.Printable(l))
	}
	return rows.Wrap(lines, m.width)
}

// oddLines say, for each value the form changes, when the old or the new
// one holds what no one would see as text (model.Oddities): the request
// shows such values escaped, and the words must not hide them.
func (m Model) oddLines() []string {
	var lines []string
	for _, f := range m.fields {
		v := f.Value()
		if v == f.Original {
			continue
		}
		for _, c := range []struct{ which, v string }{{"old", f.Original}, {"new", v}} {
			if odd := model.Oddities(c.v); odd != "" {
				lines = append(lines, fmt.Sprintf("  note: the %s %s holds %s: %s", c.which, model.Printable(f.Label), odd, model.EscapeText(c.v)))
			}
		}
	}
	return lines
}

// saveAndCopy names the keys that save and copy the request at this
// stage, as "w saves it to a file, c copies it" ("" when neither works).
func (m Model) saveAndCopy() string {
	km := m.keys()
	var says []string
	if km.Save.Enabled() {
		says = append(says, km.Save.Help().Key+" saves it to a file")
	}
	if km.Copy.Enabled() {
		says = append(says, km.Copy.Help().Key+" copies it")
	}
	if len(says) == 0 {
		return ""
	}
	return strings.Join(says, ", ")
}

// SlotLines says each slot of a request, numbered as its actions, with
// one line for each condition it carries ("no condition" for none).
func SlotLines(slots []model.Slot) []string {
	var lines []string
	for i, sl := range slots {
		lines = append(lines, fmt.Sprintf("  %d. %s", i, model.Printable(sl.Does)))
		for _, c := range sl.Conditions {
			lines = append(lines, "       "+model.Printable(c))
		}
		if len(sl.Conditions) == 0 {
			lines = append(lines, "       no condition")
		}
		if sl.Note != "" {
			lines = append(lines, "       ("+model.Printable(sl.Note)+")")
		}
	}
	return lines
}

// Update handles the dialog's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if p, ok := msg.(tea.PasteMsg); ok {
		if m.Stage == StageWaiting && !m.sending {
			m.early = append(m.early, p) // for the preview, as keys are
			return m, nil
		}
		return m.paste(p.Content), nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	switch {
	case !ok:
		return m.updateOther(msg)
	case m.Stage == StageWaiting:
		// Nothing works while waiting (the answer must find this dialog);
		// what is typed for the plan's preview waits for it.
		if !m.sending {
			m.early = append(m.early, k)
		}
		return m, nil
	}
	return m.updateKey(k)
}

// paste puts text in the field that has the cursor, or says why not. It
// sends nothing: an enter in text is text, and refused with it.
func (m Model) paste(text string) Model {
	var err error
	switch {
	case m.Stage == StageForm:
		f := &m.fields[m.focus]
		if err = textfield.PasteEscaped(&f.Input, text); err == nil {
			m.err = ""
		}
	case m.Stage == StagePreview && m.tx.Plan.MustType != "":
		if err = textfield.Paste(&m.typed, text); err == nil {
			m.err = ""
		}
	default:
		err = errors.New("not pasted: nothing here takes text")
	}
	if err != nil {
		m.err = err.Error()
	}
	return m
}

// updateOther turns the spinner while waiting, and scrolls the preview
// with the mouse wheel.
func (m Model) updateOther(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	if _, tick := msg.(spinner.TickMsg); tick {
		if m.Stage != StageWaiting {
			return m, nil // the spinner stops with the wait
		}
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	}
	if m.Stage == StagePreview {
		m.preview, cmd = m.preview.Update(msg)
	}
	return m, cmd
}

// updateKey handles a key at any stage but waiting.
func (m Model) updateKey(k tea.KeyPressMsg) (Model, tea.Cmd) {
	km := m.keys()
	committed := m.result != nil && m.result.Outcome == model.Committed
	m.info = ""
	switch {
	case m.typing(k) && !key.Matches(k, km.SendTyped):
		var cmd tea.Cmd
		m.typed, cmd = m.typed.Update(k)
		return m, cmd
	case key.Matches(k, km.Copy):
		// OSC 52: only on this key, never by itself.
		m.info = fmt.Sprintf("copied the request (%d bytes) to the clipboard, if the terminal allows it (OSC 52)", len(m.tx.Request))
		return m, tea.SetClipboard(m.tx.Request)
	case key.Matches(k, km.Save):
		return m, events.Emit(SaveMsg{})
	case key.Matches(k, km.Back) && len(m.fields) > 0 && (m.Stage == StagePreview || m.Stage == StageResult && !committed):
		m.Stage = StageForm // back to the values, kept as typed
		return m, m.fields[m.focus].Input.Focus()
	case key.Matches(k, km.Back, km.Close):
		m.close(committed)
		return m, nil
	case m.Stage == StageForm:
		return m.updateForm(k, km)
	case (m.Stage == StageResult || m.Stage == StageSkipped) && key.Matches(k, km.Up, km.Down, km.PageUp, km.PageDown):
		m.scrollOutcome(k, km)
	case key.Matches(k, km.SendTyped) && !m.tx.Plan.TypedBack(m.typed.Value()):
		m.err = "type " + m.tx.Plan.TypeBack() + " exactly to send"
	case key.Matches(k, km.Send, km.SendTyped, km.Resend):
		// A resend is the same request and token: a no-op if it had committed.
		spin := m.wait("sending the transaction (token " + m.tx.Token + ")")
		m.sending = true
		return m, tea.Batch(spin, events.Emit(SendMsg{}))
	case m.Stage == StagePreview:
		var cmd tea.Cmd
		if m.tx.Plan.MustType != "" && !key.Matches(k, km.Up, km.Down, km.PageUp, km.PageDown) {
			// Editing the answer (backspace, ctrl+u, the arrows along it).
			m.typed, cmd = m.typed.Update(k)
		} else {
			m.preview, cmd = m.preview.Update(k)
		}
		return m, cmd
	}
	return m, nil
}

func (m Model) updateForm(k tea.KeyPressMsg, km KeyMap) (Model, tea.Cmd) {
	switch {
	case key.Matches(k, km.Next):
		return m, m.moveFocus(+1)
	case key.Matches(k, km.Prev):
		return m, m.moveFocus(-1)
	case key.Matches(k, km.Preview):
		values := map[string]string{}
		for _, f := range m.fields {
			if ferr := f.Err(); ferr != "" {
				m.err = ferr
				if !strings.HasPrefix(ferr, f.Label+": ") {
					m.err = f.Label + ": " + ferr // said once: most errors name their field
				}
				return m, nil
			}
			values[f.Label] = f.Value()
		}
		m.err = ""
		spin := m.wait("reading what the write involves")
		return m, tea.Batch(spin, events.Emit(SubmitMsg{Values: values}))
	}
	var cmd tea.Cmd
	f := &m.fields[m.focus]
	before := f.Input.Value()
	f.Input, cmd = f.Input.Update(k)
	if f.Input.Value() != before {
		m.err = "" // it was about the values as they were
	}
	return m, cmd
}

func (m *Model) moveFocus(d int) tea.Cmd {
	m.fields[m.focus].Input.Blur()
	m.focus = (m.focus + d + len(m.fields)) % len(m.fields)
	return m.fields[m.focus].Input.Focus()
}

// Fields returns the form's values by label, as typed.
func (m Model) Fields() []Field { return m.fields }

// View renders the dialog in its area; the help line says what the keys do.
func (m Model) View() string {
	var b strings.Builder
	// The title names what is written; cut, it says so (the note and the
	// request below name every key).
	b.WriteString(m.st.Title.Render(ansi.Truncate(model.Printable(m.Title), max(m.width, 20), "…")) + "\n")
	switch m.Stage {
	case StageForm:
		for i, f := range m.fields {
			marker := "  "
			if i == m.focus {
				marker = "▸ "
			}
			fmt.Fprintf(&b, "%s%-18s %s\n", marker, model.Printable(f.Label), f.Input.View())
			if f.Original != "" {
				fmt.Fprintf(&b, "  %-18s %s\n", "", m.st.Dim.Render("was "+model.EscapeText(f.Original)))
			}
			if ferr := f.Err(); ferr != "" {
				b.WriteString(m.st.Error.Render(m.fieldErr(ferr)) + "\n")
			}
		}
	case StageWaiting:
		b.WriteString(m.spin.View() + " " + m.st.Dim.Render(m.wrap(m.waiting+"…", 2)) + "\n")
	case StagePreview:
		below := m.notes()
		if m.tx.Plan.MustType != "" {
			below = m.typedLine() + "\n" + below
		}
		// The request takes what the lines below it leave.
		p := m.preview
		p.SetHeight(max(m.height-1-strings.Count(below, "\n"), 3))
		b.WriteString(p.View() + "\n" + below)
		return b.String()
	case StageResult, StageSkipped:
		lines := m.outcomeLines()
		if room := m.outcomeRoom(); len(lines) > room {
			top := min(m.scroll, len(lines)-room+1)
			more := m.st.Dim.Render(fmt.Sprintf("lines %d-%d of %d (%s/%s scroll)", top+1, top+room-1, len(lines),
				m.km.Up.Help().Key, m.km.PageDown.Help().Key))
			lines = append(lines[top:top+room-1:top+room-1], more)
		}
		b.WriteString(strings.Join(lines, "\n") + "\n")
		return b.String()
	}
	b.WriteString(m.notes())
	return b.String()
}

// outcomeRoom is the lines an outcome has below the title.
func (m Model) outcomeRoom() int { return max(m.height-1, 2) }

// outcomeLong reports whether the outcome is longer than the dialog.
func (m Model) outcomeLong() bool { return len(m.outcomeLines()) > m.outcomeRoom() }

// scrollOutcome scrolls an outcome longer than the dialog.
func (m *Model) scrollOutcome(k tea.KeyPressMsg, km KeyMap) {
	room := m.outcomeRoom()
	switch {
	case key.Matches(k, km.Up):
		m.scroll--
	case key.Matches(k, km.Down):
		m.scroll++
	case key.Matches(k, km.PageUp):
		m.scroll -= room - 1
	case key.Matches(k, km.PageDown):
		m.scroll += room - 1
	}
	m.scroll = max(min(m.scroll, len(m.outcomeLines())-room+1), 0)
}

// outcomeLines are an outcome's lines (or why nothing was sent), wrapped
// between words to the width, then the notes.
func (m Model) outcomeLines() []string {
	var b strings.Builder
	if m.Stage == StageSkipped {
		b.WriteString(m.wrap(model.Printable(m.note), 0) + "\n")
	} else {
		r := m.result
		style := m.st.Status[model.LockOK]
		if r.Outcome != model.Committed && r.Outcome != model.Skipped {
			style = m.st.Error
		}
		word := strings.ToUpper(strings.ReplaceAll(string(r.Outcome), "_", " "))
		tokens := "  token " + r.Token
		if m.reclaims() && r.Token != m.tx.Token {
			tokens += " (step 3; the claim, step 1, was token " + m.tx.Token + ")"
		}
		b.WriteString(style.Render(word) + tokens + "\n")
		b.WriteString(m.wrap(outcomeWords[r.Outcome], 0) + "\n")
		if r.Note != "" {
			b.WriteString(m.wrap(model.Printable(r.Note), 0) + "\n")
		}
		for _, rs := range r.Reasons {
			if rs.Slot >= 0 {
				// The action follows its slot number, its further lines
				// under its first.
				head := fmt.Sprintf("  slot %d  ", rs.Slot)
				indent := max(ansi.StringWidth(head), 10)
				action := m.wrap(model.Printable(rs.Action), indent)
				fmt.Fprintf(&b, "%-*s%s\n%s\n", indent, head, strings.TrimLeft(action, " "),
					m.st.Error.Render(m.wrap(rs.Code+": "+model.Printable(rs.Message), indent)))
			} else {
				b.WriteString(m.wrap(rs.Code+": "+model.Printable(rs.Message), 2) + "\n")
			}
		}
	}
	b.WriteString(m.notes())
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// notes are the error and what the last copy or save did, wrapped.
func (m Model) notes() string {
	var b strings.Builder
	if m.err != "" {
		b.WriteString(m.st.Error.Render(m.wrap("error: "+model.Printable(m.err), 0)) + "\n")
	}
	if m.changed != "" {
		b.WriteString(m.st.Error.Render(m.wrap(model.Printable(m.changed), 0)) + "\n")
	}
	if m.info != "" {
		for _, l := range strings.Split(m.info, "\n") {
			b.WriteString(m.st.Dim.Render(m.wrap(model.Printable(l), 0)) + "\n")
		}
	}
	return b.String()
}

// outcomeWords says what each outcome means for the table.
var outcomeWords = map[model.Outcome]string{
	model.Committed: "every action was applied, together",
	model.Cancelled: "nothing was applied: a condition failed (below, slot by slot)",
	model.Skipped:   "nothing was applied, and nothing needed to be (below)",
	model.Unknown:   "no answer came and the keys do not settle it: send again with the same token (a no-op if it committed), or check the keys",
	model.NotSent:   "nothing was sent: no request left this process (no connection, no credentials); nothing was written",
	model.Refused:   "locktable refused it before sending: nothing was written",
	model.Rejected:  "DynamoDB rejected the request: nothing was written",
}

// maxErrLines bounds a field's error under it: an error quotes the
// value, and a long value must not push the other fields off the screen.
const maxErrLines = 2

// fieldErr is a field's error wrapped under it, cut after maxErrLines
// lines with an ellipsis.
func (m Model) fieldErr(err string) string {
	lines := strings.Split(m.wrap(model.Printable(err), 21), "\n")
	if len(lines) > maxErrLines {
		lines = lines[:maxErrLines]
		last := lines[maxErrLines-1]
		lines[maxErrLines-1] = ansi.Truncate(last, ansi.StringWidth(last)-1, "") + "…"
	}
	return strings.Join(lines, "\n")
}

// wrap fits text to the dialog's width, word by word (a word longer than
// a line is broken, never cut), each line indented by indent cells.
func (m Model) wrap(text string, indent int) string {
	w := max(m.width-indent, 20)
	pad := strings.Repeat(" ", indent)
	lines := strings.Split(ansi.Wrap(text, w, ""), "\n")
	for i := range lines {
		lines[i] = pad + lines[i]
	}
	return strings.Join(lines, "\n")
}
