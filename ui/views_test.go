package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/locktable/locktable/ui/check"
)

// TestLocksViewCallsDuplicatesSo: the lock of a value two accounts hold is
// "duplicate" in the locks view as in the accounts view, in its row and in
// its detail, and n stops on it.
func TestLocksViewCallsDuplicatesSo(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Store: fakePlanted()}, 100, 30)
	d.ready()
	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.locks.Done() && !m.locks.Loading() })
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
	store.Fail("Check", errors.New("throttled"))
	d := newDriver(t, Options{Store: store}, 100, 30)
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
