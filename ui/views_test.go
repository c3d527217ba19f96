package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/cli/flagname"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/check"
)

// TestLocksViewCallsDuplicatesSo: the lock of a value two accounts hold is
// "duplicate" in the locks view as in the accounts view, in its row and in
// its detail, and n stops on it.
func TestLocksViewCallsDuplicatesSo(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 100, 30)
	d.ready()
	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	d.wantRows("UNIQ#EMAIL#dup@x.io email owner ACCT#d4 duplicate")
	d.press("n", "n")
	if got := fields(strings.TrimPrefix(d.selected(), "▸ ")); got != "UNIQ#EMAIL#dup@x.io email owner ACCT#d4 duplicate" {
		t.Fatalf("second n selected %q, want the duplicate's lock", got)
	}
	d.press("enter")
	if !strings.Contains(d.screen(), "(duplicate)") {
		t.Errorf("the duplicate's lock detail does not say duplicate:\n%s", d.screen())
	}
}

// TestFailedCheckIsNotRunning: when the check fails, the problems view
// says so instead of "still running", and the orphans it had confirmed
// are marked partial.
func TestFailedCheckIsNotRunning(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	report, err := store.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	store.Control.Fail("Check", errors.New("throttled"))
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.until("the check to fail", func(m *Model) bool { return m.check.Err() != nil })
	d.send(check.OrphansMsg{Problems: report.Problems}) // what it confirmed before failing
	d.settle()
	if d.rowIndex("orphan locks (2, partial") < 0 {
		t.Errorf("the orphans of an unfinished check are not marked partial:\n%s", d.screen())
	}
	d.press("3")
	if s := d.screen(); strings.Contains(s, "still running") || !strings.Contains(s, "the check failed") {
		t.Errorf("the problems view of a failed check:\n%s", s)
	}
}

// TestLocksEndLoadsEverything: one G in the locks view reads every page,
// the selection following the end as they arrive.
func TestLocksEndLoadsEverything(t *testing.T) {
	t.Parallel()
	var items []model.Item
	for i := range 400 {
		items = append(items, lock(fmt.Sprintf("UNIQ#HANDLE#u%04d", i), ""))
	}
	store := fake(items...)
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 100, 30)
	d.settle()
	d.press("2")
	if d.m.views.locks.Paging().Done() {
		t.Fatalf("the first page read every lock: the test needs more")
	}
	d.press("G")
	if !d.m.views.locks.Paging().Done() || d.m.views.locks.Count() != 400 {
		t.Fatalf("after one G: %d locks loaded, done %v", d.m.views.locks.Count(), d.m.views.locks.Paging().Done())
	}
	if got := fields(strings.TrimPrefix(d.selected(), "▸ ")); !strings.HasPrefix(got, "UNIQ#HANDLE#u0399") {
		t.Errorf("after G, selected %q, want the last lock", got)
	}
}

// TestEmptyStatesSaySo: an empty table, a table without locks and a
// clean check each say so instead of showing a blank list.
func TestEmptyStatesSaySo(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fake())}, 100, 30)
	d.until("the first page and the check", func(m *Model) bool { return !m.views.accounts.Pager().Paging().Loading() && m.check.Report() != nil })
	d.settle()
	if !strings.Contains(d.screen(), "this table is empty") {
		t.Errorf("an empty table:\n%s", d.screen())
	}
	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	if !strings.Contains(d.screen(), "no locks") {
		t.Errorf("no locks:\n%s", d.screen())
	}

	d = newDriver(t, Options{Roles: roles(fake(acct("ACCT#a1", "ada@x.io", "ada"),
		lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), lock("UNIQ#HANDLE#ada", "ACCT#a1")))}, 100, 30)
	d.ready()
	d.press("3")
	if want := "no problems: 3 items checked, 1 accounts, 2 locks, 2 constraints"; !strings.Contains(d.screen(), want) {
		t.Errorf("a clean check does not say %q:\n%s", want, d.screen())
	}
}

// TestSchemaHint: when no item matches the accounts' key but others are
// there (a wrong --account-prefix), the header and the problems view say
// which prefixes were seen instead of only listing orphan locks.
func TestSchemaHint(t *testing.T) {
	t.Parallel()
	store := fake(acct("USER#a1", "ada@x.io", "ada"), lock("UNIQ#EMAIL#ada@x.io", "USER#a1"),
		acct("USER#b2", "bob@x.io", "bob"), lock("UNIQ#EMAIL#bob@x.io", "USER#b2"))
	d := newDriver(t, Options{Roles: roles(store), SayField: flagname.Say}, 100, 30)
	d.until("the check", func(m *Model) bool { return m.check.Report() != nil })
	d.settle()
	if !strings.Contains(d.lines()[0], "no account found: wrong schema?") {
		t.Errorf("the header does not warn of the schema: %q", d.lines()[0])
	}
	d.press("3")
	s := strings.Join(strings.Fields(d.screen()), " ")
	if !strings.Contains(s, "hint: no item of") || !strings.Contains(s, "USER# (2)") || !strings.Contains(s, "--account-prefix") {
		t.Errorf("the problems view does not show the schema hint:\n%s", d.screen())
	}
	if d.rowIndex("orphan_lock (2)") < 0 {
		t.Errorf("the problems are not listed under the hint:\n%s", d.screen())
	}
}

// TestStatusSaysWhereTheSelectionIs: each list view's status line says
// which row of how many loaded is selected, and whether more is below.
func TestStatusSaysWhereTheSelectionIs(t *testing.T) {
	t.Parallel()
	var items []model.Item
	for i := range 400 {
		items = append(items, lock(fmt.Sprintf("UNIQ#HANDLE#u%04d", i), ""))
	}
	store := fake(append(items, plantedItems()...)...)
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.ready()
	d.press("down")
	if s := d.lines()[28]; !strings.HasPrefix(s, "row ") || !strings.Contains(s, " of 29 · 7 accounts loaded") {
		t.Errorf("accounts view status %q, want it to say which row of 29", s)
	}
	d.press("2", "down", "down")
	if s := d.lines()[28]; !strings.HasPrefix(s, "row 3 of ") || !strings.HasSuffix(s, "locks loaded, more below") {
		t.Errorf("locks view status %q, want row 3 of how many and more below", s)
	}
	d.press("3") // the first problem, under its heading
	if s := d.lines()[28]; !strings.HasPrefix(s, "row 2 of ") || !strings.Contains(s, "problems") {
		t.Errorf("problems view status %q, want row 2 of how many problems", s)
	}
}

// TestBackendNotesInHelpOnly: the demo's header said "backend lacks 4
// (see ?)" and its status line repeated it, before the newcomer had done
// anything they affect. The first screen, wide or at 80 columns, says
// nothing of them; help ends with them in full.
func TestBackendNotesInHelpOnly(t *testing.T) {
	t.Parallel()
	missing := backend.Capabilities{Transactions: true}.Missing()
	for _, width := range []int{80, 200} {
		d := newDriver(t, Options{Roles: roles(fakePlanted()), Missing: missing}, width, 24)
		d.ready()
		for _, not := range []string{"lacks", "idempotency", "ALL_OLD", "parallel scan", "mixed-type", "works around"} {
			if strings.Contains(d.screen(), not) {
				t.Errorf("at %d the first screen says %q:\n%s", width, not, d.screen())
			}
		}
		if !strings.HasPrefix(d.lines()[22], "row ") {
			t.Errorf("at %d the first status line is not where the selection is: %q", width, d.lines()[22])
		}
		pages := d.helpPages()
		s := fields(strings.Join(pages, "\n"))
		for _, want := range []string{"this backend lacks", "- no idempotency tokens (ClientRequestToken is ignored): a write whose answer is lost", "- no ALL_OLD items on a failed condition", "- no parallel scan", "- no mixed-type comparisons"} {
			if !strings.Contains(s, want) {
				t.Errorf("at %d help does not say %q:\n%s", width, want, strings.Join(pages, "\n---\n"))
			}
		}
	}
}

// TestConfigRemapsKeys: the config file's keys: reach the UI: quit on x,
// and the footer says so.
func TestConfigRemapsKeys(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted()), Keys: map[string][]string{"quit": {"x"}}, Theme: "light"}, 120, 40)
	d.ready()
	if !strings.Contains(d.screen(), "x quit") {
		t.Fatalf("the footer does not show the remapped quit:\n%s", d.screen())
	}
	d.send(keyMsg("x"))
	d.until("the quit", func(*Model) bool { return d.quit })
}

// TestProblemsViewKnowsTheCheckFailedWithoutAFrame: the check's state
// reaches the problems view in Update, not by View setting it on a copy.
func TestProblemsViewKnowsTheCheckFailedWithoutAFrame(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	store.Control.Fail("Check", errors.New("throttled"))
	d := newDriver(t, Options{Roles: roles(store)}, 100, 30)
	d.until("the check to fail", func(m *Model) bool { return m.check.Err() != nil })
	if s := d.m.views.problems.View(); !strings.Contains(s, "the check failed") {
		t.Errorf("the problems view as kept does not know the check failed: %q", s)
	}
}
