// Package picker is the table picker: when the UI starts without a table
// to open (none given, and the default one does not exist), it lists the
// endpoint's tables with their approximate item counts, filtered as the
// user types, and returns the one chosen. It runs as its own small
// program before the UI proper.
package picker

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/styles"
	"github.com/locktable/locktable/ui/textfield"
)

// KeyMap are the picker's keys. Typed text filters the list.
type KeyMap struct {
	Up, Down, Open, Quit key.Binding
}

// DefaultKeyMap returns the picker's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:   key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "up")),
		Down: key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "down")),
		Open: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Quit: key.NewBinding(key.WithKeys("esc", "ctrl+c"), key.WithHelp("esc", "quit")),
	}
}

// CountsMsg carries the tables' approximate item counts (DescribeTable's
// ItemCount, refreshed by AWS every few hours).
type CountsMsg map[string]int64

// Model is the picker, a program of its own.
type Model struct {
	ctx    context.Context
	km     KeyMap
	st     styles.Styles
	where  string
	names  []string
	counts map[string]int64
	count  func(context.Context, string) (int64, error)
	filter textinput.Model
	// refused says why the last paste was not taken, until the next key.
	refused string
	cursor  int
	chosen  string
	w, h    int
}

// New returns the picker for the tables names at where, taking the keys
// km; count, if not nil, reads a table's approximate item count.
func New(ctx context.Context, where string, names []string, count func(context.Context, string) (int64, error), km KeyMap) Model {
	f := textfield.New()
	f.Prompt = "/"
	f.Placeholder = "type to filter"
	f.SetWidth(40)
	f.Focus()
	return Model{ctx: ctx, km: km, st: styles.New(true), where: where, names: names,
		counts: map[string]int64{}, count: count, filter: f, w: 80, h: 24}
}

// Chosen is the table picked, "" when the user quit.
func (m Model) Chosen() string { return m.chosen }

// Init reads the counts in the background.
func (m Model) Init() tea.Cmd {
	if m.count == nil || len(m.names) == 0 {
		return nil
	}
	ctx, names, count := m.ctx, m.names[:min(len(m.names), 200)], m.count
	return func() tea.Msg {
		out := CountsMsg{}
		for _, n := range names {
			if c, err := count(ctx, n); err == nil {
				out[n] = c
			}
		}
		return out
	}
}

// shown are the names the filter keeps.
func (m Model) shown() []string {
	q := strings.ToLower(m.filter.Value())
	var out []string
	for _, n := range m.names {
		if strings.Contains(strings.ToLower(n), q) {
			out = append(out, n)
		}
	}
	return out
}

// Update handles keys and the counts.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case CountsMsg:
		for n, c := range msg {
			m.counts[n] = c
		}
	case tea.PasteMsg:
		m.refused = ""
		if err := textfield.Paste(&m.filter, msg.Content); err != nil {
			m.refused = err.Error()
		}
		m.cursor = min(m.cursor, max(len(m.shown())-1, 0))
	case tea.KeyPressMsg:
		m.refused = ""
		shown := m.shown()
		switch {
		case key.Matches(msg, m.km.Quit):
			return m, tea.Quit
		case key.Matches(msg, m.km.Open):
			if m.cursor < len(shown) {
				m.chosen = shown[m.cursor]
				return m, tea.Quit
			}
			return m, nil
		case key.Matches(msg, m.km.Up):
			m.cursor = max(m.cursor-1, 0)
			return m, nil
		case key.Matches(msg, m.km.Down):
			m.cursor = min(m.cursor+1, max(len(shown)-1, 0))
			return m, nil
		}
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		m.cursor = min(m.cursor, max(len(m.shown())-1, 0))
		return m, cmd
	}
	return m, nil
}

// View draws the list, or why there is nothing to pick.
func (m Model) View() tea.View {
	var b strings.Builder
	b.WriteString(m.st.Title.Render("locktable") + "  │  choose a table at " + model.Printable(m.where) + "\n")
	shown := m.shown()
	rows := max(m.h-4, 1)
	switch {
	case len(m.names) == 0:
		b.WriteString("\n" + Empty + "\n")
	case len(shown) == 0:
		b.WriteString("\nno table name contains " + model.Quote(m.filter.Value()) + "\n")
	default:
		line := m.filter.View()
		if m.refused != "" {
			line += "  " + m.refused
		}
		b.WriteString(line + "\n")
		first := max(0, m.cursor-rows+1)
		for i := first; i < len(shown) && i < first+rows; i++ {
			n := shown[i]
			count := "      "
			if c, ok := m.counts[n]; ok {
				count = fmt.Sprintf("~%d items", c)
			}
			line := fmt.Sprintf("  %-*s %s", min(max(m.w-20, 20), 60), model.Printable(n), count)
			if i == m.cursor {
				line = m.st.Selected.Render("▸" + line[1:])
			}
			b.WriteString(line + "\n")
		}
	}
	for i := strings.Count(b.String(), "\n"); i < m.h-1; i++ {
		b.WriteString("\n")
	}
	k := m.km
	b.WriteString(m.st.Dim.Render(fmt.Sprintf("%d of %d tables • type to filter • %s%s move • %s open • %s quit", len(shown), len(m.names),
		k.Up.Help().Key, k.Down.Help().Key, k.Open.Help().Key, k.Quit.Help().Key)))
	v := tea.NewView(b.String())
	v.AltScreen = true
	return v
}

// Empty says why an endpoint may list no table, and what to do.
const Empty = `no tables here. DynamoDB Local keeps one database per access key and
region unless it is started with -sharedDb: start it with -sharedDb, or
use the access key and region the application uses. To make a table to
look at: locktable seed --endpoint-url URL --anomalies`
