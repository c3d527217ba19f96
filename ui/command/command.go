// Package command is the command line (:, as in k9s and vim): a command's
// name and its argument, completed with tab from the commands and from
// what each argument may be, and the lines entered before, kept for the
// session, a key away. The root declares the commands (Command) and runs
// the one entered (Take); the line only reads and checks it.
package command

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/agnivade/levenshtein"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/textfield"
)

// Command is one command of the line.
type Command struct {
	Name string
	// Args names the argument for help ("NAME", "VALUE|KEY"); "" for a
	// command that takes none.
	Args string
	Help string
	// Bang says what the command does when its name is followed by !
	// (":export! FILE" overwrites), as in vim; "" for a command that takes
	// no !.
	Bang string
	// Complete lists the values the argument may take, for tab and to
	// refuse another (nil, or a nil list: any text).
	Complete func() []string
	// Listing reports that the list Complete answers is being read: tab
	// and enter wait for it (Resume) rather than take any text (nil: it
	// never is).
	Listing func() bool
}

// usage is the command as help writes it: ":find VALUE|KEY".
func (c Command) usage() string {
	name := ":" + c.Name
	if c.Bang != "" {
		name += "[!]"
	}
	if c.Args == "" {
		return name
	}
	return name + " " + c.Args
}

// describe is what the command does, and what its ! does.
func (c Command) describe() string {
	if c.Bang == "" {
		return c.Help
	}
	return c.Help + "; " + c.Name + "! " + c.Bang
}

// Call is a command entered, for the root to run.
type Call struct {
	Name string
	Arg  string
	Bang bool // the name was followed by ! (Command.Bang)
}

// Model is the command line.
type Model struct {
	km    KeyMap
	cmds  []Command
	input textinput.Model
	open  bool
	width int
	// history is the lines entered this session, oldest first; back is
	// how far up it the line is (0: the line being typed, kept in draft).
	history []string
	back    int
	draft   string
	note    string   // why the line was refused, or what tab found
	offers  []string // what the last tab could complete to, cycled by tab
	offered int
	call    *Call
	// waiting is the key (tab, enter) that waits for the list of the
	// argument being read, done by Resume; nil for none.
	waiting func(Model) Model
}

// New returns a closed command line of the commands cmds.
func New(cmds []Command, km KeyMap) Model {
	in := textfield.New()
	in.Prompt = ":"
	in.Placeholder = "command (tab lists them)"
	in.CharLimit = 1024
	// Tab, up and down are the line's own, not the field's suggestions.
	in.KeyMap.AcceptSuggestion.SetEnabled(false)
	in.KeyMap.NextSuggestion.SetEnabled(false)
	in.KeyMap.PrevSuggestion.SetEnabled(false)
	return Model{km: km, cmds: cmds, input: in}
}

// SetHistory gives the line the lines entered before, oldest first (a
// session's, carried over when the UI opens again on another table).
func (m *Model) SetHistory(lines []string) { m.history = slices.Clone(lines) }

// History is the lines entered this session, oldest first.
func (m Model) History() []string { return slices.Clone(m.history) }

// SetCommands replaces the commands (their completions read what the
// root knows now).
func (m *Model) SetCommands(cmds []Command) { m.cmds = cmds }

// Open opens the line, empty.
func (m Model) Open() (Model, tea.Cmd) {
	m.open, m.back, m.note, m.offers, m.call, m.waiting = true, 0, "", nil, nil, nil
	m.input.SetValue("")
	return m, m.input.Focus()
}

// Shown reports whether the line is open.
func (m Model) Shown() bool { return m.open }

// SetWidth sets the line's width in cells.
func (m *Model) SetWidth(w int) {
	m.width = w
	m.input.SetWidth(max(w-4, 10))
}

// Take returns the command entered, once.
func (m *Model) Take() (Call, bool) {
	if m.call == nil {
		return Call{}, false
	}
	c := *m.call
	m.call = nil
	return c, true
}

// Update edits the line: enter runs it (Take), esc closes it, tab
// completes, up and down walk the history.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if p, ok := msg.(tea.PasteMsg); ok && m.open {
		m.note, m.offers = "", nil
		if err := textfield.Paste(&m.input, p.Content); err != nil {
			m.note = err.Error()
		}
		return m, nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || !m.open {
		return m, nil
	}
	m.waiting = nil // whatever the key, it is the last one's to do
	switch {
	case key.Matches(k, m.km.Cancel):
		m.close()
		return m, nil
	case key.Matches(k, m.km.Run):
		return m.await(Model.enter), nil
	case key.Matches(k, m.km.Complete):
		return m.await(func(m Model) Model { m.complete(); return m }), nil
	case key.Matches(k, m.km.Older):
		m.walk(+1)
		return m, nil
	case key.Matches(k, m.km.Newer):
		m.walk(-1)
		return m, nil
	}
	m.note, m.offers = "", nil
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
}

// await does what a key asks (do), or, while the list of the argument
// typed is being read, says so and leaves it for Resume: a value checked
// or completed against no list would be any text.
func (m Model) await(do func(Model) Model) Model {
	name, _, hasArg := strings.Cut(strings.TrimLeft(m.input.Value(), " "), " ")
	c, err := m.lookup(name)
	if !hasArg || err != "" || c.Listing == nil || !c.Listing() {
		return do(m)
	}
	m.waiting, m.offers = do, nil
	m.note = "reading the list of " + c.Args + "…"
	return m
}

// Resume does what the last key waited for (await), once the root has
// the list it waited on (SetCommands): enter then hands the command over
// (Take).
func (m Model) Resume() Model {
	do := m.waiting
	if do == nil || !m.open {
		return m
	}
	m.waiting = nil
	return m.await(do)
}

func (m *Model) close() {
	m.open = false
	m.input.Blur()
}

// enter checks the line and hands it to the root, or says why not.
func (m Model) enter() Model {
	line := strings.TrimSpace(m.input.Value())
	if line == "" {
		m.close()
		return m
	}
	call, err := m.parse(line)
	if err != "" {
		m.note = err
		return m
	}
	if len(m.history) == 0 || m.history[len(m.history)-1] != line {
		m.history = append(m.history, line)
	}
	m.call = &call
	m.close()
	return m
}

// parse reads a line as a command and its argument; the error says why
// it is none ("" when it is).
func (m Model) parse(line string) (Call, string) {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	c, err := m.lookup(name)
	if err != "" {
		return Call{}, err
	}
	bang := strings.HasSuffix(name, "!")
	switch {
	case bang && c.Bang == "":
		return Call{}, ":" + c.Name + " takes no !"
	case c.Args == "" && arg != "":
		return Call{}, ":" + c.Name + " takes no argument"
	case c.Args != "" && arg == "":
		return Call{}, ":" + c.Name + " needs " + c.Args + " (" + c.usage() + ")"
	}
	if c.Complete != nil {
		if known := c.Complete(); known != nil && !slices.Contains(known, arg) {
			return Call{}, ":" + c.Name + ": no " + c.Args + " " + model.Quote(arg) + nearest(arg, known, "")
		}
	}
	return Call{Name: c.Name, Arg: arg, Bang: bang}, ""
}

// lookup finds the command called name, or the only one whose name starts
// with it; a ! after the name is the command's (Bang).
func (m Model) lookup(name string) (Command, string) {
	name = strings.TrimSuffix(name, "!")
	var starts []Command
	for _, c := range m.cmds {
		if c.Name == name {
			return c, ""
		}
		if strings.HasPrefix(c.Name, name) {
			starts = append(starts, c)
		}
	}
	switch len(starts) {
	case 1:
		return starts[0], ""
	case 0:
		return Command{}, "no command " + model.Quote(name) + nearest(name, m.names(), ":")
	}
	names := make([]string, len(starts))
	for i, c := range starts {
		names[i] = ":" + c.Name
	}
	return Command{}, model.Quote(name) + " could be " + strings.Join(names, ", ")
}

func (m Model) names() []string {
	names := make([]string, len(m.cmds))
	for i, c := range m.cmds {
		names[i] = c.Name
	}
	return names
}

// nearest names the closest of known to s, as ` (did you mean ":locks"?)`.
func nearest(s string, known []string, prefix string) string {
	best, dist := "", -1
	for _, k := range known {
		if d := levenshtein.ComputeDistance(strings.ToLower(s), strings.ToLower(k)); dist < 0 || d < dist {
			best, dist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + model.Quote(prefix+best) + "?)"
}

// complete completes the name, or the argument, as far as the candidates
// agree; a second tab steps through them.
func (m *Model) complete() {
	if len(m.offers) > 1 {
		m.offered = (m.offered + 1) % len(m.offers)
		m.setLine(m.offers[m.offered])
		return
	}
	line := strings.TrimLeft(m.input.Value(), " ")
	name, arg, hasArg := strings.Cut(line, " ")
	var lines []string
	if !hasArg {
		for _, c := range m.cmds {
			if strings.HasPrefix(c.Name, name) {
				l := c.Name
				if c.Args != "" {
					l += " "
				}
				lines = append(lines, l)
			}
		}
	} else if c, err := m.lookup(name); err == "" && c.Complete != nil {
		arg = strings.TrimLeft(arg, " ")
		known := c.Complete()
		if known == nil {
			m.note = "no list of " + c.Args + " to complete from: any is tried"
			return
		}
		for _, v := range known {
			if strings.HasPrefix(strings.ToLower(v), strings.ToLower(arg)) {
				lines = append(lines, c.Name+" "+v)
			}
		}
	}
	switch len(lines) {
	case 0:
		m.note = "nothing to complete " + model.Quote(line) + " with"
	case 1:
		m.setLine(lines[0])
	default:
		m.offers, m.offered = lines, -1
		m.setLine(commonPrefix(lines))
		shown := make([]string, len(lines))
		for i, l := range lines {
			_, v, ok := strings.Cut(l, " ")
			if !ok || !hasArg {
				v = l
			}
			shown[i] = strings.TrimSpace(v)
		}
		m.note = strings.Join(shown, "  ")
	}
}

func (m *Model) setLine(s string) {
	m.input.SetValue(s)
	m.input.CursorEnd()
}

func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// walk moves up (+1, older) or down (-1) the history.
func (m *Model) walk(d int) {
	to := m.back + d
	if to < 0 || to > len(m.history) {
		return
	}
	if m.back == 0 {
		m.draft = m.input.Value()
	}
	m.back, m.note, m.offers = to, "", nil
	if to == 0 {
		m.setLine(m.draft)
		return
	}
	m.setLine(m.history[len(m.history)-to])
}

// View renders the line, and why it was refused, what tab found, or the
// usage of the command typed.
func (m Model) View() string {
	in := m.input // as wide as its text, so that what follows is close
	if in.Value() != "" || m.note != "" {
		text := ansi.StringWidth(in.Value())
		if in.Value() == "" {
			text = ansi.StringWidth(in.Placeholder)
		}
		in.SetWidth(min(text+1, max(m.width-4, 10)))
	}
	line := in.View()
	switch name, _, _ := strings.Cut(strings.TrimSpace(m.input.Value()), " "); {
	case m.note != "":
		line += "  " + m.note
	case name != "":
		if c, err := m.lookup(name); err == "" {
			line += "  " + c.usage() + ": " + c.describe()
		}
	}
	return ansi.Truncate(line, m.width, "…")
}

// ShortHelp is the help line while the line is open.
func (m Model) ShortHelp() []key.Binding { return m.km.ShortHelp() }

// FullHelp is the line's keys, and its commands, one column each.
func (m Model) FullHelp() [][]key.Binding {
	cmds := make([]key.Binding, len(m.cmds))
	for i, c := range m.cmds {
		cmds[i] = key.NewBinding(key.WithKeys(":"+c.Name), key.WithHelp(c.usage(), c.describe()))
	}
	return [][]key.Binding{m.km.ShortHelp(), cmds}
}
