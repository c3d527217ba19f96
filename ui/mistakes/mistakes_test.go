package mistakes

import (
	"context"
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model/mistake"
	"github.com/locktable/locktable/ui/styles"
)

// menu returns the menu, open, replaying through a runner that records
// the kind it is asked for and answers err.
func menu(t *testing.T, km KeyMap, err error) (Model, *string) {
	t.Helper()
	asked := new(string)
	run := func(_ context.Context, kind string) (mistake.Replay, error) {
		*asked = kind
		return mistake.Replay{Kind: kind}, err
	}
	st := styles.New(true)
	m := New(context.Background(), run, &st, km).Open()
	m.SetWidth(80)
	if !m.Available() || !m.Shown() {
		t.Fatalf("available %v, shown %v; want the menu open", m.Available(), m.Shown())
	}
	return m, asked
}

func press(m Model, code rune) (Model, tea.Cmd) {
	k := tea.KeyPressMsg{Code: code}
	if code >= ' ' && code < 0x7f {
		k.Text = string(code)
	}
	return m.Update(k)
}

// chosen is the mistake the cursor is on, as the menu shows it.
func chosen(t *testing.T, m Model) string {
	t.Helper()
	for _, l := range strings.Split(ansi.Strip(m.View()), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "▸" {
			return f[1]
		}
	}
	t.Fatalf("no mistake chosen:\n%s", ansi.Strip(m.View()))
	return ""
}

// replay runs the command enter returned: the batch of the spinner's tick
// and the replay, whose answer it returns.
func replay(t *testing.T, cmd tea.Cmd) DoneMsg {
	t.Helper()
	if cmd == nil {
		t.Fatal("enter replays nothing")
	}
	batch, ok := cmd().(tea.BatchMsg)
	if !ok {
		t.Fatalf("enter returns %T, want the spinner and the replay", cmd())
	}
	for _, c := range batch {
		if c == nil {
			continue
		}
		if d, ok := c().(DoneMsg); ok {
			return d
		}
	}
	t.Fatal("no replay among enter's commands")
	return DoneMsg{}
}

// TestNotOfferedWithoutARunner: where nothing may be replayed the menu
// does not open.
func TestNotOfferedWithoutARunner(t *testing.T) {
	st := styles.New(true)
	m := New(context.Background(), nil, &st, DefaultKeyMap()).Open()
	if m.Available() || m.Shown() {
		t.Errorf("available %v, shown %v with no runner", m.Available(), m.Shown())
	}
}

// TestChooseAndReplay: the menu lists every mistake with the problem it
// leaves; down and up move the choice within the list, and enter replays
// the one chosen, saying so until its result closes the menu.
func TestChooseAndReplay(t *testing.T) {
	m, asked := menu(t, DefaultKeyMap(), nil)
	view := ansi.Strip(m.View())
	for _, k := range mistake.Kinds {
		if !strings.Contains(view, k.Name) || !strings.Contains(view, "leaves "+string(k.Problem)) {
			t.Errorf("the menu lacks %s leaving %s:\n%s", k.Name, k.Problem, view)
		}
	}
	if chosen(t, m) != mistake.Kinds[0].Name {
		t.Fatalf("first chosen %q, want %q", chosen(t, m), mistake.Kinds[0].Name)
	}
	m, _ = press(m, tea.KeyUp)
	if chosen(t, m) != mistake.Kinds[0].Name {
		t.Errorf("up from the top chose %q", chosen(t, m))
	}
	for range len(mistake.Kinds) + 1 {
		m, _ = press(m, 'j')
	}
	last := mistake.Kinds[len(mistake.Kinds)-1].Name
	if chosen(t, m) != last {
		t.Fatalf("past the end chose %q, want the last, %q", chosen(t, m), last)
	}
	m, cmd := press(m, tea.KeyEnter)
	if !strings.Contains(m.View(), "replaying "+last) {
		t.Errorf("no word of the replay:\n%s", ansi.Strip(m.View()))
	}
	if m, _ = press(m, tea.KeyEscape); !m.Shown() {
		t.Error("esc closed the menu while a replay runs")
	}
	if m.ShortHelp()[0].Enabled() {
		t.Error("help offers keys while a replay runs")
	}
	done := replay(t, cmd)
	if *asked != last || done.Replay.Kind != last || done.Err != nil {
		t.Fatalf("replayed %q (%+v), want %q", *asked, done, last)
	}
	if m, _ = m.Update(done); m.Shown() {
		t.Error("the result left the menu open")
	}
}

// TestFailedReplayCloses: a replay that fails closes the menu too; its
// error goes to whoever handles DoneMsg.
func TestFailedReplayCloses(t *testing.T) {
	m, _ := menu(t, DefaultKeyMap(), errors.New("not a loopback table"))
	m, cmd := press(m, tea.KeyEnter)
	done := replay(t, cmd)
	if done.Err == nil {
		t.Fatal("the failure was lost")
	}
	if m, _ = m.Update(done); m.Shown() {
		t.Error("a failed replay left the menu open")
	}
}

// TestRemappedRun: the menu matches its bindings: run remapped to r
// replays on r, and enter does nothing.
func TestRemappedRun(t *testing.T) {
	km := DefaultKeyMap()
	if !keymap.Remap(&km, "run", []string{"r"}) {
		t.Fatal("no binding run")
	}
	m, _ := menu(t, km, nil)
	if _, cmd := press(m, tea.KeyEnter); cmd != nil {
		t.Error("enter still replays")
	}
	m, cmd := press(m, 'r')
	if replay(t, cmd).Replay.Kind != mistake.Kinds[0].Name {
		t.Error("r replayed another mistake")
	}
	if h := m.ShortHelp()[1].Help(); h.Key != "r" {
		t.Errorf("help says %+v", h)
	}
}

// TestMenuAligned: the names were padded to 14 cells, and
// lapsed-reservation, longer, pushed its "leaves" out of the column.
// Every line's "leaves" starts in one column.
func TestMenuAligned(t *testing.T) {
	m, _ := menu(t, DefaultKeyMap(), nil)
	col := -1
	for _, l := range strings.Split(ansi.Strip(m.View()), "\n") {
		i := strings.Index(l, " leaves ")
		if i < 0 {
			continue
		}
		i = ansi.StringWidth(l[:i]) // in cells: ▸ is three bytes
		if col < 0 {
			col = i
		}
		if i != col {
			t.Errorf("%q: leaves at %d, want %d like the first line", l, i, col)
		}
	}
	if col < 0 {
		t.Fatalf("no line says what it leaves:\n%s", ansi.Strip(m.View()))
	}
}
