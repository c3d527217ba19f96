package rows

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/styles"
)

func renderer() Renderer {
	sc := model.DefaultSchema(model.LayoutSingle)
	st := styles.New(true)
	return Renderer{Schema: &sc, Styles: &st}
}

func account(id, email, username string) *model.AccountView {
	return &model.AccountView{ID: id, Item: model.Item{"email": model.S(email), "username": model.S(username)}}
}

// TestScreenHoldsTheWidthsOfRowsNotShown: a screen's columns are as wide
// as every row held needs, so that a screen of short rows lays out as
// one of long rows does; rows kept since are measured once, not every
// row each time.
func TestScreenHoldsTheWidthsOfRowsNotShown(t *testing.T) {
	r := renderer()
	var cs []Cells
	for i, email := range []string{"a@x", "b@x", "a.much.longer.address@example.org", "c@x"} {
		cs = append(cs, r.AccountCells(account("ACCT#"+string(rune('a'+i)), email, "u")))
	}
	asked := 0
	cells := func(i int) (Cells, bool) { asked++; return cs[i], true }
	var s Screen
	s.Hold(0, 2, cells)
	s.Measure([]int{0, 1}, 80, cells)
	short, _ := s.Layout(80)
	s.Hold(0, 4, cells)
	s.Measure([]int{0, 1}, 80, cells)
	held, _ := s.Layout(80)
	if held.Detail <= short.Detail {
		t.Errorf("a row held but not shown does not widen the detail: %+v, then %+v", short, held)
	}
	s.Measure([]int{2, 3}, 80, cells)
	if l, _ := s.Layout(80); l != held {
		t.Errorf("another screen lays out otherwise: %+v, want %+v", l, held)
	}
	asked = 0
	s.Hold(0, 4, cells)
	if asked != 0 {
		t.Errorf("holding the same rows again measured %d of them", asked)
	}
	s.Columns.Hide("username", true)
	s.Hold(0, 4, cells)
	if asked != 4 {
		t.Errorf("a column hidden measured %d rows again, want every one (4)", asked)
	}
}

// TestColumnsHide: a hidden column's parts leave the row, the first kept
// loses its separator, and the status column empties.
func TestColumnsHide(t *testing.T) {
	r := renderer()
	c := r.AccountCells(account("ACCT#a", "ada@x", "ada"))
	c.Status = "problem"
	var cols Columns
	cols.Set([]string{"email", StatusColumn})
	got := cols.Apply(c)
	if len(got.Detail) != 1 || got.Detail[0].Text != "username=ada" || got.Status != "" {
		t.Errorf("with email and status hidden: %+v", got)
	}
	if names := columnsOf(nil, c); !slices.Equal(names, []string{"email", "username"}) {
		t.Errorf("columnsOf = %q", names)
	}
	cols.Hide("email", false)
	if cols.IsHidden("email") || !cols.IsHidden(StatusColumn) {
		t.Errorf("shown again: hidden %q", cols.Hidden())
	}
}

// TestWholeShowsWhatTheLineCuts: the selected row's rest is its whole
// value, wrapped between graphemes and never inside an escape.
func TestWholeShowsWhatTheLineCuts(t *testing.T) {
	r := renderer()
	long := "katherine." + strings.Repeat("x", 30) + "\x1b[2J日本語" + "@example.org"
	c := r.AccountCells(account("ACCT#a", long, "katherine34"))
	l := Measure([]Cells{c}, 60)
	if !strings.Contains(ansi.Strip(r.Line(c, l, true)), "…") {
		t.Fatalf("the line is not cut at 60: the test shows nothing")
	}
	lines := r.Whole(c, l, 30, 10)
	var got strings.Builder
	for _, line := range lines {
		s := strings.TrimSpace(ansi.Strip(line))
		if w := ansi.StringWidth(ansi.Strip(line)); w != 30 {
			t.Errorf("a line is %d cells, want 30: %q", w, line)
		}
		if strings.HasSuffix(s, `\x1`) || strings.HasSuffix(s, `\x`) || strings.HasSuffix(s, `\`) {
			t.Errorf("a line ends inside an escape: %q", s)
		}
		if strings.ContainsRune(s, '\x1b') {
			t.Errorf("a control character reached the line: %q", s)
		}
		got.WriteString(s)
	}
	want := "email=" + model.Printable(long) + "username=katherine34"
	if g := strings.ReplaceAll(got.String(), " ", ""); g != want {
		t.Errorf("the lines read %q, want %q", g, want)
	}
	if r.Whole(c, Measure([]Cells{c}, 200), 200, 10) != nil {
		t.Errorf("a row that fits has a rest")
	}
	if most := r.Whole(c, l, 30, 2); len(most) != 2 || !strings.HasSuffix(strings.TrimSpace(ansi.Strip(most[1])), "…") {
		t.Errorf("cut to 2 lines: %q", most)
	}
}
