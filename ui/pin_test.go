package ui

import (
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/search"
)

// pinned returns the rows of the pinned group: from its title to the
// "accounts" heading.
func (d *driver) pinned(title string) []string {
	d.t.Helper()
	first, ls := d.rowIndex(title), d.lines()
	if first < 0 {
		d.t.Fatalf("no pin %q on screen:\n%s", title, d.screen())
	}
	var out []string
	for _, l := range ls[first+1:] {
		f := fields(strings.TrimPrefix(l, "▸ "))
		if f == "accounts" || strings.HasPrefix(f, "orphan locks (") {
			break
		}
		out = append(out, f)
	}
	return out
}

// problem returns the first problem of kind the check reported.
func (d *driver) problem(kind model.ProblemKind) model.Problem {
	d.t.Helper()
	for _, p := range d.m.check.Report().Problems {
		if p.Kind == kind {
			return p
		}
	}
	d.t.Fatalf("the check reported no %s", kind)
	return model.Problem{}
}

// jump pins the rows of p, as enter on a row of the problems view does.
func (d *driver) jump(p model.Problem) {
	d.t.Helper()
	d.send(search.JumpMsg{Problem: p})
	d.until("the jump", func(m *Model) bool { return !m.layers.search.Busy() })
	d.settle()
}

// TestJumpToADuplicateListsEachHolderOnce: the rows of a duplicate_value
// problem are each of its holders once, the lock's owner too.
func TestJumpToADuplicateListsEachHolderOnce(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.jump(d.problem(model.DuplicateValue))
	var ids []string
	for _, r := range d.pinned("duplicate_value email=dup@x.io") {
		if strings.HasPrefix(r, "ACCT#") {
			ids = append(ids, strings.Fields(r)[0])
		}
	}
	if strings.Join(ids, " ") != "ACCT#d4 ACCT#e5" {
		t.Errorf("the pin lists %v, want ACCT#d4 ACCT#e5 once each:\n%s", ids, d.screen())
	}
}

// reload presses r and waits for the accounts and the check again.
func (d *driver) reload(store interface{ Calls(string) int }) {
	d.t.Helper()
	checks := store.Calls("Check")
	d.press("r")
	d.until("the reload", func(m *Model) bool {
		return !m.views.accounts.Pager().Paging().Loading() && m.check.Report() != nil && store.Calls("Check") > checks
	})
	d.settle()
}

// TestReloadReadsThePinAgain: r reads the pinned rows again, as it does
// the list: an account renamed from outside shows its new value in the
// pin, and a problem fixed from outside no longer shows in its rows.
func TestReloadReadsThePinAgain(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 50)
	d.ready()
	d.search("ada")
	store.Put(tablePlaceholder, acct("ACCT#a1", "ada2@x.io", "ada"), lock("UNIQ#EMAIL#ada2@x.io", "ACCT#a1"))
	d.reload(store.Control)
	if got := d.pinned("search: ada"); len(got) == 0 || !strings.HasPrefix(got[0], "ACCT#a1 email=ada2@x.io") {
		t.Errorf("after r the pin shows %q, want the new email:\n%s", got, d.screen())
	}

	d.jump(d.problem(model.ForeignLock))
	store.Put(tablePlaceholder, lock("UNIQ#EMAIL#carol@x.io", "ACCT#c3"))
	d.reload(store.Control)
	if strings.Contains(d.lines()[1], "foreign 1") {
		t.Fatalf("the check still counts the foreign lock: %q", d.lines()[1])
	}
	for _, r := range d.pinned("foreign_lock email=carol@x.io") {
		if strings.HasSuffix(r, "foreign") {
			t.Errorf("after r the pinned row still says foreign: %q\n%s", r, d.screen())
		}
	}
}

// TestReloadDropsAPinnedOrphanTheCheckNoLongerFinds: an orphan lock
// pinned by a jump goes once the check run by r no longer reports it.
func TestReloadDropsAPinnedOrphanTheCheckNoLongerFinds(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 50)
	d.ready()
	ghost := d.problem(model.OrphanLock)
	for _, p := range d.m.check.Report().Problems {
		if p.Kind == model.OrphanLock && p.Value == "ghost" {
			ghost = p
		}
	}
	d.jump(ghost)
	title := "orphan_lock username=ghost"
	if got := d.pinned(title); len(got) != 1 || !strings.HasSuffix(got[0], "orphan") {
		t.Fatalf("the pin shows %q:\n%s", got, d.screen())
	}
	store.Put(tablePlaceholder, acct("ACCT#h8", "h@x.io", "ghost"))
	d.reload(store.Control)
	for _, r := range d.pinned(title) {
		if strings.Contains(r, "UNIQ#HANDLE#ghost") {
			t.Errorf("after r the pin still shows the orphan: %q\n%s", r, d.screen())
		}
	}
}

// TestCancelledWriteReadsTheRowsAgain: a rename cancelled because the
// account changed meanwhile shows the account as it is now once closed.
func TestCancelledWriteReadsTheRowsAgain(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	renameADA(d, "email", "ada3@x.io")
	waitScreen(d, "the preview", "put lock UNIQ#EMAIL#ada3@x.io (owner ACCT#a1)")
	store.Put(tablePlaceholder, acct("ACCT#a1", "ada9@x.io", "ada"), lock("UNIQ#EMAIL#ada9@x.io", "ACCT#a1"))
	d.press("enter")
	waitScreen(d, "the cancellation", "CANCELLED")
	d.press("enter")
	d.until("the dialog closed", func(m *Model) bool { return !m.layers.write.Open() })
	d.settle()
	if got := d.pinned("search: ada"); len(got) == 0 || !strings.HasPrefix(got[0], "ACCT#a1 email=ada9@x.io") {
		t.Errorf("after the cancelled write the pin shows %q, want the account as it is now:\n%s", got, d.screen())
	}
}

// TestDeletedPinSaysNothingIsLeft: once the only account a search found is
// deleted, the search's heading says nothing is left under it.
func TestDeletedPinSaysNothingIsLeft(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	deletePinned(d, "gina@x.io", "ACCT#g7")
	d.press("enter")
	d.until("the account gone from the screen", func(m *Model) bool { return !strings.Contains(d.screen(), "ACCT#g7") })
	d.settle()
	if got := d.pinned("search: gina@x.io"); len(got) != 1 || !strings.HasPrefix(got[0], "nothing left") {
		t.Errorf("under the search's heading: %q\n%s", got, d.screen())
	}
}

// TestReloadKeepsTheSelection: r after G reads every page again and
// selects the row that was selected, not the first.
func TestReloadKeepsTheSelection(t *testing.T) {
	t.Parallel()
	store := fakeMany(400)
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 80, 20)
	d.ready()
	d.press("G")
	d.until("every page", func(m *Model) bool {
		return m.views.accounts.Pager().Paging().Done() && !m.views.accounts.Pager().Paging().Loading()
	})
	d.settle()
	d.press("k")
	before := fields(d.selected())
	d.press("r")
	d.until("the reload", func(m *Model) bool { return !m.views.accounts.Pager().Paging().Loading() })
	d.settle()
	if got := fields(d.selected()); got != before {
		t.Errorf("after r selected %q, want %q still", got, before)
	}
}
