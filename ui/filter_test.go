package ui

import (
	"fmt"
	"strings"
	"testing"
)

// status is the status line: the line above the help line.
func (d *driver) status() string {
	ls := d.lines()
	return ls[len(ls)-2]
}

// TestFilterAsYouType: / narrows the accounts to the loaded rows that
// contain what is typed, in any case, an account with its locks, the
// count beside the field; esc in the field clears it, enter keeps it, and
// esc on the list clears a kept one.
func TestFilterAsYouType(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted()), NoCheck: true}, 200, 30)
	d.ready()
	all := d.m.views.accounts.Pager().Len()
	d.press("/")
	d.typeText("CAR")
	d.wantRows("ACCT#c3 email=carol@x.io username=carol", "└ UNIQ#EMAIL#carol@x.io", "└ UNIQ#HANDLE#carol")
	if d.rowIndex("ACCT#a1") >= 0 || d.rowIndex("ACCT#d4") >= 0 {
		t.Errorf("the filter CAR shows other accounts:\n%s", d.screen())
	}
	if st := d.status(); !strings.Contains(st, "/CAR") || !strings.Contains(st, "3 of 21 rows") {
		t.Errorf("the field says %q, want the text and 3 of 21 rows", st)
	}
	d.press("esc")
	if d.m.layers.search.Typing() || d.m.views.accounts.Pager().Filter() != "" || d.m.views.accounts.Pager().Len() != all || d.rowIndex("ACCT#a1") < 0 {
		t.Fatalf("esc in the field: typing %v, filter %q, %d rows; want every row back\n%s", d.m.layers.search.Typing(), d.m.views.accounts.Pager().Filter(), d.m.views.accounts.Pager().Len(), d.screen())
	}

	d.press("/")
	d.typeText("dup@")
	d.press("enter")
	if d.m.layers.search.Typing() || d.m.layers.search.Busy() || d.m.views.accounts.Pager().Filter() != "dup@" {
		t.Fatalf("enter: typing %v, busy %v, filter %q; want the filter kept, nothing looked up", d.m.layers.search.Typing(), d.m.layers.search.Busy(), d.m.views.accounts.Pager().Filter())
	}
	d.wantRows("ACCT#d4 email=dup@x.io username=dave")
	d.wantRows("ACCT#e5 email=dup@x.io username=eve")
	if st := d.status(); !strings.Contains(st, "filter dup@: 6 of 21 rows") {
		t.Errorf("the status line says %q, want what the filter keeps", st)
	}
	if !strings.Contains(d.footer(), "esc clear the filter") {
		t.Errorf("the help line %q does not offer esc to clear the filter", d.footer())
	}
	d.press("down", "down", "down")
	if !strings.Contains(d.selected(), "ACCT#e5") {
		t.Errorf("down moves among the kept rows: selected %q, want eve's account", d.selected())
	}
	d.press("/")
	if v := d.m.layers.search.Value(); v != "dup@" {
		t.Errorf("/ over a kept filter opens the field with %q, want it", v)
	}
	d.press("enter", "esc")
	if d.m.views.accounts.Pager().Filter() != "" || d.m.views.accounts.Pager().Len() != all {
		t.Errorf("esc on the list left the filter %q (%d rows)", d.m.views.accounts.Pager().Filter(), d.m.views.accounts.Pager().Len())
	}
	if d.m.views.shown != viewAccounts {
		t.Errorf("esc went to view %d", d.m.views.shown)
	}
}

// TestFilterEachView: the locks and problems views filter their own rows,
// and keep their own filter when another view is shown.
func TestFilterEachView(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 30)
	d.ready()
	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	d.press("/")
	d.typeText("orphan")
	d.press("enter")
	d.wantRows("UNIQ#EMAIL#old@x.io")
	if n, _ := d.m.views.locks.Matched(); n != 2 || d.rowIndex("UNIQ#EMAIL#ada@x.io") >= 0 {
		t.Errorf("the locks filtered by orphan: %d kept\n%s", n, d.screen())
	}
	d.press("3")
	d.press("/")
	d.typeText("foreign")
	d.press("enter")
	if n, _ := d.m.views.problems.Matched(); n != 1 || !strings.Contains(d.selected(), "carol@x.io") {
		t.Errorf("the problems filtered by foreign: %d kept, selected %q\n%s", n, d.selected(), d.screen())
	}
	d.press("2")
	if d.m.views.locks.Filter() != "orphan" || d.m.views.accounts.Pager().Filter() != "" {
		t.Errorf("filters: locks %q, accounts %q; want each view its own", d.m.views.locks.Filter(), d.m.views.accounts.Pager().Filter())
	}
}

// TestFilterMatchingNothingLooksUp: when no loaded row contains the text,
// the field says so and enter looks it up in the whole table, pinning
// what it finds; the filter is dropped.
func TestFilterMatchingNothingLooksUp(t *testing.T) {
	t.Parallel()
	store := fakeMany(400)
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 120, 30)
	d.ready()
	if d.m.views.accounts.Pager().Paging().Done() {
		t.Fatal("every account is loaded: the test needs one that is not")
	}
	d.press("/")
	d.typeText("user399@x.io")
	if st := d.status(); !strings.Contains(st, "no loaded row matches; enter looks it up in the whole table") {
		t.Fatalf("the field says %q, want the offer to look it up", st)
	}
	d.press("enter")
	d.until("the lookup", func(m *Model) bool { return !m.layers.search.Busy() })
	d.settle()
	if store.Control.Calls("Find") != 1 || d.m.views.accounts.Pager().Filter() != "" {
		t.Fatalf("%d finds, filter %q; want one lookup and no filter", store.Control.Calls("Find"), d.m.views.accounts.Pager().Filter())
	}
	d.wantRows("search: user399@x.io", "ACCT#0399 email=user399@x.io username=user399")

	// A pin is shown whole: a filter kept over the accounts is dropped.
	d.press("/")
	d.typeText("user1")
	d.press("enter")
	d.search("user398@x.io")
	if d.m.views.accounts.Pager().Filter() != "" {
		t.Errorf("the filter %q stayed over the pin", d.m.views.accounts.Pager().Filter())
	}
	d.wantRows("search: user398@x.io", "ACCT#0398 email=user398@x.io username=user398")
}

// TestGoldenFilter renders a filter being typed and then kept, and the
// command line completing, at the smallest size locktable draws, a
// classic terminal and large ones.
func TestGoldenFilter(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{60, 16}, {80, 24}, {120, 40}, {200, 50}} {
		name := func(view string) string { return fmt.Sprintf("%s_%dx%d", view, size[0], size[1]) }
		d := newDriver(t, Options{Roles: roles(fakePlanted())}, size[0], size[1])
		d.ready()
		d.press("/")
		d.typeText("dup")
		d.golden(name("filter"))
		d.press("enter")
		d.golden(name("filter_kept"))
		d.press("esc", ":")
		d.typeText("pro")
		d.golden(name("command"))
	}
}

// TestFilterMatchesWhatRowsShow (issue 38, 9): in the locks, problems
// and accounts views, / keeps every row whose text on screen contains
// what is typed, a lock's key as its row shows it among it (HANDLE, UNIQ,
// #ghost matched nothing in the problems view, HAN only through orphan).
func TestFilterMatchesWhatRowsShow(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 160, 40)
	d.ready()
	for _, view := range []string{"2", "3", "1"} {
		d.press(view)
		d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
		all := d.lines()[listTop : listTop+d.m.listHeight()]
		for _, q := range []string{"HANDLE", "UNIQ", "#ghost", "HAN", "email#d", "old@x"} {
			d.press("/")
			d.typeText(q)
			shown := map[string]bool{}
			for _, l := range d.lines()[listTop : listTop+d.m.listHeight()] {
				shown[fields(strings.TrimPrefix(l, "▸"))] = true
			}
			for _, l := range all {
				row := fields(strings.TrimPrefix(l, "▸"))
				if strings.Contains(strings.ToLower(row), strings.ToLower(q)) && !shown[row] {
					t.Errorf("view %s, filter %q: the row %q is not kept\n%s", view, q, row, d.screen())
				}
			}
			d.press("esc")
		}
	}
}
