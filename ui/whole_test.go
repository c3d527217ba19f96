package ui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/config"
	"github.com/locktable/locktable/internal/uitest"
)

// fakeWidths is a backend of 60 sound accounts whose emails are short
// but for those of ACCT#0020 to ACCT#0039, long: a screen of the first
// rows needs narrower columns than a screen of those.
func fakeWidths(long ...int) *uitest.Backend {
	if len(long) == 0 {
		long = []int{20, 40}
	}
	store := fake()
	for i := range 60 {
		id, handle := fmt.Sprintf("ACCT#%04d", i), fmt.Sprintf("user%d", i)
		email := handle + "@x.io"
		if i >= long[0] && i < long[1] {
			email = handle + ".katherine.johnson@langley.example.org"
		}
		store.Put(tablePlaceholder, acct(id, email, handle), lock("UNIQ#EMAIL#"+email, id), lock("UNIQ#HANDLE#"+handle, id))
	}
	return store
}

// ownerColumns are the cells at which the lock rows on screen show their
// owner: one for aligned columns.
func ownerColumns(d *driver) []int {
	var at []int
	for _, l := range d.lines() {
		if strings.Contains(l, "└ UNIQ#") {
			if i := strings.Index(l, "owner ACCT#"); i >= 0 && !slices.Contains(at, ansi.StringWidth(l[:i])) {
				at = append(at, ansi.StringWidth(l[:i]))
			}
		}
	}
	return at
}

// TestColumnsHoldStillWhileScrolling: at 80 columns the columns are as
// wide as every row loaded needs, so a screen of short rows lays out as
// a screen of long ones does: the owners start in one column however far
// the list is paged or scrolled (before, each screen was measured by its
// own rows and the columns shifted as the long emails came and went).
func TestColumnsHoldStillWhileScrolling(t *testing.T) {
	t.Parallel()
	columnsHoldStill(t, fakeWidths())
}

// TestSortedColumnsHoldStill: sorted, the rows of a page read later land
// anywhere among those shown; the columns are as wide as they need all
// the same (the rows read since were taken to be the last shown, and a
// later page's long emails, sorted on top, were not measured).
func TestSortedColumnsHoldStill(t *testing.T) {
	t.Parallel()
	columnsHoldStill(t, fakeWidths(57, 60), "S") // by key, descending: the last page on top
}

// columnsHoldStill presses keys, reads every page, and holds the owners'
// column still while the list is paged and scrolled.
func columnsHoldStill(t *testing.T, store *uitest.Backend, keys ...string) {
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 80, 24)
	d.ready()
	d.press(keys...)
	d.press("G")
	d.until("every page", func(m *Model) bool { return m.views.accounts.Pager().Paging().Done() })
	var seen []int
	note := func(where string) {
		at := ownerColumns(d)
		if len(at) != 1 {
			t.Fatalf("%s: the owners start at cells %v, want one column:\n%s", where, at, d.screen())
		}
		if !slices.Contains(seen, at[0]) {
			seen = append(seen, at[0])
		}
	}
	note("the end") // before the rows at the top were ever on screen
	d.press("g")
	note("the top")
	for i := range 12 {
		d.press("pgdown")
		note(fmt.Sprintf("page %d", i+1))
	}
	for i := range 40 {
		d.press("k")
		note(fmt.Sprintf("up %d", i+1))
	}
	if len(seen) != 1 {
		t.Errorf("the owners' column moved while scrolling: cells %v", seen)
	}
	if !strings.Contains(d.screen(), "UNIQ#EMAIL#user") {
		t.Fatalf("no lock row on screen:\n%s", d.screen())
	}
}

// TestTheSelectedRowReadsWholeAt80x24: at 80x24 a row's long values are
// cut on its line, and the selected row shows them whole on the lines
// under it (wrapped between words, escaped as all table text), the rows
// below moving down; selected no longer, it takes one line again.
func TestTheSelectedRowReadsWholeAt80x24(t *testing.T) {
	t.Parallel()
	email := "katherine.coleman.goble.johnson.langley.research@example.org"
	handle := "katherine_johnson_\x1b[2J_of_white_sulphur_springs"
	store := fake(acct("ACCT#k1", email, handle), lock("UNIQ#EMAIL#"+email, "ACCT#k1"), lock("UNIQ#HANDLE#"+handle, "ACCT#k1"),
		acct("ACCT#b2", "bob@x.io", "bob"), lock("UNIQ#EMAIL#bob@x.io", "ACCT#b2"), lock("UNIQ#HANDLE#bob", "ACCT#b2"))
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 80, 24)
	d.ready()
	d.selectRow("ACCT#k1")
	row := d.rowIndex("ACCT#k1")
	if strings.Contains(d.lines()[row], email) {
		t.Fatalf("the email fits its line at 80 columns: the test shows nothing:\n%s", d.screen())
	}
	under := strings.Join(strings.Fields(strings.Join(d.lines()[row+1:row+4], " ")), "")
	for _, want := range []string{"email=" + email, "username=katherine_johnson_\\x1b[2J_of_white_sulphur_springs"} {
		if !strings.Contains(under, want) {
			t.Errorf("the selected row does not show %q whole under it:\n%s", want, d.screen())
		}
	}
	if raw := d.m.View().Content; strings.Contains(raw, "\x1b[2J") {
		t.Errorf("the value's escape reached the terminal raw")
	}
	if n := len(d.lines()); n != 24 {
		t.Errorf("the screen is %d lines, want 24", n)
	}
	d.press("down") // its email's lock: its key whole under it
	lockRow := slices.IndexFunc(d.lines(), func(l string) bool { return strings.HasPrefix(l, "▸") })
	if got := strings.Join(strings.Fields(d.lines()[lockRow+1]), ""); got != "UNIQ#EMAIL#"+email {
		t.Errorf("the selected lock row shows %q under it, want its key whole:\n%s", got, d.screen())
	}
	if l := d.lines()[d.rowIndex("ACCT#k1")+1]; !strings.Contains(l, "└ ") {
		t.Errorf("the account's row, no longer selected, still takes more than its line:\n%s", d.screen())
	}
}

// TestHideAndShowColumns: :hide takes a column out of the view shown,
// the others widening into its room, and :show puts it back; each view
// hides its own.
func TestHideAndShowColumns(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 80, 24)
	d.ready()
	command := func(line string) {
		d.press(":")
		d.typeText(line)
		d.press("enter")
	}
	if !strings.Contains(d.screen(), "username=ada") {
		t.Fatalf("no username on screen:\n%s", d.screen())
	}
	command("hide username")
	if s := d.screen(); strings.Contains(s, "username=") || !strings.Contains(s, "email=ada@x.io") || !strings.Contains(s, "accounts hides username") {
		t.Errorf("username is not hidden alone, or the status does not say so:\n%s", s)
	}
	// What is exported is the table's, not the screen's: every column.
	if x := d.m.views.tab().component.(exporter).Export(); !slices.ContainsFunc(x.Rows, func(r []string) bool { return slices.Contains(r, "username") && slices.Contains(r, "ada") }) {
		t.Errorf("with username hidden, the export lacks ada's username: %q", x.Rows)
	}
	command("hide status")
	if l := d.lines()[d.rowIndex("└ UNIQ#HANDLE#ada")]; strings.HasSuffix(l, " ok") {
		t.Errorf("the status column is not hidden: %q", l)
	}
	d.press("2")
	if !strings.Contains(d.screen(), "owner ACCT#a1") {
		t.Fatalf("the locks view hides what the accounts view does:\n%s", d.screen())
	}
	command("hide owner")
	if s := d.screen(); strings.Contains(s, "owner ACCT#") {
		t.Errorf("the locks' owners are not hidden:\n%s", s)
	}
	d.press("1")
	command("show username")
	if s := d.screen(); !strings.Contains(s, "username=ada") || strings.HasSuffix(d.lines()[d.rowIndex("└ UNIQ#HANDLE#ada")], " ok") {
		t.Errorf("username is not shown again, or status came back with it:\n%s", s)
	}
	command("hide nosuch")
	if !strings.Contains(d.screen(), `no COLUMN "nosuch"`) {
		t.Errorf(":hide of a column the view does not show is not refused:\n%s", d.screen())
	}
}

// TestHiddenColumnsSavedInTheConfigFile: :hide! saves the view's hidden
// columns in the config file, and a UI started with that file hides them
// from its first screen.
func TestHiddenColumnsSavedInTheConfigFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	save := func(view string, hidden []string) error {
		return config.SetHiddenColumns(path, view, hidden, config.Spec{})
	}
	d := newDriver(t, Options{Roles: roles(fakePlanted()), SaveColumns: save}, 80, 24)
	d.ready()
	d.press(":")
	d.typeText("hide! username")
	d.press("enter")
	d.until("the columns saved", func(*Model) bool { return strings.Contains(fields(d.screen()), "saved in the config file") })
	f, err := config.Load(path, true, config.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Hidden()["accounts"]; !slices.Equal(got, []string{"username"}) {
		t.Fatalf("the file hides %q in the accounts view, want username", got)
	}
	again := newDriver(t, Options{Roles: roles(fakePlanted()), Columns: f.Hidden()}, 80, 24)
	again.ready()
	if s := again.screen(); strings.Contains(s, "username=") || !strings.Contains(s, "email=ada@x.io") {
		t.Errorf("a UI started with the file shows username:\n%s", s)
	}
	none := newDriver(t, Options{Roles: roles(fakePlanted())}, 80, 24)
	none.ready()
	none.press(":")
	none.typeText("hide! username")
	none.press("enter")
	if !strings.Contains(fields(none.screen()), "not saved: no config file") {
		t.Errorf("with no file to save to, :hide! does not say so:\n%s", none.screen())
	}
}

// TestAProblemsValueReadsWholeAt80x24: the problems view cuts a long lock
// key in its middle at 80 columns; selected, the key shows whole under it.
func TestAProblemsValueReadsWholeAt80x24(t *testing.T) {
	t.Parallel()
	email := "katherine.coleman.goble.johnson.langley@example.org"
	store := fake(acct("ACCT#a1", "ada@x.io", "ada"), lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), lock("UNIQ#HANDLE#ada", "ACCT#a1"),
		lock("UNIQ#EMAIL#"+email, "ACCT#gone"))
	d := newDriver(t, Options{Roles: roles(store)}, 80, 24)
	d.ready()
	d.press("3")
	d.selectRow("orphan")
	lines := d.lines()
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "▸") })
	if strings.Contains(lines[at], email) {
		t.Fatalf("the key fits its line at 80 columns: the test shows nothing:\n%s", d.screen())
	}
	if got := strings.TrimSpace(lines[at+1]); got != "UNIQ#EMAIL#"+email {
		t.Errorf("the selected problem shows %q under it, want its lock's key whole:\n%s", got, d.screen())
	}
}
