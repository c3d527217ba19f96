package ui

import (
	"strings"
	"testing"
)

// TestRepairSkipsAHolderThatChangedItsValue: bob's username lock is
// missing, and bob renames his username while the repair reads what the
// problem involves. The repair confirms the problem from its first read,
// then reads the holder again to build its guard: it finds "bobby", and
// skips, as dynamo.Store.PlanRepair does, rather than lock "bob" for an
// account that no longer holds it.
func TestRepairSkipsAHolderThatChangedItsValue(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	pinAccount(d, "bob")
	d.press("down", "down")
	if !strings.Contains(d.selected(), "UNIQ#HANDLE#bob") || !strings.Contains(d.selected(), "missing") {
		t.Fatalf("selected %q, want the missing username lock", d.selected())
	}
	store.Control.ChangeAfterRead(store.Schema().Table, acct("ACCT#b2", "bob@x.io", "bobby"))
	d.press("f")
	waitScreen(d, "the skip", "the holder changed its value since the check: check again")
	if s := d.screen(); strings.Contains(s, "put lock UNIQ#HANDLE#bob") {
		t.Fatalf("a lock of bob is offered for an account that holds bobby:\n%s", s)
	}
}
