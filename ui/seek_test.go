package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
)

// fakeBeyondTheFirstPage is fakeMany(400) with two accounts that lack
// both their locks, far past the first page: four problems.
func fakeBeyondTheFirstPage() *uitest.Backend {
	store := fakeMany(400)
	store.Put(tablePlaceholder, acct("ACCT#0100b", "b100@x.io", "b100"), acct("ACCT#0350b", "b350@x.io", "b350"))
	return store
}

// TestNextProblemLoadsWhatItNeeds: before the check ends, n reads pages
// until a row shows a problem, instead of stopping at the rows loaded.
func TestNextProblemLoadsWhatItNeeds(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeBeyondTheFirstPage()), NoCheck: true}, 80, 20)
	d.ready()
	if d.m.views.accounts.Pager().Count() > 100 {
		t.Fatalf("the first page holds %d accounts: the test needs ACCT#0100b not loaded", d.m.views.accounts.Pager().Count())
	}
	d.press("n")
	d.until("the next problem", func(m *Model) bool { return !m.views.accounts.Pager().Paging().Loading() })
	d.settle()
	if got := fields(d.selected()); got != "▸ └ UNIQ#EMAIL#b100@x.io expected, not found missing" {
		t.Errorf("n selected %q, want ACCT#0100b's email lock\n%s", got, d.screen())
	}
}

// TestNextProblemWalksTheCheck: once the check is done, n and N walk its
// problems in order, pinning the rows of those not loaded.
func TestNextProblemWalksTheCheck(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeBeyondTheFirstPage())}, 80, 30)
	d.ready()
	key := func(k, title, want string) {
		t.Helper()
		d.press(k)
		d.until("the jump", func(m *Model) bool { return !m.layers.search.Busy() })
		d.settle()
		if d.rowIndex(title) != 2 {
			t.Fatalf("%s: no pin %q on top:\n%s", k, title, d.screen())
		}
		if got := fields(d.selected()); !strings.HasPrefix(got, "▸ "+want) {
			t.Fatalf("%s: selected %q, want %q\n%s", k, got, want, d.screen())
		}
	}
	key("n", "missing_lock email=b100@x.io", "ACCT#0100b")
	key("n", "missing_lock email=b100@x.io", "└ UNIQ#EMAIL#b100@x.io expected, not found missing")
	key("n", "missing_lock email=b100@x.io", "└ UNIQ#HANDLE#b100 expected, not found missing")
	key("n", "missing_lock email=b350@x.io", "ACCT#0350b")
	key("N", "missing_lock email=b100@x.io", "ACCT#0100b")
}

// TestHeadingsAreSkipped: moving the selection passes over the headings
// ("orphan locks (2)", "accounts"), which do nothing when selected.
func TestHeadingsAreSkipped(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 100, 30)
	d.ready()
	for i, s := range []struct{ key, want string }{
		{"k", "UNIQ#HANDLE#ghost no owner; nobody holds username orphan"}, // from ACCT#a1, over "accounts"
		{"k", "UNIQ#EMAIL#old@x.io owner ACCT#a1 does not hold it orphan"},
		{"k", "UNIQ#EMAIL#old@x.io owner ACCT#a1 does not hold it orphan"}, // the heading above is not selected
		{"j", "UNIQ#HANDLE#ghost"},
		{"j", "ACCT#a1 email=ada@x.io"},
		{"g", "UNIQ#EMAIL#old@x.io"},
	} {
		d.press(s.key)
		if got := fields(strings.TrimPrefix(d.selected(), "▸ ")); !strings.HasPrefix(got, s.want) {
			t.Fatalf("step %d (%s): selected %q, want %q", i, s.key, got, s.want)
		}
	}
}

// TestMoreOrphansOpenTheOrphanGroup: enter on "… n more orphan locks"
// shows the problems view on its orphan locks, not on its first group.
func TestMoreOrphansOpenTheOrphanGroup(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	for _, v := range []string{"g1", "g2", "g3", "g4", "g5", "g6"} {
		store.Put(tablePlaceholder, lock("UNIQ#HANDLE#"+v, ""))
	}
	d := newDriver(t, Options{Roles: roles(store)}, 100, 40)
	d.ready()
	more := d.rowIndex("… 3 more orphan locks")
	if more < 0 {
		t.Fatalf("no row for the orphans not listed:\n%s", d.screen())
	}
	d.m.views.accounts.Pager().SetCursor(more - 2) // the list starts on the third line
	if got := fields(d.selected()); !strings.HasPrefix(got, "▸ … 3 more orphan locks") {
		t.Fatalf("selected %q", got)
	}
	d.press("enter")
	if d.m.views.shown != viewProblems {
		t.Fatalf("enter on the more row: view %d", d.m.views.shown)
	}
	if p, ok := d.m.views.problems.Selected(); !ok || p.Kind != model.OrphanLock {
		t.Errorf("the problems view selects %v %v, want an orphan lock\n%s", p.Kind, ok, d.screen())
	}
}

// TestOneMoreOrphanIsOne (issue 38, 12): one orphan lock past those
// listed was "… 1 more orphan locks"; it is one lock, and more are locks.
func TestOneMoreOrphanIsOne(t *testing.T) {
	t.Parallel()
	for extra, want := range map[int]string{4: "… 1 more orphan lock: enter or 3", 5: "… 2 more orphan locks: enter or 3"} {
		store := fakePlanted() // two orphans
		for i := range extra {
			store.Put(tablePlaceholder, lock(fmt.Sprintf("UNIQ#HANDLE#g%d", i), ""))
		}
		d := newDriver(t, Options{Roles: roles(store)}, 100, 40)
		d.ready()
		if !strings.Contains(d.screen(), want) {
			t.Errorf("%d orphans, 5 listed: no row %q\n%s", extra+2, want, d.screen())
		}
	}
}

// TestNextProblemAtTheEndIsOneSweep: before the check ends, n across a
// table whose one problem is at its end reads every account at once (one
// scan: Backend.AccountsSweep), not a page after a page, and selects it.
func TestNextProblemAtTheEndIsOneSweep(t *testing.T) {
	t.Parallel()
	store := fakeMany(400)
	store.Put(tablePlaceholder, acct("ACCT#0399b", "b399@x.io", "b399"))
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 80, 20)
	d.ready()
	pages := store.Control.Calls("AccountsPage")
	d.press("n")
	d.until("every account", func(m *Model) bool { return m.views.accounts.Pager().Paging().Done() })
	d.settle()
	if got := fields(d.selected()); got != "▸ └ UNIQ#EMAIL#b399@x.io expected, not found missing" {
		t.Errorf("n selected %q, want ACCT#0399b's email lock\n%s", got, d.screen())
	}
	if n, sweeps := store.Control.Calls("AccountsPage")-pages, store.Control.Calls("AccountsSweep"); n != 0 || sweeps != 1 {
		t.Errorf("n read %d pages and %d sweeps, want one sweep", n, sweeps)
	}
}
