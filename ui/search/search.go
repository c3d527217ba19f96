// Package search is the search field and what it finds: an account by its
// key, an email or a handle (through the lock and its owner, or by looking
// for holders), pinned on top of the accounts view. It also reads the rows
// of a problem the problems view jumps to. It owns its field, its busy
// state and its request id.
package search

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/rows"
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
	typing  bool // the field is open
	busy    bool
	req     reqID
	status  string
	err     error
	// known are the holders of each value the finished check found
	// shared or unlocked, so that a search need not look them up.
	known map[heldValue][]string
}

// heldValue is a normalized value of one constraint.
type heldValue struct {
	ci int
	v  string
}

// New returns a closed search field; searches post their progress and
// answers to pump.
func New(ctx context.Context, backend Backend, schema *model.Schema, pump events.Pump, km KeyMap) Model {
	in := textinput.New()
	in.Prompt = "/"
	var attrs []string
	for _, c := range schema.Constraints {
		attrs = append(attrs, c.Attr)
	}
	one, _ := schema.Nouns()
	in.Placeholder = strings.Join(attrs, ", ") + " or " + one + " id" // email, username or account id
	in.CharLimit = 2048
	return Model{ctx: ctx, backend: backend, schema: schema, pump: pump, km: km, input: in}
}

// SetReport takes the holders a finished check found for its
// duplicate_value and missing_lock problems: a search for such a value
// lists them all without looking them up.
func (m *Model) SetReport(r *model.Report) {
	m.known = map[heldValue][]string{}
	for _, p := range r.Problems {
		if p.Kind == model.DuplicateValue || p.Kind == model.MissingLock {
			k := heldValue{p.ConstraintIndex(), p.Value}
			m.known[k] = append(m.known[k], p.Accounts...)
		}
	}
}

// Open opens the field, empty.
func (m Model) Open() (Model, tea.Cmd) {
	m.typing = true
	m.input.SetValue("")
	return m, m.input.Focus()
}

// SetSize sets the field's size in cells: it is one line high.
func (m *Model) SetSize(w, _ int) { m.input.SetWidth(max(w-4, 10)) }

// Update edits the field, starts a search on enter, and follows it.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m.onKey(msg)
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
		m.input.Blur()
		return m, nil
	case key.Matches(k, m.km.Search):
		q := strings.TrimSpace(m.input.Value())
		m.typing = false
		m.input.Blur()
		if q == "" {
			return m, nil
		}
		m.status = "searching for " + model.Printable(q) + "…"
		ctx, b, o := m.ctx, m.backend, backend.FindOptions{}
		if known := m.known; known != nil {
			o.Known = func(ci int, v string) []string { return known[heldValue{ci, v}] }
		}
		return m.start(func(progress func(string, int64)) (accounts.Pin, error) {
			o.Progress = progress
			f, err := b.Find(ctx, q, o)
			return accounts.Pin{Title: "search: " + model.Printable(q), Accounts: f.Accounts, Orphans: f.Orphans, Note: f.Note}, err
		})
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
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

// ShortHelp is the help line's part while the field is open.
func (m Model) ShortHelp() []key.Binding { return m.km.ShortHelp() }

// FullHelp is the help screen's part while the field is open.
func (m Model) FullHelp() [][]key.Binding { return m.km.FullHelp() }

// View renders the field.
func (m Model) View() string { return m.input.View() }

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
