package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/uitest"
)

// wantFits fails for a line of the screen wider than the terminal.
func wantFits(t *testing.T, d *driver, width int) {
	t.Helper()
	for i, l := range strings.Split(d.screen(), "\n") {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d is %d cells, the terminal %d: %q", i+1, w, width, l)
		}
	}
}

// TestTooSmallSaysTheSizeItNeeds: at 50x12 the message was cut before
// the size locktable needs.
func TestTooSmallSaysTheSizeItNeeds(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted()), NoCheck: true}, 50, 12)
	d.settle()
	wantFits(t, d, 50)
	s := fields(strings.ReplaceAll(d.screen(), "\n", " "))
	for _, want := range []string{"50x12", "at least 60x16", "q quits"} {
		if !strings.Contains(s, want) {
			t.Errorf("the too-small screen does not say %q:\n%s", want, d.screen())
		}
	}
}

// TestTabsKeepTheirNames: at 80 columns the view names vanished once the
// check's counts arrived ("1 Accounts  2  3  missing 1 ...").
func TestTabsKeepTheirNames(t *testing.T) {
	t.Parallel()
	for _, width := range []int{80, 200} {
		d := newDriver(t, Options{Roles: roles(fakePlanted())}, width, 24)
		d.ready()
		tabs := d.lines()[1]
		for _, want := range []string{"1 Accounts", "2 Locks", "3 Problems"} {
			if !strings.Contains(tabs, want) {
				t.Errorf("at %d the tabs line lacks %q: %q", width, want, tabs)
			}
		}
		for _, want := range []string{"miss", "orph", "dup", "inval"} {
			if !strings.Contains(tabs, want) {
				t.Errorf("at %d the tabs line lacks the count %q: %q", width, want, tabs)
			}
		}
		wantFits(t, d, width)
	}
}

// TestLongStatusIsNotCut: f on a row with no problem said "select a
// problem row (... or a row of the proble…": cut at 80 columns.
func TestLongStatusIsNotCut(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 80, 24)
	d.ready()
	// A status longer than the screen is wide, as a refusal's can be.
	d.m.status = "not sent: select a problem row (an orphan, a foreign lock, a missing lock) or a row of the problems view"
	s := fields(strings.ReplaceAll(strings.Join(d.lines()[22:], " "), "\n", " "))
	if !strings.Contains(s, "or a row of the problems view") {
		t.Errorf("the status is cut:\n%s", d.screen())
	}
	if n := len(strings.Split(d.screen(), "\n")); n != 24 {
		t.Errorf("the screen has %d lines, want 24:\n%s", n, d.screen())
	}
	wantFits(t, d, 80)
	d.press("j")
	if last := d.lines()[23]; !strings.Contains(last, "? help") {
		t.Errorf("after the next key the help line is not back: %q", last)
	}
}

// TestBackendLacksSaidInWords: the demo opened with a red "backend lacks
// 2 (see ?)" explained only on the second help page. The first screen
// says what it lacks in words, on one line; the next key clears it.
func TestBackendLacksSaidInWords(t *testing.T) {
	t.Parallel()
	missing := backend.Capabilities{Transactions: true}.Missing()
	if len(missing) != 4 {
		t.Fatalf("the probe's Missing has %d lines, want 4", len(missing))
	}
	for _, size := range []struct {
		width int
		want  []string
	}{
		{80, []string{"lacks 4", "works around", "(?)", "idempotency tokens"}},
		{200, []string{"idempotency tokens", "ALL_OLD items", "parallel scan", "mixed-type comparisons", "works around", "? says how"}},
	} {
		d := newDriver(t, Options{Roles: roles(fakePlanted()), Missing: missing}, size.width, 24)
		d.ready()
		status := d.lines()[22]
		for _, want := range size.want {
			if !strings.Contains(status, want) {
				t.Errorf("at %d the first status line does not say %q: %q", size.width, want, status)
			}
		}
		if !strings.Contains(d.lines()[23], "? help") {
			t.Errorf("the note takes more than its line:\n%s", d.screen())
		}
		wantFits(t, d, size.width)
		d.press("j")
		if strings.Contains(d.screen(), "idempotency") {
			t.Errorf("the note stays after a key:\n%s", d.screen())
		}
	}
}

// TestRaceBoardScrolls: with more racers than lines the board said "…
// 84 more racers" and could not be scrolled; the winner could be among
// them. Once it is over the winner is listed first, and every racer can
// be scrolled to.
func TestRaceBoardScrolls(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 80, 24)
	d.ready()
	d.press("R")
	waitScreen(d, "the race form", "race: new accounts claim")
	d.send(ctrlU())
	d.typeText("racer@x.io")
	d.press("tab", "tab")
	d.send(ctrlU())
	d.typeText("60")
	d.press("enter")
	waitScreen(d, "the preview", "60 racers send this transaction")
	d.press("y")
	waitScreen(d, "the verdict", "1 of 60 racers committed")
	if n := len(strings.Split(d.screen(), "\n")); n != 24 {
		t.Errorf("the board takes %d lines, want 24:\n%s", n, d.screen())
	}
	wantFits(t, d, 80)
	if !strings.Contains(d.lines()[3], "committed") {
		t.Errorf("the winner is not the board's first racer:\n%s", d.screen())
	}
	seen := map[string]bool{}
	for range 20 {
		for _, l := range d.lines() {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "racer" {
				seen[f[1]] = true
			}
		}
		d.press("pgdown")
	}
	if len(seen) != 60 {
		t.Errorf("scrolling shows %d racers of 60:\n%s", len(seen), d.screen())
	}
}

// fakeLongValues is the demo's kind of table: emails that share their
// prefix and domain, foreign locks and a duplicate.
func fakeLongValues() *uitest.Backend {
	return fake(
		acct("ACCT#a851f637", "barbara.1000104@example.org", "barbara104"), lock("UNIQ#EMAIL#barbara.1000104@example.org", "ACCT#a851f637"),
		acct("ACCT#e4c0e999", "edsger.103@example.org", "edsger103"), lock("UNIQ#EMAIL#edsger.103@example.org", "ACCT#a851f637"),
		acct("ACCT#38453d70", "john.110@example.org", "john110"), lock("UNIQ#EMAIL#john.110@example.org", "ACCT#fbd64a0e"),
		acct("ACCT#8bc99147", "niklaus.117@example.org", "niklaus117"), lock("UNIQ#EMAIL#niklaus.117@example.org", "ACCT#4f5a9de5"),
		acct("ACCT#212fdcfb", "margaret.106@example.org", "margaret106"), lock("UNIQ#EMAIL#margaret.106@example.org", "ACCT#82f8634a"),
		acct("ACCT#82f8634a", "margaret.106@example.org", "margaret1060"),
	)
}

// TestRowsKeepWhatTellsThemApart: at 80 columns the problems view kept
// the prefix every lock shares and cut the holder ("UNIQ#EMAIL#edsger.103@
// exa… email owner ACCT#a851f637 held by…"). Owners and holders show
// whole, no two rows show the same key, the statuses align; at 200
// columns nothing is cut.
func TestRowsKeepWhatTellsThemApart(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		d := newDriver(t, Options{Roles: roles(fakeLongValues())}, size[0], size[1])
		d.ready()
		d.press("3")
		wantFits(t, d, size[0])
		s := d.screen()
		for _, want := range []string{
			"owner ACCT#a851f637  held by ACCT#e4c0e999", "owner ACCT#fbd64a0e  held by ACCT#38453d70",
			"owner ACCT#4f5a9de5  held by ACCT#8bc99147", "held by ACCT#212fdcfb",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("at %d %q is cut:\n%s", size[0], want, s)
			}
		}
		keys, col := map[string]bool{}, -1
		for _, l := range d.lines() {
			f := strings.Fields(l)
			if len(f) < 3 || !strings.HasPrefix(f[len(f)-1], "foreign") {
				continue
			}
			if keys[f[0]] {
				t.Errorf("at %d two rows show the key %q:\n%s", size[0], f[0], s)
			}
			keys[f[0]] = true
			at := ansi.StringWidth(l[:strings.LastIndex(l, "foreign")])
			if col >= 0 && at != col {
				t.Errorf("at %d statuses start at %d and %d:\n%s", size[0], col, at, s)
			}
			col = at
		}
		if len(keys) != 3 {
			t.Errorf("at %d, %d foreign rows, want 3:\n%s", size[0], len(keys), s)
		}
		if size[0] == 200 && strings.Contains(s, "…") {
			t.Errorf("at 200 a row is cut:\n%s", s)
		}
		d.press("1")
		if size[0] == 200 && strings.Contains(d.screen(), "…") {
			t.Errorf("at 200 an account row is cut:\n%s", d.screen())
		}
	}
}

// TestRaceVerdictWhole: the verdict wrapped onto a second line lost it
// below the board ("enter closes," and nothing after).
func TestRaceVerdictWhole(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 80, 24)
	d.ready()
	d.press("R")
	waitScreen(d, "the race form", "race: new accounts claim")
	d.press("tab", "tab")
	d.send(ctrlU())
	d.typeText("40")
	d.press("enter")
	waitScreen(d, "the preview", "40 racers send this transaction")
	d.press("y")
	waitScreen(d, "the verdict", "1 of 40 racers committed")
	if s := fields(strings.Join(d.lines(), " ")); !strings.Contains(s, "closes, and the check runs again") {
		t.Errorf("the verdict is cut:\n%s", d.screen())
	}
}
