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

// TestBackendLacksSaidInWords: what the backend lacks is said where it
// matters, in words: not on the first screen (neither its header nor its
// status line, which said "backend lacks 4, locktable works around them"
// before any key), but in help, in full; a backend without transactions
// is READ-ONLY in the header, and a write key says why it does nothing.
func TestBackendLacksSaidInWords(t *testing.T) {
	t.Parallel()
	for _, c := range []backend.Capabilities{{Transactions: true}, {}} {
		missing := c.Missing()
		o := Options{Roles: roles(fakePlanted()), Missing: missing}
		if !c.Transactions {
			o.Writable, o.ReadOnly, o.ReadOnlyWhy = false, true, "the backend does not support transactions"
		}
		d := newDriver(t, o, 80, 24)
		d.ready()
		first := d.lines()
		if strings.Contains(d.screen(), "lacks") || strings.Contains(d.screen(), " no transactions") || strings.Contains(d.screen(), "idempotency") {
			t.Errorf("the first screen speaks of what the backend lacks:\n%s", d.screen())
		}
		if strings.Contains(first[0], "READ-ONLY") == c.Transactions {
			t.Errorf("transactions %v, the header is %q", c.Transactions, first[0])
		}
		wantFits(t, d, 80)
		if !c.Transactions {
			d.press("e")
			if s := d.screen(); !strings.Contains(s, "read-only, the backend does not support transactions") {
				t.Errorf("e on a backend without transactions does not say why it does nothing:\n%s", s)
			}
		}
		help := d.helpPages()
		what, _, _ := strings.Cut(missing[0], " (")
		if s := fields(strings.Join(help, "\n")); !strings.Contains(s, "this backend lacks") || !strings.Contains(s, "- "+what) {
			t.Errorf("help does not say %q in full:\n%s", what, strings.Join(help, "\n---\n"))
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
