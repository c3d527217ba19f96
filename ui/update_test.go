package ui

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
)

// TestFirstPageInterleavesLocks: each account row is followed by one row
// per lock it should have, and the orphans the check confirmed appear on
// top without a keypress, the selection staying on the same account.
func TestFirstPageInterleavesLocks(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.until("the first page", func(m *Model) bool {
		return !m.views.accounts.Pager().Paging().Loading() && m.views.accounts.Pager().Count() > 0
	})
	d.wantRows(
		"ACCT#a1 email=ada@x.io username=ada",
		"└ UNIQ#EMAIL#ada@x.io owner ACCT#a1",
		"└ UNIQ#HANDLE#ada owner ACCT#a1",
		"ACCT#b2 email=bob@x.io username=bob",
	)
	if !strings.HasPrefix(fields(d.selected()), "▸ ACCT#a1") {
		t.Fatalf("selected %q, want ACCT#a1", d.selected())
	}

	d.until("the check", func(m *Model) bool { return m.check.Report() != nil })
	d.settle()
	d.wantRows(
		"orphan locks (2)",
		"UNIQ#EMAIL#old@x.io owner ACCT#a1 does not hold it orphan",
		"UNIQ#HANDLE#ghost no owner; nobody holds username orphan",
		"accounts",
		"ACCT#a1 email=ada@x.io username=ada",
	)
	if d.rowIndex("orphan locks (2)") != 2 {
		t.Errorf("the orphan group is not the first row of the list:\n%s", d.screen())
	}
	if !strings.HasPrefix(fields(d.selected()), "▸ ACCT#a1") {
		t.Errorf("after the orphans came, selected %q, want ACCT#a1 still", d.selected())
	}
	if !strings.Contains(d.lines()[1], "missing 1 · orphan 2 · foreign 1 · duplicate 1 · invalid 1") {
		t.Errorf("header does not count the problems: %q", d.lines()[1])
	}
}

// TestFirstPageIsRequestedOnce: Init asks for the first page; the window
// size that follows must not ask for it again.
func TestFirstPageIsRequestedOnce(t *testing.T) {
	t.Parallel()
	store := fake(acct("ACCT#a1", "ada@x.io", "ada"))
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 100, 30)
	d.ready()
	if n := store.Control.Calls("AccountsPage"); n != 1 {
		t.Errorf("%d page requests for a one-page table, want 1", n)
	}
}

// TestLockRowsSayStatusInWords: every status a lock row can have is shown
// as its word, right-aligned after the owner.
func TestLockRowsSayStatusInWords(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.ready()
	d.wantRows("ACCT#b2", "└ UNIQ#EMAIL#bob@x.io owner ACCT#b2 ok", "└ UNIQ#HANDLE#bob expected, not found missing")
	d.wantRows("ACCT#c3 email=carol@x.io username=carol problem", "└ UNIQ#EMAIL#carol@x.io owner ACCT#z9 (does not hold email) foreign", "└ UNIQ#HANDLE#carol no owner ok")
	d.wantRows("ACCT#d4 email=dup@x.io username=dave duplicate", "└ UNIQ#EMAIL#dup@x.io owner ACCT#d4 duplicate")
	d.wantRows("ACCT#e5 email=dup@x.io username=eve duplicate", "└ UNIQ#EMAIL#dup@x.io owner ACCT#d4 duplicate")
	d.wantRows(`ACCT#f6 email={"N":"5"} username=frank problem`, `└ (email) email is {"N":"5"}: cannot be locked invalid`)
	d.wantRows("ACCT#g7 email=gina@x.io username=-", "└ UNIQ#EMAIL#gina@x.io owner ACCT#g7 ok", "└ (username) no value: no lock expected none")
}

// TestNextProblem: n and N move to the next and previous row that shows a
// problem, in the accounts view and in the locks view.
func TestNextProblem(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.ready()
	steps := []struct{ key, want string }{
		{"n", "└ UNIQ#HANDLE#bob expected, not found missing"},
		{"n", "└ UNIQ#EMAIL#carol@x.io owner ACCT#z9 (does not hold email) foreign"},
		{"n", "└ UNIQ#EMAIL#dup@x.io owner ACCT#d4 duplicate"}, // d4's
		{"n", "└ UNIQ#EMAIL#dup@x.io owner ACCT#d4 duplicate"}, // e5's
		{"n", `└ (email) email is {"N":"5"}: cannot be locked invalid`},
		{"n", `└ (email) email is {"N":"5"}: cannot be locked invalid`}, // none further
		{"N", "└ UNIQ#EMAIL#dup@x.io owner ACCT#d4 duplicate"},
		{"g", "UNIQ#EMAIL#old@x.io owner ACCT#a1 does not hold it orphan"}, // not the heading above
		{"n", "UNIQ#HANDLE#ghost no owner; nobody holds username orphan"},
		{"N", "UNIQ#EMAIL#old@x.io owner ACCT#a1 does not hold it orphan"},
	}
	for i, s := range steps {
		d.press(s.key)
		if got := fields(strings.TrimPrefix(d.selected(), "▸ ")); got != s.want {
			t.Fatalf("step %d (%s): selected %q, want %q", i, s.key, got, s.want)
		}
	}
	d.press("G", "n")
	if !strings.Contains(d.screen(), "no further problem among the rows loaded") {
		t.Errorf("n on the last row does not say there is nothing further:\n%s", d.screen())
	}

	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	for i, want := range []string{
		"UNIQ#EMAIL#carol@x.io email owner ACCT#z9 foreign",
		"UNIQ#EMAIL#dup@x.io email owner ACCT#d4 duplicate",
		"UNIQ#EMAIL#old@x.io email owner ACCT#a1 orphan",
		"UNIQ#HANDLE#ghost username no owner orphan",
	} {
		d.press("n")
		if got := fields(strings.TrimPrefix(d.selected(), "▸ ")); got != want {
			t.Fatalf("locks view, n #%d: selected %q, want %q", i+1, got, want)
		}
	}
	d.press("N", "N", "N")
	if got := fields(strings.TrimPrefix(d.selected(), "▸ ")); !strings.HasPrefix(got, "UNIQ#EMAIL#carol@x.io") {
		t.Errorf("locks view, N N N: selected %q", got)
	}
}

// TestDetail: enter opens the selected row in full and esc comes back to
// the same row.
func TestDetail(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.ready()

	d.press("enter") // ACCT#a1
	screen := d.screen()
	for _, want := range []string{"account ACCT#a1", `"PK": {"S": "ACCT#a1"},`, `"email": {"S": "ada@x.io"},`, `"username": {"S": "ada"}`, "esc: back"} {
		if !strings.Contains(screen, want) {
			t.Errorf("account detail lacks %q:\n%s", want, screen)
		}
	}
	d.press("esc")
	if d.m.layers.detail.Shown() || d.m.views.shown != viewAccounts || !strings.HasPrefix(fields(d.selected()), "▸ ACCT#a1") {
		t.Fatalf("esc: detail %v, view %d, selected %q", d.m.layers.detail.Shown(), d.m.views.shown, d.selected())
	}

	d.press("n", "enter") // bob's missing username lock
	screen = d.screen()
	for _, want := range []string{
		"lock UNIQ#HANDLE#bob  (missing)",
		"expected key (table " + tablePlaceholder + "):",
		`"PK": {"S": "UNIQ#HANDLE#bob"},`,
		"why: missing_lock: ACCT#b2 holds username = bob",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("missing lock detail lacks %q:\n%s", want, screen)
		}
	}
	d.press("esc")
	if got := fields(d.selected()); got != "▸ └ UNIQ#HANDLE#bob expected, not found missing" {
		t.Errorf("esc from the lock: selected %q", got)
	}

	d.press("g", "enter") // the orphan UNIQ#EMAIL#old@x.io (g skips its heading): read on demand
	d.until("the orphan's detail", func(m *Model) bool { return m.layers.detail.Shown() })
	screen = d.screen()
	for _, want := range []string{`"PK": {"S": "UNIQ#EMAIL#old@x.io"},`, `"owner": {"S": "ACCT#a1"}`, "why: orphan_lock: no account holds email = old@x.io"} {
		if !strings.Contains(screen, want) {
			t.Errorf("orphan detail lacks %q:\n%s", want, screen)
		}
	}
	d.press("esc")
	if d.m.layers.detail.Shown() || d.m.views.shown != viewAccounts {
		t.Errorf("esc from the orphan's detail: detail %v, view %d:\n%s", d.m.layers.detail.Shown(), d.m.views.shown, d.screen())
	}

	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	d.press("j", "j", "enter") // UNIQ#EMAIL#carol@x.io
	screen = d.screen()
	for _, want := range []string{"lock UNIQ#EMAIL#carol@x.io  (foreign)", `"owner": {"S": "ACCT#z9"}`} {
		if !strings.Contains(screen, want) {
			t.Errorf("lock detail lacks %q:\n%s", want, screen)
		}
	}
	d.press("esc")
	if d.m.layers.detail.Shown() || d.m.views.shown != viewLocks {
		t.Errorf("esc from a lock of the locks view: detail %v, view %d", d.m.layers.detail.Shown(), d.m.views.shown)
	}
}

// TestSwitchViews: tab cycles the three list views; 1, 2, 3 pick one; the
// locks view loads the first time it is shown.
func TestSwitchViews(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.ready()
	if d.m.views.locks.Paging().Shown() || d.m.views.locks.Count() > 0 || store.Control.Calls("LocksPage") > 0 {
		t.Fatal("locks are read before the locks view is shown")
	}
	marks := map[view]string{
		viewAccounts: "ACCT#a1 email=ada@x.io username=ada",
		viewLocks:    "UNIQ#EMAIL#ada@x.io email owner ACCT#a1 ok",
		viewProblems: "missing_lock (1)",
	}
	for i, s := range []struct {
		key  string
		want view
	}{
		{"tab", viewLocks}, {"tab", viewProblems}, {"tab", viewAccounts},
		{"2", viewLocks}, {"3", viewProblems}, {"1", viewAccounts}, {"3", viewProblems}, {"esc", viewAccounts},
	} {
		d.press(s.key)
		d.until("the locks", func(m *Model) bool { return !m.views.locks.Loading() })
		if d.m.views.shown != s.want {
			t.Fatalf("step %d (%s): view %d, want %d", i, s.key, d.m.views.shown, s.want)
		}
		if d.rowIndex(marks[s.want]) < 0 {
			t.Fatalf("step %d (%s): no %q on screen:\n%s", i, s.key, marks[s.want], d.screen())
		}
	}
	if n := d.m.views.locks.Count(); n != 12 {
		t.Errorf("%d locks loaded, want 12", n)
	}
	// enter on a problem jumps to its rows, pinned on top of the accounts.
	d.press("3", "enter") // the first problem is selected: headings take no cursor
	d.until("the jump", func(m *Model) bool { return !m.layers.search.Busy() })
	d.settle()
	if d.m.views.shown != viewAccounts {
		t.Fatalf("enter on a problem: view %d", d.m.views.shown)
	}
	d.wantRows("missing_lock username=bob", "ACCT#b2", "└ UNIQ#EMAIL#bob@x.io", "└ UNIQ#HANDLE#bob expected, not found missing")
}

// TestSearch: / finds an account by an email, a handle, its key, and a
// lock that names no owner and that nobody holds.
func TestSearch(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.ready()
	// esc right after a first search clears it: the answer arrives after
	// the last key, and must still make esc work.
	d.search("ada")
	d.wantRows("search: ada", "ACCT#a1 email=ada@x.io username=ada")
	d.press("esc")
	if d.rowIndex("search:") >= 0 {
		t.Fatalf("esc after the first search does not clear it:\n%s", d.screen())
	}
	tests := []struct {
		q    string
		want []string
	}{
		{"ada@x.io", []string{"search: ada@x.io", "ACCT#a1 email=ada@x.io username=ada", "└ UNIQ#EMAIL#ada@x.io"}},
		{"eve", []string{"search: eve", "ACCT#e5 email=dup@x.io username=eve duplicate", "└ UNIQ#EMAIL#dup@x.io owner ACCT#d4 duplicate", "└ UNIQ#HANDLE#eve owner ACCT#e5 ok"}},
		{"carol", []string{"search: carol", "ACCT#c3 email=carol@x.io username=carol"}}, // its lock names no owner: found by value
		{"ACCT#f6", []string{"search: ACCT#f6", `ACCT#f6 email={"N":"5"} username=frank`, "└ (email)"}},
		{"ghost", []string{"search: ghost", "UNIQ#HANDLE#ghost no owner; nobody holds username orphan"}},
		{"nobody@x.io", []string{"search: nobody@x.io", "nothing matches nobody@x.io"}},
	}
	for _, tt := range tests {
		d.search(tt.q)
		if err := d.m.layers.search.Err(); err != nil {
			t.Fatalf("search %s: %v", tt.q, err)
		}
		d.wantRows(tt.want...)
		if d.rowIndex(tt.want[0]) != 2 {
			t.Errorf("search %s: the result is not on top:\n%s", tt.q, d.screen())
		}
		if tt.q != "nobody@x.io" && !strings.HasPrefix(fields(d.selected()), "▸ "+tt.want[1][:10]) {
			t.Errorf("search %s: selected %q, want the first result", tt.q, d.selected())
		}
		// The accounts stay below the result.
		if d.rowIndex("ACCT#a1 email=ada@x.io") < 0 && tt.q != "ada@x.io" {
			t.Errorf("search %s: the accounts are gone:\n%s", tt.q, d.screen())
		}
	}
	d.press("esc")
	if d.rowIndex("search:") >= 0 || d.rowIndex("orphan locks (2)") != 2 {
		t.Errorf("esc does not clear the search result:\n%s", d.screen())
	}

	// esc in the field cancels without searching.
	d.press("/")
	d.typeText("ada")
	d.press("esc")
	if d.m.layers.search.Typing() || d.m.layers.search.Busy() || d.rowIndex("search:") >= 0 {
		t.Errorf("esc in the search field searched:\n%s", d.screen())
	}
	// Keys typed in the field are text, not commands.
	d.press("/")
	d.typeText("q2?")
	if d.quit || d.m.views.shown != viewAccounts || d.m.layers.search.Value() != "q2?" {
		t.Errorf("typing q2? in the field: quit %v, view %d, value %q", d.quit, d.m.views.shown, d.m.layers.search.Value())
	}
	d.press("esc")
}

// TestGLoadsToTheEnd: G moves to the last row and keeps loading pages
// until the table ends, staying on the last row.
func TestGLoadsToTheEnd(t *testing.T) {
	t.Parallel()
	store := fakeMany(400)
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 80, 20)
	d.ready()
	first := d.m.views.accounts.Pager().Count()
	if first >= 400 || d.m.views.accounts.Pager().Paging().Done() {
		t.Fatalf("the first page holds %d of 400 accounts: the test needs more than one page", first)
	}
	if !strings.Contains(d.screen(), "accounts loaded, more below") {
		t.Errorf("status does not say more are below:\n%s", d.screen())
	}
	d.press("G")
	d.until("every page", func(m *Model) bool {
		return m.views.accounts.Pager().Paging().Done() && !m.views.accounts.Pager().Paging().Loading()
	})
	d.settle()
	if n := d.m.views.accounts.Pager().Count(); n != 400 {
		t.Fatalf("%d accounts after G, want 400", n)
	}
	if c, n := d.m.views.accounts.Pager().Cursor(), d.m.views.accounts.Pager().Len(); c != n-1 {
		t.Errorf("cursor %d after G, want the last row %d", c, n-1)
	}
	if got := fields(d.selected()); !strings.HasPrefix(got, "▸ └ UNIQ#HANDLE#") {
		t.Errorf("selected %q, want the last account's username lock", got)
	}
	if !strings.Contains(d.screen(), "400 accounts loaded\n") {
		t.Errorf("status:\n%s", d.screen())
	}
	d.press("g")
	if d.m.views.accounts.Pager().Cursor() != 0 || !strings.HasPrefix(fields(d.selected()), "▸ ACCT#") {
		t.Errorf("g: cursor %d", d.m.views.accounts.Pager().Cursor())
	}
}

// TestReload: r reads everything again, showing what changed, and runs the
// check again; answers to requests made before it are dropped.
func TestReload(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.ready()
	store.Put(tablePlaceholder, acct("ACCT#b3", "bea@x.io", "bea"), lock("UNIQ#EMAIL#bea@x.io", "ACCT#b3"))
	if d.rowIndex("ACCT#b3") >= 0 {
		t.Fatal("the new account is on screen before the reload")
	}
	d.press("j", "j", "r")
	d.until("the reload", func(m *Model) bool {
		return !m.views.accounts.Pager().Paging().Loading() && m.check.Report() != nil && store.Control.Calls("Check") == 2
	})
	d.settle()
	d.wantRows("ACCT#b3 email=bea@x.io username=bea problem", "└ UNIQ#EMAIL#bea@x.io owner ACCT#b3 ok", "└ UNIQ#HANDLE#bea expected, not found missing")
	if !strings.Contains(d.lines()[1], "missing 2") {
		t.Errorf("the check did not run again: %q", d.lines()[1])
	}
	if n := d.m.views.accounts.Pager().Count(); n != 8 {
		t.Errorf("%d accounts after reload, want 8 (none twice)", n)
	}

	// In the locks view, r reads the locks again.
	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	store.Put(tablePlaceholder, lock("UNIQ#HANDLE#bea", "ACCT#b3"))
	d.press("r")
	d.until("the locks again", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	if d.rowIndex("UNIQ#HANDLE#bea username owner ACCT#b3") < 0 || d.m.views.locks.Count() != 14 {
		t.Errorf("after r in the locks view, %d locks:\n%s", d.m.views.locks.Count(), d.screen())
	}
}

// TestTooSmall: below 60x16 the UI says so instead of drawing, and still
// quits with q.
func TestTooSmall(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 100, 30)
	d.ready()
	for _, size := range []tea.WindowSizeMsg{{Width: 59, Height: 30}, {Width: 100, Height: 15}, {Width: 20, Height: 5}} {
		d.send(size)
		d.settle()
		want := "terminal too small: " + strconv.Itoa(size.Width) + "x" + strconv.Itoa(size.Height) + ", locktable needs at least 60x16"
		if s := d.screen(); !strings.HasPrefix(fields(s), want) || strings.Contains(s, "ACCT#") {
			t.Errorf("at %dx%d:\n%s", size.Width, size.Height, s)
		}
	}
	d.send(tea.WindowSizeMsg{Width: 60, Height: 16})
	d.settle()
	if s := d.screen(); strings.Contains(s, "too small") || !strings.Contains(s, "ACCT#a1") || strings.Count(s, "\n") > 15 {
		t.Errorf("at 60x16 (%d lines):\n%s", strings.Count(s, "\n")+1, s)
	}
	for _, l := range d.lines() {
		if w := len([]rune(l)); w > 60 {
			t.Errorf("line wider than 60: %q", l)
		}
	}
	d.send(tea.WindowSizeMsg{Width: 40, Height: 10})
	d.press("q")
	if !d.quit {
		t.Error("q does not quit when the terminal is too small")
	}
}

// TestErrorsRetryAndHideCredentials: a failed page is said on the status
// line, without the credentials the SDK's text quoted, and r retries it.
func TestErrorsRetryAndHideCredentials(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	store.Control.Fail("AccountsPage", errors.New(`get credentials: parse failed of process output: {"AccessKeyId":"AKIAEXAMPLE","SecretAccessKey":"s3cr3tV4lue","SessionToken":"t0k3nV4lue",`))
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 250, 30)
	d.settle()
	s := d.screen()
	if !strings.Contains(s, "error: get credentials: parse failed") || !strings.Contains(s, "(r to retry)") {
		t.Fatalf("the failure is not said:\n%s", s)
	}
	for _, secret := range []string{"AKIAEXAMPLE", "s3cr3tV4lue", "t0k3nV4lue"} {
		if strings.Contains(s, secret) {
			t.Errorf("the screen shows %s:\n%s", secret, s)
		}
	}
	store.Control.Fail("AccountsPage", nil)
	d.press("r")
	if d.rowIndex("ACCT#a1 email=ada@x.io") < 0 || strings.Contains(d.screen(), "error:") {
		t.Errorf("r did not retry:\n%s", d.screen())
	}
}

// TestDetailReadUnderTheDialogIsDropped: a detail asked for before the
// write dialog opened (enter, then e at once) comes after it, and is not
// opened under the dialog, which keeps the keys.
func TestDetailReadUnderTheDialogIsDropped(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.selectRow("ACCT#a1")
	d.press("e")
	if !d.m.layers.write.Open() {
		t.Fatalf("e opened no form:\n%s", d.screen())
	}
	d.send(detail.OpenMsg{Title: "account ACCT#a1", Render: func(model.Item) []string { return []string{"late"} }})
	d.settle()
	if d.m.layers.detail.Shown() || !d.m.layers.write.Open() || d.m.top(layerSearch) != layerWrite {
		t.Errorf("a late detail: shown %v, dialog open %v; want the dialog alone on top\n%s", d.m.layers.detail.Shown(), d.m.layers.write.Open(), d.screen())
	}
}
