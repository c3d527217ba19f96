package ui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/model/mistake"
)

// footer is the help line, the last line of the screen.
func (d *driver) footer() string {
	ls := d.lines()
	return ls[len(ls)-1]
}

// TestHelpSaysWhatTheKeysDo: the help line and the help screen are made
// from the bindings of what is shown, each context its own.
func TestHelpSaysWhatTheKeysDo(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 200, 40)
	d.ready()
	steps := []struct {
		keys       []string
		has, lacks []string
	}{
		// On an account whose locks are ok f fixes nothing: not offered.
		{nil, []string{"enter detail", "n/N next/prev problem", "e rename", "a add", "/ filter", ": command", "q quit"}, []string{"esc", "ctrl+c", "f fix"}},
		{[]string{"n"}, []string{"f fix", "e rename", "d delete"}, nil},
		{[]string{"2"}, []string{"enter detail", "n/N next/prev problem", "esc back"}, []string{"f fix problem"}},
		{[]string{"3"}, []string{"enter show its rows", "f fix", "esc back"}, []string{"n/N"}},
		{[]string{"1", "enter"}, []string{"esc/q back", "tab next view", "ctrl+c quit"}, []string{"enter detail", "f fix", "q quit"}},
		{[]string{"esc", "/"}, []string{"enter keep the filter", "esc clear the filter", "ctrl+c quit"}, []string{"q quit", "tab next view", "n/N", "f fix"}},
		{[]string{"esc", "a"}, []string{"tab next field", "enter preview", "esc cancel", "ctrl+c quit"}, []string{"q quit", "/ filter", "tab next view", "n/N"}},
	}
	for _, s := range steps {
		d.press(s.keys...)
		f := d.footer()
		for _, want := range s.has {
			if !strings.Contains(f, want) {
				t.Errorf("after %v the help line lacks %q: %q", s.keys, want, f)
			}
		}
		for _, not := range s.lacks {
			if strings.Contains(f, not) {
				t.Errorf("after %v the help line offers %q: %q", s.keys, not, f)
			}
		}
	}
	// The list's status line does not leak under the dialog over it.
	if ls := d.lines(); strings.Contains(ls[len(ls)-2], "accounts loaded") {
		t.Errorf("the list's status under the dialog: %q", ls[len(ls)-2])
	}
	d.press("esc", "2", "?")
	if s := d.screen(); strings.Contains(s, "edit/rename") || !strings.Contains(s, "previous problem") {
		t.Errorf("help over the locks view:\n%s", s)
	}
}

// TestUnknownOutcomeIsSentAgain: a write whose answer never came says so,
// offers s, and s sends the same request with the same token.
func TestUnknownOutcomeIsSentAgain(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	store.Control.LoseWrites(1)
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	pinAccount(d, "bob")
	d.press("down", "down", "f")
	waitScreen(d, "the preview", "put lock UNIQ#HANDLE#bob")
	d.press("enter")
	waitScreen(d, "the unknown outcome", "UNKNOWN")
	if !strings.Contains(d.footer(), "s send again") {
		t.Fatalf("s is not offered: %q", d.footer())
	}
	d.press("s")
	waitScreen(d, "the result", "COMMITTED")
	if tokens := store.Control.Tokens(); len(tokens) != 2 || tokens[0] != tokens[1] {
		t.Errorf("tokens sent: %v, want the same one twice", tokens)
	}
	if strings.Contains(d.footer(), "s send again") {
		t.Errorf("s is still offered after the commit: %q", d.footer())
	}
}

// TestEscAfterACommitReloadsToo: closing the result of a committed delete
// with esc reads the rows again, as enter does.
func TestEscAfterACommitReloadsToo(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	deletePinned(d, "gina@x.io", "ACCT#g7")
	d.press("esc")
	d.until("the account gone from the screen", func(m *Model) bool { return !strings.Contains(d.screen(), "ACCT#g7") })
}

// TestOneWayBack: esc goes back everywhere; q quits only from a list
// view, and goes back over the detail and help; shift+tab is the
// previous view.
func TestOneWayBack(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.press("enter")
	if !d.m.layers.detail.Shown() {
		t.Fatalf("enter did not open the detail:\n%s", d.screen())
	}
	d.press("q")
	if d.quit || d.m.layers.detail.Shown() {
		t.Fatalf("q over the detail: quit %v, detail shown %v; want it closed", d.quit, d.m.layers.detail.Shown())
	}
	d.press("?", "q")
	if d.quit || d.m.help.open {
		t.Fatalf("q over help: quit %v, help open %v; want it closed", d.quit, d.m.help.open)
	}
	d.press("?", "esc")
	if d.m.help.open {
		t.Fatal("esc does not close help")
	}
	d.press("shift+tab")
	if d.m.views.shown != viewProblems {
		t.Fatalf("shift+tab from the accounts: view %d, want the problems", d.m.views.shown)
	}
	d.press("shift+tab")
	d.until("the locks", func(m *Model) bool { return !m.views.locks.Loading() })
	if d.m.views.shown != viewLocks {
		t.Fatalf("shift+tab from the problems: view %d, want the locks", d.m.views.shown)
	}
	d.press("esc")
	if d.m.views.shown != viewAccounts {
		t.Fatalf("esc from the locks: view %d, want the accounts", d.m.views.shown)
	}
	d.press("q")
	if !d.quit {
		t.Fatal("q does not quit from a list view")
	}
}

// TestFooterEndsWithHelpAndQuit: q quit fell off the help line at 100 and
// 120 columns; the other hints give way first.
func TestFooterEndsWithHelpAndQuit(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{60, 16}, {80, 24}, {100, 30}, {120, 40}} {
		d := newDriver(t, Options{Roles: roles(fakePlanted())}, size[0], size[1])
		d.ready()
		pinAccount(d, "ada")
		for _, keys := range [][]string{nil, {"enter"}} {
			d.press(keys...)
			f := d.footer()
			if !strings.HasSuffix(f, "? help • q quit") && !strings.HasSuffix(f, "? help • ctrl+c quit") {
				t.Errorf("at %dx%d after %v the help line ends %q", size[0], size[1], keys, f)
			}
			if w := ansi.StringWidth(f); w > size[0] {
				t.Errorf("at %dx%d the help line is %d wide", size[0], size[1], w)
			}
		}
	}
}

// TestCountsFitTheHeader: at 80 columns the problem counts were cut.
func TestCountsFitTheHeader(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{60, 16}, {80, 24}} {
		d := newDriver(t, Options{Roles: roles(fakePlanted())}, size[0], size[1])
		d.ready()
		h := d.lines()[1]
		all := regexp.MustCompile(`miss\w* 1 ?· ?orph\w* 2 ?· ?f\w+ 1 ?· ?dup\w* 1 ?· ?inval\w* 1$`)
		if strings.Contains(h, "…") || !all.MatchString(h) {
			t.Errorf("at %dx%d the counts are cut: %q", size[0], size[1], h)
		}
	}
}

// TestHelpFits: at 80x24 and 60x16 the help screen showed only its first
// columns, and the help line lost the write keys and quit.
func TestHelpFits(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{60, 16}, {80, 24}} {
		d := newDriver(t, Options{Roles: roles(fakePlanted())}, size[0], size[1])
		d.ready()
		d.press("n") // a missing lock: every write key acts on it
		f := d.footer()
		for _, want := range []string{"e rename", "d delete", "f fix", "a add", "? help", "q quit"} {
			if !strings.Contains(f, want) {
				t.Errorf("at %dx%d the help line lacks %q: %q", size[0], size[1], want, f)
			}
		}
		d.press("?")
		s := fields(d.screen())
		for _, want := range []string{"e edit/rename account", "d delete account", "f fix problem", "a add account", "? help", "q quit"} {
			if !strings.Contains(s, want) {
				t.Errorf("at %dx%d the help screen lacks %q:\n%s", size[0], size[1], want, d.screen())
			}
		}
		wantWithin(t, d, size[0])
		if !strings.Contains(s, "G end (keeps loading)") {
			t.Errorf("at %dx%d the help screen lacks the last of the moves:\n%s", size[0], size[1], d.screen())
		}
	}
}

// TestFlowPages: bindings that do not fit one page go on the next, none
// lost, none wider than the page.
func TestFlowPages(t *testing.T) {
	var bs []key.Binding
	for i := range 24 {
		bs = append(bs, key.NewBinding(key.WithKeys(fmt.Sprint(i)), key.WithHelp(fmt.Sprint(i), fmt.Sprintf("binding number %d", i))))
	}
	pages := flowPages(bs, 30, 5)
	if len(pages) < 2 {
		t.Fatalf("%d page(s) for 24 bindings in 30x5", len(pages))
	}
	all := strings.Join(pages, "\n")
	for i := range 24 {
		if !strings.Contains(all, fmt.Sprintf("binding number %d\n", i)) && !strings.HasSuffix(all, fmt.Sprintf("binding number %d", i)) && !strings.Contains(all, fmt.Sprintf("binding number %d ", i)) {
			t.Errorf("binding %d is on no page:\n%s", i, all)
		}
	}
	for _, p := range pages {
		if w := widest(p); w > 30 {
			t.Errorf("a page is %d wide:\n%s", w, p)
		}
	}
}

// TestCopyKeyAndItem: over the detail, c copies the key and C the item as
// DynamoDB JSON, read again (OSC 52, on those keys only).
func TestCopyKeyAndItem(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.selectRow("ACCT#a1")
	d.press("enter")
	if !strings.Contains(d.footer(), "c copy key") {
		t.Errorf("the help line does not offer c over the detail: %q", d.footer())
	}
	d.press("c")
	if d.clipboard != "ACCT#a1" || !strings.Contains(d.screen(), "copied ACCT#a1") {
		t.Fatalf("c copied %q:\n%s", d.clipboard, d.screen())
	}
	d.press("C")
	if !strings.Contains(fields(d.clipboard), `"PK": { "S": "ACCT#a1" }`) || !strings.Contains(d.screen(), "copied the item") {
		t.Fatalf("C copied %q:\n%s", d.clipboard, d.screen())
	}
}

// TestCopyFromAListRow: c and C copy the selected row's item without
// opening it, in each list view; a row with no item (a missing lock)
// copies nothing and the help does not offer them there.
func TestCopyFromAListRow(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.selectRow("UNIQ#HANDLE#ada")
	d.press("c")
	if d.clipboard != "UNIQ#HANDLE#ada" {
		t.Fatalf("c on the lock row of ada copied %q:\n%s", d.clipboard, d.screen())
	}
	d.press("C")
	if !strings.Contains(fields(d.clipboard), `"PK": { "S": "UNIQ#HANDLE#ada" }`) {
		t.Fatalf("C on the lock row copied %q", d.clipboard)
	}
	// bob's username lock is missing: nothing to copy on that row.
	d.selectRow("UNIQ#HANDLE#bob")
	if !strings.Contains(d.selected(), "missing") {
		t.Fatalf("want bob's missing username lock selected, got %q", d.selected())
	}
	before := d.clipboard
	d.press("c")
	if d.clipboard != before || strings.Contains(d.footer(), "c copy key") {
		t.Fatalf("c on a row with no lock: clipboard %q, help %q", d.clipboard, d.footer())
	}

	d.press("3") // problems: the first problem's item
	d.until("the check's problems", func(m *Model) bool { return m.views.problems.Ready() })
	for {
		if p, ok := d.m.views.problems.Selected(); ok && p.Kind == model.OrphanLock {
			break
		}
		d.press("down")
	}
	p, _ := d.m.views.problems.Selected()
	d.press("c")
	if want := "UNIQ#" + map[string]string{"email": "EMAIL#", "username": "HANDLE#"}[p.Constraint] + p.Value; d.clipboard != want {
		t.Fatalf("c on the orphan lock %s=%s copied %q, want %q", p.Constraint, p.Value, d.clipboard, want)
	}

	d.press("2") // locks: the selected lock's key
	d.until("locks", func(m *Model) bool { _, ok := m.views.locks.SelectedRef(); return ok })
	d.press("c")
	if !strings.HasPrefix(d.clipboard, "UNIQ#") || !strings.Contains(d.selected(), d.clipboard) {
		t.Fatalf("c in the locks view copied %q, selected %q", d.clipboard, d.selected())
	}
}

// TestProblemsHeadingsTakeNoCursor: the problems view opens on its first
// problem, not on a group's title; k from there stays on it; a clean
// check's view offers no enter, which would have nothing to show.
func TestProblemsHeadingsTakeNoCursor(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.press("3")
	if _, ok := d.m.views.problems.Selected(); !ok || !strings.Contains(d.footer(), "enter show its rows") {
		t.Fatalf("the problems view opens on a heading:\n%s", d.screen())
	}
	d.press("k", "g")
	if _, ok := d.m.views.problems.Selected(); !ok {
		t.Fatalf("k or g selected a heading:\n%s", d.screen())
	}
	clean := newDriver(t, Options{Roles: roles(fakeMany(3))}, 120, 40)
	clean.ready()
	clean.press("3")
	if !strings.Contains(clean.screen(), "no problems:") || strings.Contains(clean.footer(), "enter") {
		t.Fatalf("a clean check's view offers enter:\n%s", clean.screen())
	}
}

// TestMistakesMenuOnlyWhereAllowed: B is offered (and works) only where
// the CLI hands the UI a way to replay mistakes (the demo, a loopback
// endpoint); a replay that fails says so and writes nothing on screen.
func TestMistakesMenuOnlyWhereAllowed(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.press("?")
	if strings.Contains(d.screen(), "replay a mistake") {
		t.Fatalf("help offers B without a way to replay:\n%s", d.screen())
	}
	var asked string
	run := func(_ context.Context, kind string) (mistake.Replay, error) {
		asked = kind
		return mistake.Replay{}, errors.New("the emulator went away")
	}
	d = newDriver(t, Options{Roles: roles(fakePlanted()), Break: run}, 120, 40)
	d.ready()
	d.press("?")
	if !strings.Contains(d.screen(), "B") || !strings.Contains(d.screen(), "replay a mistake") {
		t.Fatalf("help does not offer B:\n%s", d.screen())
	}
	d.press("esc", "B", "j", "enter")
	d.until("the replay's failure", func(m *Model) bool { return strings.Contains(d.screen(), "not replayed: the emulator went away") })
	if asked != "gsi-duplicate" || d.m.layers.mistakes.Shown() {
		t.Fatalf("replayed %q, menu shown %v", asked, d.m.layers.mistakes.Shown())
	}
}

// TestAKeyThatDoesNothingSaysSo (issue 39, 3: "pressing o does nothing
// and says nothing"): a printable key that help does not list, pressed
// over a list, says that it does nothing and where the keys are; one
// that acts (s sorts) or says why it cannot (e on a lock row) says its
// own words.
func TestAKeyThatDoesNothingSaysSo(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted()), NoCheck: true}, 120, 40)
	d.ready()
	for _, k := range []string{"o", "5", "%"} {
		d.press(k)
		if want := k + " does nothing here (? lists the keys)"; !strings.Contains(d.screen(), want) {
			t.Errorf("%s: the screen does not say %q:\n%s", k, want, d.screen())
		}
	}
	d.press("s")
	if s := d.screen(); strings.Contains(s, "does nothing") || !strings.Contains(s, "sorted by") {
		t.Errorf("s sorts, and says so:\n%s", s)
	}
	d.press("2", "e")
	if s := d.screen(); strings.Contains(s, "does nothing") || !strings.Contains(s, "renames an account") {
		t.Errorf("e over a lock says why it does not rename it here:\n%s", s)
	}
}
