// Package search is the filter field and the lookup across the whole
// table: the field (/) filters the loaded rows as it is typed (the root
// hands its Query to the list shown), and when nothing loaded matches,
// enter looks the text up (Find, also :find): an account by its key, an
// email or a handle (through the lock and its owner, or by looking for
// holders), pinned on top of the accounts view. It also reads the rows of
// a problem the problems view jumps to. It owns its field, its busy state
// and its request id.
package search

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/textfield"
)

// Backend is what a search reads.
type Backend interface {
	Account(ctx context.Context, id string) (model.AccountView, bool, error)
	Find(ctx context.Context, q string, o backend.FindOptions) (backend.Found, error)
}

// reqID numbers searches: only the last one's answers are shown.
type reqID int

// ProgressMsg says how far a scanning search has read.
type ProgressMsg struct {
	req     reqID
	scanned int64
	what    string
}

// DoneMsg ends a search or a jump.
type DoneMsg struct {
	req reqID
	pin accounts.Pin
	err error
}

// JumpMsg asks for the rows of a problem, pinned on top of the accounts.
type JumpMsg struct{ Problem model.Problem }

// Model is the search field and the search in flight.
type Model struct {
	ctx     context.Context
	backend Backend
	schema  *model.Schema
	pump    events.Pump
	km      KeyMap
	input   textinput.Model
	typing  bool   // the field is open
	refused string // why the last paste was not taken, until the next key
	// matched and rows are how many rows the field's text keeps of how
	// many loaded (SetMatches): with none kept, enter looks it up.
	matched, rows int
	width         int
	busy          bool
	req           reqID
	status        string
	err           error
	// items hold the finished check's report, whose holders of each value
	// it found shared or unlocked a search need not look up.
	items *items.Cache
}

// heldValue is a normalized value of one constraint.
type heldValue struct {
	ci int
	v  string
}

// New returns a closed search field; searches post their progress and
// answers to pump.
func New(ctx context.Context, backend Backend, schema *model.Schema, c *items.Cache, pump events.Pump, km KeyMap) Model {
	in := textfield.New()
	in.Prompt = "/"
	var attrs []string
	for _, c := range schema.Constraints {
		attrs = append(attrs, c.Attr)
	}
	one, _ := schema.Nouns()
	in.Placeholder = "filter: " + strings.Join(attrs, ", ") + ", " + one + " id…" // email, username, account id
	in.CharLimit = 2048
	return Model{ctx: ctx, backend: backend, schema: schema, items: c, pump: pump, km: km, input: in}
}

// known are the holders a finished check (r) found for its
// duplicate_value and missing_lock problems: a search for such a value
// lists them all without looking them up.
func known(r *model.Report) map[heldValue][]string {
	held := map[heldValue][]string{}
	for _, p := range r.Problems {
		if p.Kind == model.DuplicateValue || p.Kind == model.MissingLock {
			k := heldValue{p.ConstraintIndex(), p.Value}
			held[k] = append(held[k], p.Accounts...)
		}
	}
	return held
}

// Open opens the field holding the filter in force (q, "" for none). A
// search still running is given up: its answer, come later, would pin
// its rows over what the new filter shows and move the selection.
func (m Model) Open(q string) (Model, tea.Cmd) {
	if m.busy {
		m.req++ // its DoneMsg is dropped
		m.busy, m.status = false, ""
	}
	m.typing = true
	m.input.SetValue(q)
	m.input.CursorEnd()
	return m, m.input.Focus()
}

// SetMatches says how many rows the field's text keeps of how many are
// loaded, for the field to show and for enter.
func (m *Model) SetMatches(matched, rows int) { m.matched, m.rows = matched, rows }

// Query is the filter the list shown should have: the field's text while
// it is open and once enter kept it, "" once esc cleared it or a lookup
// took it.
func (m Model) Query() string { return strings.TrimSpace(m.input.Value()) }

// lookUp says whether enter looks the text up across the whole table:
// some text, and no loaded row it keeps.
func (m Model) lookUp() bool { return m.Query() != "" && m.matched == 0 }

// SetSize sets the field's size in cells: it is one line high.
// The count, or the offer to look the text up, follows the text.
func (m *Model) SetSize(w, _ int) {
	m.width = w
	m.input.SetWidth(max(w-4, 10))
}

// Update edits the field, starts a search on enter, and follows it.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		m.refused = ""
		return m.onKey(msg)
	case tea.PasteMsg:
		m.refused = ""
		if err := textfield.Paste(&m.input, msg.Content); err != nil {
			m.refused = err.Error()
		}
	case JumpMsg:
		m.status = "reading the rows of this problem…"
		ctx, b, p := m.ctx, m.backend, msg.Problem
		return m.start(func(func(string, int64)) (accounts.Pin, error) { return jump(ctx, b, p) })
	case ProgressMsg:
		if msg.req == m.req {
			m.status = fmt.Sprintf("%s: %s items read", msg.what, rows.Count(msg.scanned))
		}
	case DoneMsg:
		if msg.req != m.req {
			return m, nil
		}
		m.busy, m.status = false, ""
		if m.err = msg.err; m.err != nil {
			return m, nil
		}
		return m, events.Emit(accounts.PinMsg{Pin: msg.pin})
	}
	return m, nil
}

func (m Model) onKey(k tea.KeyPressMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.km.Cancel):
		m.typing = false
		m.input.SetValue("")
		m.input.Blur()
		return m, nil
	case key.Matches(k, m.km.Search):
		look, q := m.lookUp(), m.Query()
		m.typing = false
		m.input.Blur()
		if !look {
			return m, nil // the filter stays
		}
		m.input.SetValue("")
		return m.Find(q)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
}

// Find looks q up across the whole table (Store.Find) and pins what it
// finds on top of the accounts view; an empty q does nothing.
func (m Model) Find(q string) (Model, tea.Cmd) {
	q = strings.TrimSpace(q)
	if q == "" {
		return m, nil
	}
	m.status = "searching for " + model.Printable(q) + "…"
	ctx, b, o := m.ctx, m.backend, backend.FindOptions{}
	if r := m.items.Report(); r != nil {
		known := known(r)
		o.Known = func(ci int, v string) []string { return known[heldValue{ci, v}] }
	}
	return m.start(func(progress func(string, int64)) (accounts.Pin, error) {
		o.Progress = progress
		f, err := b.Find(ctx, q, o)
		return accounts.Pin{Title: "search: " + model.Printable(q), Accounts: f.Accounts, Orphans: f.Orphans, Note: f.Note}, err
	})
}

// start runs look in the background, posting its progress and its answer.
func (m Model) start(look func(progress func(what string, scanned int64)) (accounts.Pin, error)) (Model, tea.Cmd) {
	m.req++
	m.busy, m.err = true, nil
	ctx, pump, req := m.ctx, m.pump, m.req
	return m, func() tea.Msg {
		go func() {
			p, err := look(func(what string, n int64) {
				pump.Post(ctx, ProgressMsg{req: req, scanned: n, what: what}, false)
			})
			pump.Post(ctx, DoneMsg{req: req, pin: p, err: err}, true)
		}()
		return nil
	}
}

// keys are the bindings as they work now: enter keeps the filter, or
// looks the text up when it keeps no row.
func (m Model) keys() KeyMap {
	km := m.km
	if m.lookUp() {
		km.Search.SetHelp(km.Search.Help().Key, "look it up in the whole table")
	}
	return km
}

// ShortHelp is the help line's part while the field is open.
func (m Model) ShortHelp() []key.Binding { return m.keys().ShortHelp() }

// FullHelp is the help screen's part while the field is open.
func (m Model) FullHelp() [][]key.Binding { return m.keys().FullHelp() }

// View renders the field, and how many loaded rows its text keeps.
func (m Model) View() string {
	in := m.input
	if m.Query() == "" && m.refused == "" {
		if ansi.StringWidth(in.Placeholder) > in.Width()+1 {
			in.Placeholder = "" // cut, it would read as typed text
		}
		return in.View()
	}
	// As wide as its text, so that what follows is close: no placeholder,
	// which would be cut to the text's width.
	in.Placeholder = ""
	in.SetWidth(min(ansi.StringWidth(in.Value())+1, max(m.width-4, 10)))
	line := in.View()
	switch {
	case m.refused != "":
		line += "  " + m.refused
	case m.lookUp():
		line += "  no loaded row matches; " + m.km.Search.Help().Key + " looks it up in the whole table"
	default:
		line += fmt.Sprintf("  %s of %s rows", rows.Count(int64(m.matched)), rows.Count(int64(m.rows)))
	}
	return ansi.Truncate(line, m.width, "…")
}

// Typing reports whether the field is open.
func (m Model) Typing() bool { return m.typing }

// Value is the text in the field.
func (m Model) Value() string { return m.input.Value() }

// Busy reports whether a search or a jump is in flight.
func (m Model) Busy() bool { return m.busy }

// Status says what the search in flight is doing, "" when none is.
func (m Model) Status() string { return m.status }

// Err is why the last search failed, if it did.
func (m Model) Err() error { return m.err }

// ClearErr forgets a failed search.
func (m *Model) ClearErr() { m.err = nil }
