package ui

import (
	"strings"
	"testing"
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
