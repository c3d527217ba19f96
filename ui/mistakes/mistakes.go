// Package mistakes is the menu of the articles' ways of getting uniqueness
// wrong: on the demo (or a loopback table) the user picks one, it is
// replayed on fresh accounts with the very requests buggy code sends
// (locktable demo break KIND), and the root shows what was sent beside the
// guarded transaction locktable would send, then the problem it left.
package mistakes

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model/mistake"
	"github.com/locktable/locktable/ui/styles"
)

// Runner replays the mistake named kind. The CLI gives one only where
// writing problems on purpose is allowed (the demo, a loopback endpoint),
// audited as demo break is.
type Runner func(ctx context.Context, kind string) (mistake.Replay, error)

// DoneMsg is a replay's result.
type DoneMsg struct {
	Replay mistake.Replay
	Err    error
}

// KeyMap is the menu's bindings.
type KeyMap struct {
	Up, Down, Run, Close key.Binding
}

// DefaultKeyMap returns the menu's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑↓", "choose")),
		Down:  key.NewBinding(key.WithKeys("down", "j")),
		Run:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "replay it on fresh accounts")),
		Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	}
}

// Model is the menu, open or not, and the replay under way.
type Model struct {
	ctx     context.Context
	run     Runner
	km      KeyMap
	st      *styles.Styles
	spin    spinner.Model
	shown   bool
	running bool
	cursor  int
	width   int
}

// New returns the menu, closed; run is nil where nothing may be replayed.
func New(ctx context.Context, run Runner, st *styles.Styles, km KeyMap) Model {
	return Model{ctx: ctx, run: run, km: km, st: st, spin: spinner.New(spinner.WithSpinner(spinner.Dot))}
}

// Available reports whether mistakes may be replayed here.
func (m Model) Available() bool { return m.run != nil }

// Shown reports whether the menu is open.
func (m Model) Shown() bool { return m.shown }

// Open opens the menu.
func (m Model) Open() Model {
	m.shown = m.run != nil
	return m
}

// SetWidth sets the menu's width in cells.
func (m *Model) SetWidth(w int) { m.width = w }

// keys are the bindings as they work now: none while a replay runs.
func (m Model) keys() KeyMap {
	km := m.km
	for _, b := range []*key.Binding{&km.Up, &km.Down, &km.Run, &km.Close} {
		b.SetEnabled(!m.running)
	}
	return km
}

// ShortHelp is the help line's part for the menu.
func (m Model) ShortHelp() []key.Binding {
	km := m.keys()
	return []key.Binding{km.Up, km.Run, km.Close}
}

// FullHelp is the help screen's part for the menu.
func (m Model) FullHelp() [][]key.Binding { return [][]key.Binding{m.ShortHelp()} }

// Update moves the choice, runs it, and closes on its result.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case spinner.TickMsg:
		if !m.running {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case DoneMsg:
		m.running, m.shown = false, false
	case tea.KeyPressMsg:
		km := m.keys()
		switch {
		case key.Matches(msg, km.Up):
			m.cursor = max(m.cursor-1, 0)
		case key.Matches(msg, km.Down):
			m.cursor = min(m.cursor+1, len(mistake.Kinds)-1)
		case key.Matches(msg, km.Close):
			m.shown = false
		case key.Matches(msg, km.Run):
			m.running = true
			ctx, run, name := m.ctx, m.run, mistake.Kinds[m.cursor].Name
			return m, tea.Batch(m.spin.Tick, func() tea.Msg {
				r, err := run(ctx, name)
				return DoneMsg{Replay: r, Err: err}
			})
		}
	}
	return m, nil
}

// View renders the menu: each mistake with the problem it leaves, then
// what the chosen one does, wrapped to the width (so that the list fits
// the smallest terminal).
func (m Model) View() string {
	var b strings.Builder
	b.WriteString(m.st.Title.Render("replay a mistake on fresh accounts") + "\n")
	name := 0 // the widest name: what each leaves starts in one column
	for _, k := range mistake.Kinds {
		name = max(name, len(k.Name))
	}
	for i, k := range mistake.Kinds {
		line := fmt.Sprintf("  %-*s leaves %s", name, k.Name, k.Problem)
		if i == m.cursor {
			line = m.st.Selected.Render(fmt.Sprintf("▸ %-*s leaves %s", name, k.Name, k.Problem))
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + ansi.Wrap(mistake.Kinds[m.cursor].Story, max(m.width, 20), " ") + "\n")
	if m.running {
		b.WriteString("\n" + m.spin.View() + " replaying " + mistake.Kinds[m.cursor].Name + "…\n")
	}
	return b.String()
}
