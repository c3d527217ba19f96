package browser_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/locktable/locktable/ui/browser"
)

// words is a source of named rows; those that start with "#" are
// headings. It counts the rows it was asked to match.
type words struct {
	rows    []string
	matches int
}

func (w *words) Len() int { return len(w.rows) }

func (w *words) Render(i, _ int, selected bool) string {
	if selected {
		return ">" + w.rows[i]
	}
	return " " + w.rows[i]
}

func (w *words) Heading(i int) bool { return strings.HasPrefix(w.rows[i], "#") }

func (w *words) Match(i int, q string) bool {
	w.matches++
	return browser.Contains(w.rows[i], q)
}

func wordList(rows ...string) (browser.Model, *words) {
	src := &words{rows: rows}
	m := browser.New(browser.DefaultKeyMap(), src)
	m.SetSize(80, 10)
	return m, src
}

// shown is the view's rows, without the selection mark and padding.
func shown(m browser.Model) []string {
	var out []string
	for _, l := range strings.Split(m.View(), "\n") {
		if l != "" {
			out = append(out, l[1:])
		}
	}
	return out
}

// TestFilterKeepsMatchesAndTheirHeadings: a filter shows the rows that
// contain the text in any case, under the headings of their groups; a
// group with no match loses its heading; "" shows every row again.
func TestFilterKeepsMatchesAndTheirHeadings(t *testing.T) {
	m, _ := wordList("#pinned", "Ada", "bob", "#accounts", "carol", "ADAM", "#empty", "dave")
	m.SetFilter("ada")
	if got, want := shown(m), []string{"#pinned", "Ada", "#accounts", "ADAM"}; !slices.Equal(got, want) {
		t.Errorf("filter ada shows %q, want %q", got, want)
	}
	if kept, of := m.Matched(); kept != 2 || of != 5 || m.Len() != 4 || m.Filter() != "ada" {
		t.Errorf("matched %d of %d, len %d, filter %q; want 2 of 5, 4, ada", kept, of, m.Len(), m.Filter())
	}
	if m.Cursor() != 1 {
		t.Errorf("selection at row %d, want 1 (Ada: the heading is stepped over)", m.Cursor())
	}
	m = press(m, down)
	if m.Cursor() != 5 {
		t.Errorf("down selects source row %d, want 5 (ADAM)", m.Cursor())
	}
	m.SetFilter("zz")
	if kept, _ := m.Matched(); m.Len() != 0 || kept != 0 || len(shown(m)) != 0 {
		t.Errorf("a filter that matches nothing shows %q", shown(m))
	}
	m.SetFilter("")
	if m.Len() != 8 || len(shown(m)) != 8 {
		t.Errorf("no filter shows %d rows, want all 8", m.Len())
	}
}

// TestFilterKeepsTheSelection: the selected row stays selected when the
// filter keeps it, and the next kept row is selected when it does not.
func TestFilterKeepsTheSelection(t *testing.T) {
	m, _ := wordList("ada", "bob", "carol", "dave", "eve")
	m.SetCursor(2)
	m.SetFilter("a") // ada, carol, dave
	if m.Cursor() != 2 {
		t.Fatalf("carol is kept, but row %d is selected", m.Cursor())
	}
	m.SetFilter("")
	m.SetCursor(1) // bob
	m.SetFilter("e")
	if m.Cursor() != 3 {
		t.Errorf("bob is not kept: row %d selected, want dave's (3)", m.Cursor())
	}
}

// TestFilterNarrows: a filter typed on from the last judges only the rows
// the last one kept.
func TestFilterNarrows(t *testing.T) {
	rows := make([]string, 1000)
	for i := range rows {
		rows[i] = fmt.Sprintf("user%d", i)
	}
	m, src := wordList(rows...)
	m.SetFilter("user9")
	first := src.matches
	m.SetFilter("user99")
	if narrowed := src.matches - first; narrowed != 111 {
		t.Errorf("user99 after user9 judged %d rows, want only user9's 111", narrowed)
	}
	if kept, of := m.Matched(); kept != 11 || of != 1000 {
		t.Errorf("user99 keeps %d of %d rows, want 11 of 1000", kept, of)
	}
}

// TestFilterFollowsTheSource: rows the source gains under a filter are
// judged when the list is next told of them; seeking stays among the
// rows kept.
func TestFilterFollowsTheSource(t *testing.T) {
	m, src := wordList("ada", "bob")
	m.SetFilter("a")
	src.rows = append(src.rows, "carol", "dan")
	m.SetCursor(m.Cursor())
	if got, want := shown(m), []string{"ada", "carol", "dan"}; !slices.Equal(got, want) {
		t.Errorf("after the source grew the filter shows %q, want %q", got, want)
	}
	if !m.Seek(+1, func(i int) bool { return true }) || m.Cursor() != 2 {
		t.Errorf("seek from ada selected row %d, want carol (2), bob being filtered out", m.Cursor())
	}
	src.rows = src.rows[:1]
	if got := shown(m); len(got) > 1 {
		t.Errorf("rows past the source's end rendered: %q", got)
	}
}

func TestContainsIgnoresCase(t *testing.T) {
	for _, c := range []struct {
		s, q string
		want bool
	}{{"UNIQ#EMAIL#Ada@x.io", "ada@x", true}, {"ada", "adam", false}, {"ÜNÏcode", "ünï", true}, {"x", "", true}, {"abc", "bd", false}} {
		if got := browser.Contains(c.s, c.q); got != c.want {
			t.Errorf("Contains(%q, %q) = %v", c.s, c.q, got)
		}
	}
	for _, c := range []struct {
		a, b, q string
		want    bool
	}{{"UNIQ#EMAIL#", "Ada@x.io", "email#ada", true}, {"UNIQ#EMAIL#", "ada", "uniq#", true}, {"UNIQ#EMAIL#", "ada", "#ada", true},
		{"UNIQ#EMAIL#", "ada", "email#b", false}, {"P#", "Ünï", "p#ünï", true}, {"ab", "cd", "abcde", false}} {
		if got := browser.ContainsJoined(c.a, c.b, c.q); got != c.want {
			t.Errorf("ContainsJoined(%q, %q, %q) = %v", c.a, c.b, c.q, got)
		}
	}
}

// pages is a source that grows a page at a time at its end, and is
// replaced whole on a reload (browser.Appending).
type pages struct {
	words
	generation int
}

func (p *pages) Generation() int { return p.generation }

// TestKeptFilterJudgesOnlyAddedRows: a page added under a kept filter
// has only its own rows judged, and they join the last group; rows
// replaced whole are judged again, all of them.
func TestKeptFilterJudgesOnlyAddedRows(t *testing.T) {
	src := &pages{words: words{rows: []string{"#pinned", "ada", "#accounts", "bob"}}}
	m := browser.New(browser.DefaultKeyMap(), src)
	m.SetSize(80, 10)
	m.SetFilter("a")
	before := src.matches
	src.rows = append(src.rows, "carl", "dave", "ed")
	m = press(m, down)
	if judged := src.matches - before; judged != 3 {
		t.Errorf("a page of 3 rows under a kept filter judged %d rows, want 3", judged)
	}
	if got, want := shown(m), []string{"#pinned", "ada", "#accounts", "carl", "dave"}; !slices.Equal(got, want) {
		t.Errorf("after the page the filter shows %q, want %q", got, want)
	}
	if kept, of := m.Matched(); kept != 3 || of != 5 {
		t.Errorf("matched %d of %d, want 3 of 5", kept, of)
	}
	m.SetFilter("ca") // narrowed, then a page again
	src.rows = append(src.rows, "cath")
	m.SetCursor(m.Cursor())
	if got, want := shown(m), []string{"#accounts", "carl", "cath"}; !slices.Equal(got, want) {
		t.Errorf("narrowed, then a page: %q, want %q", got, want)
	}
	src.rows, src.generation = []string{"#accounts", "cal", "zed", "cy"}, src.generation+1
	before = src.matches
	m.SetCursor(m.Cursor())
	if judged := src.matches - before; judged != 3 {
		t.Errorf("rows replaced whole: %d judged, want all 3", judged)
	}
	if got, want := shown(m), []string{"#accounts", "cal"}; !slices.Equal(got, want) {
		t.Errorf("after the rows were replaced the filter shows %q, want %q", got, want)
	}
}

// TestFilterOfNothingKeepsTheSelection (issue 38, 3): a filter that kept
// nothing left the selection on row 0, so esc went from row 166 to row
// 1. While a filter keeps nothing the row selected before is kept, and
// selected again once the filter is cleared or keeps it.
func TestFilterOfNothingKeepsTheSelection(t *testing.T) {
	var rows []string
	for i := range 200 {
		rows = append(rows, fmt.Sprintf("acct%03d", i))
	}
	m, _ := wordList(rows...)
	m.SetCursor(166)
	for _, q := range []string{"z", "zz", "zzq"} { // typed a key at a time
		m.SetFilter(q)
	}
	m.SetCursor(m.Cursor()) // what a page or a refresh does meanwhile
	m.SetFilter("")
	if got := m.Cursor(); got != 166 {
		t.Errorf("after a filter of nothing, cleared: row %d selected, want 166", got)
	}
	m.SetFilter("zz")
	m.SetFilter("acct1") // widened again to rows that keep it
	if got := m.Cursor(); got != 166 {
		t.Errorf("after a filter of nothing, widened: row %d selected, want 166", got)
	}
}
