package command

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/keymap"
)

var cmds = []Command{
	{Name: "accounts", Help: "the accounts view"},
	{Name: "locks", Help: "the locks view"},
	{Name: "find", Args: "VALUE|KEY", Help: "look up"},
	{Name: "target", Args: "NAME", Help: "switch target", Complete: func() []string { return []string{"local", "prod-eu", "prod-us"} }},
	{Name: "table", Args: "NAME", Help: "switch table", Complete: func() []string { return nil }}, // not listed yet
	{Name: "q", Help: "quit"},
	{Name: "export", Args: "FILE", Help: "write the rows", Bang: "writes over FILE"},
}

func press(name string) tea.KeyPressMsg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	return tea.KeyPressMsg{Code: rune(name[0]), Text: name}
}

// typed opens the line and types text, then the keys named.
func typed(m Model, text string, keys ...string) Model {
	if !m.Shown() {
		m, _ = m.Open()
	}
	for _, r := range text {
		m, _ = m.Update(press(string(r)))
	}
	for _, k := range keys {
		m, _ = m.Update(press(k))
	}
	return m
}

func line() Model {
	m := New(cmds, DefaultKeyMap())
	m.SetWidth(200)
	return m
}

func TestRunsWhatIsEntered(t *testing.T) {
	for _, c := range []struct{ text, name, arg string }{
		{"locks", "locks", ""},
		{"  find   ada@x.io ", "find", "ada@x.io"},
		{"acc", "accounts", ""}, // the only command that starts so
		{"target prod-eu", "target", "prod-eu"},
		{"table anything", "table", "anything"}, // the tables are not known yet: any name
		{"q", "q", ""},
	} {
		m := typed(line(), c.text, "enter")
		call, ok := m.Take()
		if !ok || call.Name != c.name || call.Arg != c.arg || m.Shown() {
			t.Errorf("%q ran %+v (%v), shown %v; want %s %q", c.text, call, ok, m.Shown(), c.name, c.arg)
		}
		if _, again := m.Take(); again {
			t.Errorf("%q: Take returned the call twice", c.text)
		}
	}
}

// TestRefusesWithAReason: the line stays open and says why, naming the
// nearest command or value.
func TestRefusesWithAReason(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"lcks", `no command "lcks" (did you mean ":locks"?)`},
		{"zzz", `no command "zzz" (did you mean`},
		{"t", `"t" could be :target, :table`},
		{"locks now", ":locks takes no argument"},
		{"find", ":find needs VALUE|KEY (:find VALUE|KEY)"},
		{"target prod", `:target: no NAME "prod" (did you mean "prod-eu"?)`},
	} {
		m := typed(line(), c.text, "enter")
		if _, ok := m.Take(); ok || !m.Shown() || !strings.Contains(m.View(), c.want) {
			t.Errorf("%q: ran %v, shown %v, view %q; want it refused saying %q", c.text, ok, m.Shown(), m.View(), c.want)
		}
	}
}

func TestTabCompletes(t *testing.T) {
	m := typed(line(), "lo", "tab")
	if v := m.input.Value(); v != "locks" {
		t.Errorf("tab after lo: %q, want locks", v)
	}
	m = typed(line(), "fi", "tab")
	if v := m.input.Value(); v != "find " {
		t.Errorf("tab after fi: %q, want \"find \" (it takes an argument)", v)
	}
	m = typed(line(), "target p", "tab")
	if v := m.input.Value(); v != "target prod-" || !strings.Contains(m.View(), "prod-eu  prod-us") {
		t.Errorf("tab after target p: %q, view %q; want the common part and both offered", v, m.View())
	}
	m = typed(m, "", "tab")
	if v := m.input.Value(); v != "target prod-eu" {
		t.Errorf("a second tab: %q, want the first offer", v)
	}
	m = typed(m, "", "tab")
	if v := m.input.Value(); v != "target prod-us" {
		t.Errorf("a third tab: %q, want the second offer", v)
	}
	m = typed(line(), "x", "tab")
	if !strings.Contains(m.View(), "nothing to complete") {
		t.Errorf("tab on nothing: %q", m.View())
	}
}

// TestHistory: up walks back through the lines entered, down forward to
// the line being typed; the history outlives the line being closed.
func TestHistory(t *testing.T) {
	m := typed(line(), "locks", "enter")
	m = typed(m, "find ada", "enter")
	m = typed(m, "find ada", "enter") // a repeat is kept once
	m.Take()
	m = typed(m, "acc", "up")
	if v := m.input.Value(); v != "find ada" {
		t.Fatalf("up: %q, want the last line", v)
	}
	m = typed(m, "", "up", "up")
	if v := m.input.Value(); v != "locks" {
		t.Fatalf("up up up: %q, want the oldest line (and no further)", v)
	}
	m = typed(m, "", "down", "down")
	if v := m.input.Value(); v != "acc" {
		t.Errorf("down back to the start: %q, want the draft acc", v)
	}
	m = typed(m, "", "esc")
	if _, ok := m.Take(); ok || m.Shown() {
		t.Error("esc ran the line or left it open")
	}
}

// TestRemapped: the line's keys are remappable, and the old key is text.
func TestRemapped(t *testing.T) {
	km := DefaultKeyMap()
	if !keymap.Remap(&km, "complete", []string{"ctrl+i", "right"}) {
		t.Fatal("no binding complete")
	}
	m := New(cmds, km)
	m.SetWidth(200)
	m = typed(m, "lo")
	m, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyRight})
	if v := m.input.Value(); v != "locks" {
		t.Errorf("right after lo: %q, want locks", v)
	}
}

// TestBangIsTheCommands: a ! after a command's name that takes one is
// handed over (":export! f", ":exp! f"), and refused, in words, after
// one that takes none; the line says what the ! does.
func TestBangIsTheCommands(t *testing.T) {
	for _, c := range []struct {
		text string
		bang bool
	}{{"export f.csv", false}, {"export! f.csv", true}, {"exp! f.csv", true}} {
		m := typed(line(), c.text, "enter")
		call, ok := m.Take()
		if !ok || call.Name != "export" || call.Arg != "f.csv" || call.Bang != c.bang {
			t.Errorf("%q entered %+v (%v), want export f.csv, bang %v", c.text, call, ok, c.bang)
		}
	}
	m := typed(line(), "find! ada", "enter")
	if _, ok := m.Take(); ok || !strings.Contains(m.View(), ":find takes no !") {
		t.Errorf("find! was not refused: %q", m.View())
	}
	if v := typed(line(), "export").View(); !strings.Contains(v, ":export[!] FILE: write the rows; export! writes over FILE") {
		t.Errorf("the line does not say what export! does: %q", v)
	}
}
