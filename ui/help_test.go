package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/live"
	"github.com/locktable/locktable/ui/statusbar"
)

// TestHelpIsLaidOutWhenItOpens: the help pages are laid out when help
// opens and on a resize, not on each frame or pgdn (the driver counts the
// layouts the model comes to hold: helpLayout); paging still walks every
// page.
func TestHelpIsLaidOutWhenItOpens(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted()), Missing: []string{"transactions", "idempotency tokens"}}, 60, 16)
	d.ready()
	d.press("?")
	if d.helpLayouts != 1 {
		t.Fatalf("opening help laid it out %d times, want 1", d.helpLayouts)
	}
	pages := len(d.m.help.pages)
	if pages < 2 {
		t.Fatalf("%d help pages at 60x16: the test needs more than one", pages)
	}
	seen := map[string]bool{}
	for range pages + 1 {
		for range 3 {
			_ = d.screen() // frames
		}
		seen[d.m.helpScreen()] = true
		d.press("pgdown")
	}
	// The clock's seconds (which redraw the time words) lay nothing out.
	d.send(events.Msg{Msg: live.TickMsg{Now: time.Unix(1_700_000_000, 0)}})
	d.send(live.TickMsg{Now: time.Unix(1_700_000_001, 0)})
	if d.helpLayouts != 1 {
		t.Errorf("frames, pgdn and ticks laid help out again: %d layouts", d.helpLayouts)
	}
	lacks := false
	for p := range seen {
		lacks = lacks || strings.Contains(p, "this backend lacks")
	}
	if len(seen) != pages || !lacks {
		t.Errorf("paging showed %d of %d pages, the last:\n%s", len(seen), pages, d.screen())
	}
	d.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	if d.helpLayouts != 2 || len(d.m.help.pages) != 1 || d.m.help.page != 0 {
		t.Errorf("after a resize to 120x40: %d layouts, %d pages, page %d shown", d.helpLayouts, len(d.m.help.pages), d.m.help.page)
	}
	d.press("esc")
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	if d.helpLayouts != 2 {
		t.Errorf("a resize with help closed laid it out: %d layouts", d.helpLayouts)
	}
}

// TestHelpFollowsAReportArriving: help open over the Problems view lists
// enter while a problem is selected, and drops it when a report with no
// problem arrives behind it (it kept the keys of when it opened before).
func TestHelpFollowsAReportArriving(t *testing.T) {
	t.Parallel()
	ghost := lock("UNIQ#HANDLE#ghost", "")
	b := fake(acct("ACCT#a1", "ada@x.io", "ada"), lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), lock("UNIQ#HANDLE#ada", "ACCT#a1"), ghost)
	d := newDriver(t, Options{Roles: roles(b)}, 120, 40)
	d.ready()
	d.press("3", "?")
	if !strings.Contains(d.screen(), "enter") {
		t.Fatalf("help over a selected problem lists no enter:\n%s", d.screen())
	}
	sc := b.Schema()
	b.Delete(tablePlaceholder, sc.KeyOf(tablePlaceholder, ghost))
	d.press("r") // the check again, its report arriving behind help
	d.until("the check's report", func(m *Model) bool { return m.check.Report() != nil && !m.check.Bar().Running })
	d.settle()
	if strings.Contains(d.screen(), "enter") {
		t.Errorf("help still lists enter after a report with no problem:\n%s", d.screen())
	}
}

// TestHelpSaysTheMouseSetting: help ends with what the mouse does, as the
// config file's mouse: set it (issue 19: the ? help describes it).
func TestHelpSaysTheMouseSetting(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		d := newDriver(t, Options{Roles: roles(fakePlanted()), Mouse: on}, 100, 40)
		d.ready()
		d.press("?", "pgdown", "pgdown") // its last page: the notes
		want := "mouse: off, so that the terminal selects and copies text"
		if on {
			want = "mouse: on (the config file's mouse: true)"
		}
		if s := strings.Join(strings.Fields(d.screen()), " "); !strings.Contains(s, want) {
			t.Errorf("mouse %v: help does not say %q:\n%s", on, want, d.screen())
		}
	}
}

// TestHelpLineSaysWhatItDrops (issue 27, 4): at 80x24 with a problem row
// selected the help line lists f, and has no room for c copy key and C
// copy item JSON: it says that more keys exist, and ? lists them.
func TestHelpLineSaysWhatItDrops(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 80, 24)
	d.ready()
	d.selectRow("ACCT#c3")
	d.press("down") // its foreign lock
	line := d.lines()[len(d.lines())-1]
	if !strings.Contains(line, "f fix") {
		t.Fatalf("the help line offers no fix on a problem row: %q", line)
	}
	for _, want := range []string{"c copy key", "C copy item JSON"} {
		if !strings.Contains(line, want) && !strings.Contains(line, "… ? help") {
			t.Errorf("the help line drops %q with no sign that more exists: %q", want, line)
		}
	}
	d.press("?")
	for _, want := range []string{"c         copy key", "C         copy item JSON"} {
		if !strings.Contains(d.screen(), want) {
			t.Errorf("help does not list %q:\n%s", want, d.screen())
		}
	}
}

// TestHelpPagesListEveryKey (issue 38, 7): at 80x24, over every row of
// the accounts, locks and problems views, with and without marks, the
// help pages together list every binding that acts there (the enabled
// bindings of the view's and the root's key maps), whole.
func TestHelpPagesListEveryKey(t *testing.T) {
	t.Parallel()
	for _, view := range []string{"1", "2", "3"} {
		for _, marked := range []bool{false, true} {
			d := newDriver(t, Options{Roles: roles(fakePlanted()), Missing: []string{"transactions", "idempotency tokens", "parallel scan", "mixed-type comparisons"}}, 80, 24)
			d.ready()
			d.press(view)
			if marked && view != "1" {
				d.press("space", "down", "space")
			}
			for row := range 26 { // every row of the planted items, and past the last
				var want []key.Binding
				for _, g := range append(d.m.list().FullHelp(), d.m.keys().FullHelp()...) {
					for _, b := range g {
						if b.Enabled() {
							want = append(want, b)
						}
					}
				}
				d.press("?")
				var pages []string
				for range d.m.help.pages {
					pages = append(pages, strings.Join(d.lines()[listTop:listTop+d.m.listHeight()], "\n"))
					d.press("pgdown")
				}
				all := strings.Join(pages, "\n")
				for _, b := range want {
					if !regexp.MustCompile(`(?m)(^|\s)` + regexp.QuoteMeta(b.Help().Key) + ` +` + regexp.QuoteMeta(b.Help().Desc) + `( |$)`).MatchString(all) {
						t.Errorf("view %s, marked %v, row %d: help does not list %s %s:\n%s", view, marked, row, b.Help().Key, b.Help().Desc, strings.Join(pages, "\n---\n"))
					}
				}
				d.press("esc", "down")
			}
		}
	}
}

// TestHelpExplainsEveryShortForm (issue 39, 2): at 80 columns the header
// counts in short forms (miss 6·orph 5·forgn 3·...) that nothing
// explained. Help's legend says what each stands for: every short form
// of the counts statusbar can take (statusbar.Abbreviations, so that a
// new one cannot be missed) and every tab's short title.
func TestHelpExplainsEveryShortForm(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 80, 24)
	d.ready()
	if !strings.Contains(d.lines()[1], "miss 1·orph 2") {
		t.Fatalf("at 80 columns the header does not count in short forms: %q", d.lines()[1])
	}
	pages := d.helpPages()
	help := fields(strings.Join(pages, "\n"))
	want := statusbar.Abbreviations()
	for i, s := range viewShort {
		want = append(want, statusbar.Abbreviation{Short: s, Long: viewTitles[i]})
	}
	for _, a := range want {
		if !regexp.MustCompile(`(^| )` + regexp.QuoteMeta(a.Short+" "+a.Long) + `( |$)`).MatchString(help) {
			t.Errorf("help does not say what %q stands for (%s):\n%s", a.Short, a.Long, strings.Join(pages, "\n---\n"))
		}
	}
}

// helpPages opens help and returns each of its pages as the screen shows
// it, paging down through them.
func (d *driver) helpPages() []string {
	d.t.Helper()
	d.press("?")
	var pages []string
	for range d.m.help.pages {
		pages = append(pages, d.screen())
		d.press("pgdown")
	}
	return pages
}
