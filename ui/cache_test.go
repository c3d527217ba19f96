package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/items"
)

// renameSelected renames the account of the selected row: attr (email or
// username) becomes v, sent and committed, the dialog closed, and waits
// for the check that follows.
func renameSelected(d *driver, attr, v string) {
	d.t.Helper()
	sendRename(d, attr, v)
	closeResult(d)
}

// fixSelected fixes the selected problem (f), its preview saying what,
// sends it and closes its result.
func fixSelected(d *driver, what string) {
	d.t.Helper()
	d.press("f")
	waitScreen(d, "the preview", what)
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
	closeResult(d)
}

// closeResult closes a write's result, and waits for the check that
// follows.
func closeResult(d *driver) {
	d.t.Helper()
	d.press("enter")
	d.until("the check after the write", func(m *Model) bool {
		return !m.layers.write.Open() && !m.check.Bar().Running && m.check.Report() != nil
	})
	d.settle()
}

// sendRename renames the selected account's attr to v, and waits for the
// result, on screen until enter.
func sendRename(d *driver, attr, v string) {
	d.t.Helper()
	d.press("e")
	if attr == "username" {
		d.press("tab")
	}
	waitScreen(d, "the form", "rename ACCT#")
	d.send(ctrlU())
	d.typeText(v)
	d.press("enter")
	waitScreen(d, "the preview", "put lock")
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
}

// saying returns the first row of the list whose status is status, "" for
// none.
func (d *driver) saying(status string) string {
	for _, l := range d.lines()[2:] {
		if f := strings.Fields(l); len(f) > 0 && f[len(f)-1] == status {
			return fields(l)
		}
	}
	return ""
}

// TestRenameOffADuplicateClearsItEverywhere (issue 19, 1): once an
// account is renamed off a duplicate value, no row shows the value's
// other holder as a duplicate any more, and the pinned heading of the
// problem says it is fixed.
func TestRenameOffADuplicateClearsItEverywhere(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.jump(d.problem(model.DuplicateValue))
	title := "duplicate_value email=dup@x.io"
	if got := strings.Join(d.pinned(title), "\n"); strings.Count(got, "duplicate") < 2 {
		t.Fatalf("before the rename the pin shows no duplicate:\n%s", d.screen())
	}
	d.selectRow("ACCT#e5")
	renameSelected(d, "email", "eve@x.io")
	if n := d.m.check.Report().Counts()[model.DuplicateValue]; n != 0 {
		t.Fatalf("the check still finds %d duplicates", n)
	}
	if r := d.saying("duplicate"); r != "" {
		t.Errorf("row %q still says duplicate:\n%s", r, d.screen())
	}
	if d.rowIndex(title+" (fixed") < 0 {
		t.Errorf("the pinned heading does not say the problem is fixed:\n%s", d.screen())
	}
	d.press("2")
	d.until("the locks", func(m *Model) bool { return !m.views.locks.Loading() && m.views.locks.Count() > 0 })
	if r := d.saying("duplicate"); r != "" {
		t.Errorf("lock %q still says duplicate:\n%s", r, d.screen())
	}
	// The lock of the value once held twice is there, judged ok: not a
	// row that says nothing yet.
	lock := ""
	for _, l := range d.lines()[2:] {
		if strings.Contains(l, "UNIQ#EMAIL#dup@x.io") {
			lock = fields(l)
		}
	}
	if !strings.HasSuffix(lock, " ok") {
		t.Errorf("the lock of dup@x.io shows %q, want it ok:\n%s", lock, d.screen())
	}
}

// TestASearchUpdatesTheListRow (issue 19, 2): an account changed outside
// the UI and found by a search shows as it is now in its list row too,
// and the check runs again, so the header's counts follow.
func TestASearchUpdatesTheListRow(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	missing := d.m.check.Report().Counts()[model.MissingLock]
	// ada renamed by someone else, without her new lock.
	store.Put(tablePlaceholder, acct("ACCT#a1", "ada@x.io", "ada.ext"))
	d.search("ACCT#a1")
	if got := d.pinned("search: ACCT#a1"); len(got) < 3 || !strings.Contains(got[2], "missing") {
		t.Fatalf("the search does not show the account as it is now: %q", got)
	}
	var listed []string
	for _, l := range d.lines()[d.rowIndex("accounts")+1:] {
		if f := fields(strings.TrimPrefix(l, "▸ ")); strings.Contains(f, "ada") {
			listed = append(listed, f)
		}
	}
	if j := strings.Join(listed, "\n"); !strings.Contains(j, "ada.ext") || !strings.Contains(j, "missing") {
		t.Errorf("the list row still shows the account as it was:\n%s", d.screen())
	}
	d.until("the check again", func(m *Model) bool {
		return m.check.Report() != nil && m.check.Report().Counts()[model.MissingLock] == missing+1
	})
}

// TestAWriteReadsTheRowsThatNameItsKeys (issue 19): after a write, the
// rows of other accounts that name what it changed are read again: the
// other holder of a value, whose lock named the account renamed.
func TestAWriteReadsTheRowsThatNameItsKeys(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	d.jump(d.problem(model.DuplicateValue))
	d.selectRow("ACCT#d4")
	renameSelected(d, "email", "dave@x.io")
	want, _, _ := store.Account(context.Background(), "ACCT#e5")
	row := ""
	for _, l := range d.pinned("duplicate_value email=dup@x.io") {
		if strings.HasPrefix(l, "└ UNIQ#EMAIL#dup@x.io") {
			row = l
			break
		}
	}
	if st := string(want.Locks[0].Status); !strings.HasSuffix(row, " "+st) || !strings.Contains(row, want.Locks[0].Owner) {
		t.Errorf("ACCT#e5's email lock row is %q; the table has its lock %s, owner %q:\n%s", row, st, want.Locks[0].Owner, d.screen())
	}
}

// TestAFailedReloadKeepsTheRows (issue 19, 4): a reload that cannot read
// (the emulator is down) leaves the rows shown, says they are stale and
// why, in full; r once it is back reads them again.
func TestAFailedReloadKeepsTheRows(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 80, 24)
	d.ready()
	down := errors.New(`operation error DynamoDB: Scan, exceeded maximum number of attempts, 3, https response error StatusCode: 0, RequestID: , request send failed, Post "http://127.0.0.1:8000/": dial tcp 127.0.0.1:8000: connect: connection refused`)
	store.Control.Fail("AccountsPage", down)
	store.Control.Fail("Check", down)
	d.press("r")
	d.until("the reload's answer", func(m *Model) bool { return !m.views.accounts.Pager().Paging().Loading() })
	d.settle()
	if d.m.views.accounts.Pager().Count() != 7 || d.rowIndex("ACCT#a1") < 0 {
		t.Fatalf("after the failed reload %d accounts are listed:\n%s", d.m.views.accounts.Pager().Count(), d.screen())
	}
	s := fields(d.screen())
	if !strings.Contains(s, "stale: reading these rows again failed") || !strings.Contains(s, fields(down.Error())) {
		t.Errorf("the screen does not say in full why the rows are stale:\n%s", d.screen())
	}
	store.Control.Fail("AccountsPage", nil)
	store.Control.Fail("Check", nil)
	d.press("r")
	d.until("the reload", func(m *Model) bool {
		return !m.views.accounts.Pager().Paging().Loading() && m.views.accounts.Pager().Paging().Stale() == nil
	})
	d.settle()
	if s := d.screen(); strings.Contains(s, "stale") || d.m.views.accounts.Pager().Count() != 7 {
		t.Errorf("after a reload that worked:\n%s", s)
	}
}

// TestAFailedReloadKeepsTheLocks (issue 19, 4): the same in the locks view.
func TestAFailedReloadKeepsTheLocks(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	d.press("2")
	d.until("the locks", func(m *Model) bool { return !m.views.locks.Loading() && m.views.locks.Count() > 0 })
	n := d.m.views.locks.Count()
	store.Control.Fail("LocksPage", errors.New("connection refused"))
	d.press("r")
	d.until("the reload's answer", func(m *Model) bool { return !m.views.locks.Loading() })
	d.settle()
	if d.m.views.locks.Count() != n || d.rowIndex("UNIQ#EMAIL#ada@x.io") < 0 || !strings.Contains(d.screen(), "stale") {
		t.Fatalf("after the failed reload %d locks of %d are listed:\n%s", d.m.views.locks.Count(), n, d.screen())
	}
	store.Control.Fail("LocksPage", nil)
	d.press("r")
	d.until("the reload", func(m *Model) bool { return !m.views.locks.Loading() && m.views.locks.Paging().Stale() == nil })
	d.settle()
	if d.m.views.locks.Count() != n || strings.Contains(d.screen(), "stale") {
		t.Errorf("after a reload that worked:\n%s", d.screen())
	}
}

// TestUndoneDeleteShowsOnceAfterR (issue 19, 3): the account a delete's
// undo brings back is pinned as written; once r lists it, it is shown
// once, not pinned and listed. A later write's accounts replace an earlier
// write's pin.
func TestUndoneDeleteShowsOnceAfterR(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	deletePinned(d, "ada", "ACCT#a1")
	d.press("enter")
	d.press("u")
	waitScreen(d, "the undo's preview", "undo delete ACCT#a1")
	d.press("enter")
	waitScreen(d, "the undo's result", "COMMITTED")
	d.press("enter")
	d.until("the account back", func(m *Model) bool { return m.views.accounts.Pinned() && d.rowIndex("ACCT#a1") >= 0 })
	d.settle()
	if got := d.pinned("written"); len(got) == 0 || !strings.HasPrefix(got[0], "ACCT#a1") {
		t.Fatalf("the account undeleted is not pinned as written: %q", got)
	}
	d.press("r")
	d.until("the reload", func(m *Model) bool {
		return !m.views.accounts.Pager().Paging().Loading() && m.check.Report() != nil && !m.check.Bar().Running
	})
	d.settle()
	n := 0
	for _, l := range d.lines() {
		if strings.HasPrefix(fields(strings.TrimPrefix(l, "▸ ")), "ACCT#a1 ") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("ACCT#a1 is shown %d times after r:\n%s", n, d.screen())
	}

	// A write pins what it wrote; a later write of an account listed
	// leaves no earlier write's pin behind.
	deletePinned(d, "ada", "ACCT#a1")
	d.press("enter")
	d.press("u")
	waitScreen(d, "the undo's preview", "undo delete ACCT#a1")
	d.press("enter")
	waitScreen(d, "the undo's result", "COMMITTED")
	d.press("enter")
	d.until("the account back", func(m *Model) bool { return m.views.accounts.Pinned() && d.rowIndex("written") >= 0 })
	d.settle()
	d.selectRow("ACCT#g7")
	renameSelected(d, "username", "gina")
	if d.m.views.accounts.Pinned() {
		t.Errorf("an earlier write's pin is still shown after a later write:\n%s", d.screen())
	}
}

// TestAWriteReadsTheLockRowsItChanged (issue 19): the locks view's rows
// of the locks a write released are read again: the old lock of a rename
// shows gone, without r.
func TestAWriteReadsTheLockRowsItChanged(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.press("2")
	d.until("the locks", func(m *Model) bool { return !m.views.locks.Loading() && m.views.locks.Count() > 0 })
	d.press("1")
	renameADA(d, "email", "ada@new.io")
	waitScreen(d, "the preview", "put lock UNIQ#EMAIL#ada@new.io (owner ACCT#a1)")
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
	d.press("enter")
	d.until("the check after the write", func(m *Model) bool { return !m.layers.write.Open() && !m.check.Bar().Running })
	d.settle()
	d.press("2")
	if i := d.rowIndex("UNIQ#EMAIL#ada@x.io"); i < 0 || !strings.HasSuffix(fields(d.lines()[i]), " gone") {
		t.Errorf("the released lock's row does not say it is gone:\n%s", d.screen())
	}
}

// TestASearchUpdatesTheLockRow (issue 19, 2): a lock changed outside the
// UI, read with its account by a search, shows as it is now in the locks
// view too.
func TestASearchUpdatesTheLockRow(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	d.press("2")
	d.until("the locks", func(m *Model) bool { return !m.views.locks.Loading() && m.views.locks.Count() > 0 })
	store.Put(tablePlaceholder, lock("UNIQ#EMAIL#ada@x.io", "ACCT#z9"))
	d.press("1")
	d.search("ACCT#a1")
	d.press("2")
	if i := d.rowIndex("UNIQ#EMAIL#ada@x.io"); i < 0 || !strings.Contains(d.lines()[i], "owner ACCT#z9") {
		t.Errorf("the lock's row does not show its owner now:\n%s", d.screen())
	}
}

// TestRReadsTheDetailAgain (issue 19): r over the detail reads its item
// again, as it does the rows.
func TestRReadsTheDetailAgain(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	d.selectRow("ACCT#a1")
	d.press("enter")
	waitScreen(d, "the detail", `"ada@x.io"`)
	store.Put(tablePlaceholder, acct("ACCT#a1", "ada@changed.io", "ada"))
	d.press("r")
	d.until("the detail read again", func(m *Model) bool { return strings.Contains(d.screen(), `"ada@changed.io"`) })
	if !d.m.layers.detail.Shown() {
		t.Fatal("r closed the detail")
	}
}

// TestAWrittenAccountWrittenAgainStaysPinned: a write to the account the
// written pin shows keeps it pinned (no list shows it otherwise).
func TestAWrittenAccountWrittenAgainStaysPinned(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	deletePinned(d, "ada", "ACCT#a1")
	d.press("enter")
	d.press("u")
	waitScreen(d, "the undo's preview", "undo delete ACCT#a1")
	d.press("enter")
	waitScreen(d, "the undo's result", "COMMITTED")
	d.press("enter")
	d.until("the account back", func(m *Model) bool { return m.views.accounts.Pinned() && d.rowIndex("written") >= 0 })
	d.settle()
	d.press("g") // the pin is on top; the selection stayed where it was
	d.selectRow("ACCT#a1")
	renameSelected(d, "username", "adele")
	if got := d.pinned("written"); len(got) == 0 || !strings.HasPrefix(got[0], "ACCT#a1 email=ada@x.io username=adele") {
		t.Errorf("the account written again is not pinned as it is now: %q\n%s", got, d.screen())
	}
}

// TestOneReportReachesEveryView (issue 27, 3): the check's report is set
// once, on the one item cache the root hands every view; the accounts
// and the locks judge their rows by it, and the items view and the
// partition detail keep what they read in that same cache.
func TestOneReportReachesEveryView(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeWithOthers())}, 120, 40)
	d.ready()
	if d.m.items.Report() == nil || d.m.items.Report() != d.m.check.Report() {
		t.Fatal("the cache does not hold the check's report")
	}
	sc := d.m.setup.schema
	cached := func(pk, sk string) bool {
		return d.m.items.Item(items.LockKey(sc.Table, map[string]string{sc.PK: pk, sc.SK: sk})) != nil
	}
	if r := d.saying("duplicate"); r == "" {
		t.Errorf("no account row judged duplicate:\n%s", d.screen())
	}
	wantPartition(d)
	if !cached("ACCT#a1", "ORDER#0001") {
		t.Error("the partition detail's items are not in the root's cache")
	}
	d.press("esc", "2")
	d.until("the locks", func(m *Model) bool { return !m.views.locks.Loading() && m.views.locks.Count() > 0 })
	if r := d.saying("duplicate"); r == "" {
		t.Errorf("no lock row judged duplicate:\n%s", d.screen())
	}
	d.press("4")
	d.until("the items", func(m *Model) bool { return m.views.others.Done() && !m.views.others.Loading() })
	if !cached("CONFIG#site", "V1") {
		t.Error("the items view's items are not in the root's cache")
	}
}
