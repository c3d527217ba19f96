package ui

import (
	"strings"
	"testing"

	"github.com/locktable/locktable/internal/clock"
)

// TestReloadFromAnotherViewKeepsTheSelection (issue 38, 3; found by
// TestTheScreenAgreesWithTheTable): r pressed in the problems view reloads
// the accounts too; back in the accounts, the row selected before is
// selected still.
func TestReloadFromAnotherViewKeepsTheSelection(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.selectRow("ACCT#e5")
	d.press("3", "r")
	d.until("the reload and the check", func(m *Model) bool {
		return !m.views.accounts.Pager().Paging().Loading() && m.check.Report() != nil && !m.check.Bar().Running
	})
	d.settle()
	d.press("1")
	if sel := d.selected(); !strings.Contains(sel, "ACCT#e5") {
		t.Errorf("after r in the problems view, the accounts' selection is %q, want ACCT#e5:\n%s", sel, d.screen())
	}
}

// TestReloadKeepsTheSelectedLock (issue 38, 3; found by
// TestTheScreenAgreesWithTheTable): r in the locks view selected the
// first lock; the lock selected before is selected again.
func TestReloadKeepsTheSelectedLock(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.press("2")
	d.until("the locks", func(m *Model) bool { return !m.views.locks.Loading() && m.views.locks.Count() > 0 })
	d.selectRow("UNIQ#HANDLE#dave")
	d.press("r")
	d.until("the reload", func(m *Model) bool { return !m.views.locks.Loading() && !m.check.Bar().Running })
	d.settle()
	if sel := d.selected(); !strings.Contains(sel, "UNIQ#HANDLE#dave") {
		t.Errorf("after r, the locks' selection is %q, want UNIQ#HANDLE#dave:\n%s", sel, d.screen())
	}
}

// TestAnAddedAccountSelectedStaysSelectedOnceListed (issue 38, 3; found
// by TestTheScreenAgreesWithTheTable): an account someone else added,
// selected under "added by others", leaves that group once r lists it;
// the selection went to the first orphan at the group's place, and
// follows the account to its row now.
func TestAnAddedAccountSelectedStaysSelectedOnceListed(t *testing.T) {
	t.Parallel()
	b, f := fakePlanted(), make(feed, 4)
	d := liveDriver(t, b, f, clock.Clock{})
	f.put(b, nil, acct("ACCT#b3", "zed@x.io", "zed"))
	d.until("the group of added", func(m *Model) bool { return d.rowIndex("added by others") >= 0 && d.rowIndex("ACCT#b3") >= 0 })
	d.settle()
	d.press("g")
	d.selectRow("ACCT#b3")
	d.press("r")
	d.until("the reload", func(m *Model) bool {
		return !m.views.accounts.Pager().Paging().Loading() && d.rowIndex("added by others") < 0 && !m.check.Bar().Running
	})
	d.settle()
	if sel := d.selected(); !strings.Contains(sel, "ACCT#b3") {
		t.Errorf("after r, the selection is %q, want ACCT#b3:\n%s", sel, d.screen())
	}
}

// TestAnAccountGoneAboveKeepsTheSelection (issue 38, 3: "after a bulk fix,
// it went from ACCT#00000000 to its lock row"; found again by
// TestTheScreenAgreesWithTheTable, which on the code before saw the
// selection go from ACCT#0007 to its lock row): the rows of an account
// that went, above the selection, were dropped and the selection kept its
// place, so it landed on another row. It stays on its account; when its
// own account goes, the row after it is selected and the status says so.
func TestAnAccountGoneAboveKeepsTheSelection(t *testing.T) {
	t.Parallel()
	b, f := fakePlanted(), make(feed, 4)
	d := liveDriver(t, b, f, clock.Clock{})
	d.selectRow("ACCT#c3")
	f.remove(b, acct("ACCT#a1", "ada@x.io", "ada"))
	d.until("the account gone", func(m *Model) bool { return d.rowIndex("ACCT#a1") < 0 })
	d.settle()
	if sel := d.selected(); !strings.HasPrefix(fields(strings.TrimPrefix(sel, "▸ ")), "ACCT#c3 ") {
		t.Fatalf("an account gone above moved the selection to %q:\n%s", sel, d.screen())
	}
	f.remove(b, acct("ACCT#c3", "carol@x.io", "carol"))
	d.until("the account gone", func(m *Model) bool { return d.rowIndex("ACCT#c3") < 0 })
	d.settle()
	if s := d.screen(); !strings.HasPrefix(fields(strings.TrimPrefix(d.selected(), "▸ ")), "ACCT#d4 ") || !strings.Contains(s, "ACCT#c3 is gone: the row after it is selected") {
		t.Errorf("its own account gone, the selection is %q, want ACCT#d4 and the status to say so:\n%s", d.selected(), s)
	}
}
