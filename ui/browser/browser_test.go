package browser_test

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/ui/browser"
)

// source has n rows and counts how many it was asked to render.
type source struct {
	n       int
	renders int
}

func (s *source) Len() int { return s.n }

func (s *source) Render(i, width int, selected bool) string {
	s.renders++
	mark := " "
	if selected {
		mark = ">"
	}
	return fmt.Sprintf("%s%d/%d", mark, i, width)
}

func list(n, h int) (browser.Model, *source) {
	src := &source{n: n}
	m := browser.New(browser.DefaultKeyMap(), src)
	m.SetSize(80, h)
	return m, src
}

func press(m browser.Model, keys ...tea.KeyPressMsg) browser.Model {
	for _, k := range keys {
		m, _ = m.Update(k)
	}
	return m
}

var (
	down     = tea.KeyPressMsg{Code: tea.KeyDown}
	up       = tea.KeyPressMsg{Code: tea.KeyUp}
	j        = tea.KeyPressMsg{Code: 'j', Text: "j"}
	k        = tea.KeyPressMsg{Code: 'k', Text: "k"}
	pgdown   = tea.KeyPressMsg{Code: tea.KeyPgDown}
	pgup     = tea.KeyPressMsg{Code: tea.KeyPgUp}
	space    = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	ctrlB    = tea.KeyPressMsg{Code: 'b', Mod: tea.ModCtrl}
	bottom   = tea.KeyPressMsg{Code: 'g', ShiftedCode: 'G', Mod: tea.ModShift, Text: "G"}
	top      = tea.KeyPressMsg{Code: 'g', Text: "g"}
	home     = tea.KeyPressMsg{Code: tea.KeyHome}
	end      = tea.KeyPressMsg{Code: tea.KeyEnd}
	unbound  = tea.KeyPressMsg{Code: 'x', Text: "x"}
	wheelDn  = tea.MouseWheelMsg{Button: tea.MouseWheelDown}
	wheelUp  = tea.MouseWheelMsg{Button: tea.MouseWheelUp}
	keyNames = map[string]tea.KeyPressMsg{"down": down, "j": j, "pgdown": pgdown, "space": space, "G": bottom, "g": top}
)

func TestKeysAreWhatTheKeymapNames(t *testing.T) {
	for want, k := range keyNames {
		if got := k.String(); got != want {
			t.Errorf("key %+v reads %q, want %q", k, got, want)
		}
	}
}

func TestNavigation(t *testing.T) {
	type pos struct{ cursor, offset int }
	tests := []struct {
		name string
		n, h int
		keys []tea.Msg
		want pos
	}{
		{"start", 100, 10, nil, pos{0, 0}},
		{"down within the screen", 100, 10, []tea.Msg{down, j, down}, pos{3, 0}},
		{"down scrolls by one", 100, 10, repeat(j, 12), pos{12, 3}},
		{"up at the top stays", 100, 10, []tea.Msg{up, k}, pos{0, 0}},
		{"up scrolls back", 100, 10, append(repeat(j, 12), repeat(k, 10)...), pos{2, 2}},
		{"page down moves a screen", 100, 10, []tea.Msg{pgdown}, pos{10, 10}},
		{"space pages down", 100, 10, []tea.Msg{space, space}, pos{20, 20}},
		{"page down keeps the row on screen", 100, 10, []tea.Msg{j, j, pgdown}, pos{12, 10}},
		{"page down at the end clamps", 25, 10, []tea.Msg{pgdown, pgdown, pgdown}, pos{24, 15}},
		{"page up", 100, 10, []tea.Msg{pgdown, pgdown, j, pgup}, pos{11, 10}},
		{"ctrl+b pages up to the top", 100, 10, []tea.Msg{pgdown, ctrlB, ctrlB}, pos{0, 0}},
		{"G goes to the last row", 100, 10, []tea.Msg{bottom}, pos{99, 90}},
		{"end goes to the last row", 100, 10, []tea.Msg{end}, pos{99, 90}},
		{"g goes to the top", 100, 10, []tea.Msg{bottom, top}, pos{0, 0}},
		{"home goes to the top", 100, 10, []tea.Msg{pgdown, home}, pos{0, 0}},
		{"down at the end stays", 100, 10, []tea.Msg{bottom, j, down}, pos{99, 90}},
		{"fewer rows than the height", 4, 10, []tea.Msg{bottom, j}, pos{3, 0}},
		{"fewer rows, page down", 4, 10, []tea.Msg{pgdown}, pos{3, 0}},
		{"empty list", 0, 10, []tea.Msg{j, bottom, pgdown, top}, pos{0, 0}},
		{"wheel moves three", 100, 10, []tea.Msg{wheelDn, wheelDn, wheelDn, wheelDn, wheelUp}, pos{9, 3}},
		{"unbound key does nothing", 100, 10, []tea.Msg{j, unbound}, pos{1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := list(tt.n, tt.h)
			for _, msg := range tt.keys {
				m, _ = m.Update(msg)
			}
			if got := (pos{m.Cursor(), m.Offset()}); got != tt.want {
				t.Errorf("cursor, offset = %v, want %v", got, tt.want)
			}
			if m.Offset() > m.Cursor() || m.Cursor() >= m.Offset()+m.Height() && tt.n > 0 {
				t.Errorf("cursor %d is off screen (offset %d, height %d)", m.Cursor(), m.Offset(), m.Height())
			}
		})
	}
}

func repeat(k tea.KeyPressMsg, n int) []tea.Msg {
	out := make([]tea.Msg, n)
	for i := range out {
		out[i] = k
	}
	return out
}

func TestSetCursorClamps(t *testing.T) {
	m, src := list(50, 10)
	m.SetCursor(-5)
	if m.Cursor() != 0 || m.Offset() != 0 {
		t.Errorf("SetCursor(-5): %d, %d", m.Cursor(), m.Offset())
	}
	m.SetCursor(1000)
	if m.Cursor() != 49 || m.Offset() != 40 {
		t.Errorf("SetCursor(1000): cursor %d offset %d, want 49 40", m.Cursor(), m.Offset())
	}
	m.SetCursor(30)
	if m.Cursor() != 30 || m.Offset() != 40-10 {
		t.Errorf("SetCursor(30) from the end: cursor %d offset %d, want 30 30", m.Cursor(), m.Offset())
	}
	// Rows removed under the view: the cursor and the view follow.
	src.n = 5
	m.SetCursor(m.Cursor())
	if m.Cursor() != 4 || m.Offset() != 0 {
		t.Errorf("after the list shrank: cursor %d offset %d, want 4 0", m.Cursor(), m.Offset())
	}
	// A smaller window keeps the selected row on screen.
	src.n = 50
	m.SetCursor(20)
	m.SetSize(80, 3)
	if m.Cursor() != 20 || m.Offset() > 20 || m.Offset()+3 <= 20 || m.Height() != 3 {
		t.Errorf("after resize: cursor %d offset %d height %d", m.Cursor(), m.Offset(), m.Height())
	}
	m.SetSize(80, 0)
	if m.Height() != 1 {
		t.Errorf("height 0 gives %d rows, want 1", m.Height())
	}
}

func TestShiftKeepsTheRowInPlace(t *testing.T) {
	m, src := list(100, 10)
	m.SetCursor(15) // offset 6: row 15 is the 10th on screen
	src.n += 3      // three rows inserted above
	m.Shift(3)
	if m.Cursor() != 18 || m.Offset() != 9 {
		t.Errorf("Shift(3): cursor %d offset %d, want 18 9", m.Cursor(), m.Offset())
	}
	src.n -= 2
	m.Shift(-2)
	if m.Cursor() != 16 || m.Offset() != 7 {
		t.Errorf("Shift(-2): cursor %d offset %d, want 16 7", m.Cursor(), m.Offset())
	}
}

func TestShiftCursorKeepsTheView(t *testing.T) {
	m, src := list(100, 10)
	m.SetCursor(2)
	src.n += 4
	m.ShiftCursor(4) // rows appeared on top, which is on screen: show them
	if m.Cursor() != 6 || m.Offset() != 0 {
		t.Errorf("ShiftCursor(4): cursor %d offset %d, want 6 0", m.Cursor(), m.Offset())
	}
	m.ShiftCursor(7) // past the screen: the view follows the row
	if m.Cursor() != 13 || m.Offset() != 4 {
		t.Errorf("ShiftCursor(7): cursor %d offset %d, want 13 4", m.Cursor(), m.Offset())
	}
	m.SetCursor(1) // row 1 is the 2nd row: shown, but not with row 0
	if m.Offset() != 1 {
		t.Fatalf("SetCursor(1): offset %d, want 1", m.Offset())
	}
	m.ScrollToTop()
	if m.Offset() != 0 || m.Cursor() != 1 {
		t.Errorf("ScrollToTop: cursor %d offset %d, want 1 0", m.Cursor(), m.Offset())
	}
}

// TestViewRendersOnlyVisibleRows lists a million rows and checks that a
// view asks for exactly a screen of them, the ones from the offset.
func TestViewRendersOnlyVisibleRows(t *testing.T) {
	m, src := list(1_000_000, 20)
	m = press(m, bottom)
	m.SetCursor(500_000)
	src.renders = 0
	v := m.View()
	if src.renders != 20 {
		t.Fatalf("View rendered %d rows, want the height (20)", src.renders)
	}
	lines := strings.Split(v, "\n")
	if len(lines) != 20 {
		t.Fatalf("View has %d lines, want 20", len(lines))
	}
	first := m.Offset()
	for i, l := range lines {
		want := fmt.Sprintf(" %d/80", first+i)
		if first+i == m.Cursor() {
			want = fmt.Sprintf(">%d/80", first+i)
		}
		if l != want {
			t.Errorf("line %d = %q, want %q", i, l, want)
		}
	}
	if m.Cursor() != 500_000 || m.Offset() != 500_000 {
		t.Errorf("cursor %d offset %d, want both 500000 (moving up from the end)", m.Cursor(), m.Offset())
	}
}

func TestViewPadsShortLists(t *testing.T) {
	m, src := list(3, 6)
	m = press(m, j)
	v := m.View()
	if want := " 0/80\n>1/80\n 2/80\n\n\n"; v != want {
		t.Errorf("View = %q, want %q", v, want)
	}
	if src.renders != 3 {
		t.Errorf("rendered %d rows, want 3", src.renders)
	}
	e, esrc := list(0, 4)
	if v := e.View(); v != "\n\n\n" || esrc.renders != 0 {
		t.Errorf("empty View = %q (%d renders), want 4 empty lines and no render", v, esrc.renders)
	}
}

// headed is a source whose rows 0 and 3 are headings.
type headed struct{ source }

func (h *headed) Heading(i int) bool { return i == 0 || i == 3 }

// TestHeadingsTakeNoCursor: the selection steps over headings, down and
// up, to the top and to the end, and SetCursor on one takes the row after.
func TestHeadingsTakeNoCursor(t *testing.T) {
	src := &headed{source{n: 5}}
	m := browser.New(browser.DefaultKeyMap(), src)
	m.SetSize(80, 10)
	m.SetCursor(0)
	if m.Cursor() != 1 {
		t.Fatalf("SetCursor(0) on a heading selects %d, want 1", m.Cursor())
	}
	for _, s := range []struct {
		key  tea.KeyPressMsg
		want int
	}{{down, 2}, {down, 4}, {up, 2}, {up, 1}, {up, 1}, {tea.KeyPressMsg{Code: 'G', Text: "G"}, 4}, {tea.KeyPressMsg{Code: 'g', Text: "g"}, 1}} {
		m, _ = m.Update(s.key)
		if m.Cursor() != s.want {
			t.Fatalf("after %q the selection is %d, want %d", s.key.Text, m.Cursor(), s.want)
		}
	}
}

// expanding is a source whose selected row shows two more lines.
type expanding struct{ source }

func (e *expanding) Expand(i, width, most int) []string {
	return []string{fmt.Sprintf("  rest of %d", i), fmt.Sprintf("  more of %d", i)}[:min(2, most)]
}

// TestTheSelectedRowsRestIsDrawnUnderIt: the selected row's lines come
// under it, the rows below move down, the list keeps its height, the
// selection near the bottom moves the rows above up, and a click below
// the rest selects the row drawn there.
func TestTheSelectedRowsRestIsDrawnUnderIt(t *testing.T) {
	src := &expanding{source{n: 100}}
	m := browser.New(browser.DefaultKeyMap(), src)
	m.SetSize(80, 5)
	m = press(m, down)
	lines := strings.Split(m.View(), "\n")
	want := []string{" 0/80", ">1/80", "  rest of 1", "  more of 1", " 2/80"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("the list draws %q, want %q", lines, want)
	}
	m = press(m, down, down, down) // row 4, the last on screen: the top moves up
	lines = strings.Split(m.View(), "\n")
	if len(lines) != 5 || lines[2] != ">4/80" || lines[4] != "  more of 4" {
		t.Errorf("near the bottom the list draws %q", lines)
	}
	m, _ = m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, Y: 0}) // row 2, on top as drawn
	if m.Cursor() != 2 {
		t.Errorf("a click on the top line selected row %d, want 2 (drawn there)", m.Cursor())
	}
	m.SetSize(80, 7)
	m.SetCursor(1)
	m, _ = m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, Y: 4}) // 0, >1, its rest, 2
	if m.Cursor() != 2 {
		t.Errorf("a click under the rest selected row %d, want 2:\n%s", m.Cursor(), m.View())
	}
	m, _ = m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, Y: 3}) // 0, 1, >2, its rest
	if m.Cursor() != 2 {
		t.Errorf("a click on the rest selected row %d, want its row, 2", m.Cursor())
	}
}
