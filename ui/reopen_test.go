package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// typedBeforeTheListing opens the command line on the planted table, whose
// endpoint also holds orders, and types line before the endpoint's tables
// are listed: a user faster than the listing.
func typedBeforeTheListing(t *testing.T, line string) *driver {
	t.Helper()
	store := fakePlanted()
	store.Put("orders", acct("ORD#1", "", ""))
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 120, 30)
	d.ready()
	d.send(keyMsg(":"))
	for _, r := range line {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)}) // no settling: the listing is not in
	}
	if d.m.layers.tables != nil {
		t.Fatalf("the tables were listed before the keys were handled")
	}
	return d
}

// TestTableTypoBeforeTheListingKeepsTheUI: `:table nope` entered before
// the endpoint's tables were listed quit the UI to open nope, which the
// command then failed to find (exit 2, the writes log and undo lost).
// The line waits for the listing and refuses the typo there, the UI
// staying on its table.
func TestTableTypoBeforeTheListingKeepsTheUI(t *testing.T) {
	t.Parallel()
	d := typedBeforeTheListing(t, "table nope")
	d.press("enter")
	if _, ok := d.m.Reopen(); d.quit || ok {
		t.Fatalf(":table nope: quit %v, reopen asked %v; the screen:\n%s", d.quit, ok, d.screen())
	}
	if s := d.status(); !strings.Contains(s, `no NAME "nope" (did you mean "orders"?)`) {
		t.Errorf(":table nope says %q, want why it is refused", s)
	}
	d.press("esc")
	if !strings.Contains(d.screen(), "ACCT#a1") {
		t.Errorf("the accounts are no longer shown:\n%s", d.screen())
	}
}

// TestFirstTabListsTheTables: `:table <tab>` right after start said "no
// list of NAME to complete from" (the listing had not arrived), and only a
// second tab listed the tables. The first tab waits for the listing.
func TestFirstTabListsTheTables(t *testing.T) {
	t.Parallel()
	d := typedBeforeTheListing(t, "table ")
	d.press("tab")
	if s := d.status(); strings.Contains(s, "no list of") || !strings.Contains(s, "orders") || !strings.Contains(s, tablePlaceholder) {
		t.Errorf("the first tab after :table says %q, want the endpoint's tables", s)
	}
}

// TestWritesLogOutlivesTheTable: :table opened the UI again with an empty
// writes log, so the session's writes and their undo were gone. The UI
// opened again carries the log on (Model.Writes, Options.Writes).
func TestWritesLogOutlivesTheTable(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	store.Put("orders", acct("ORD#1", "", ""))
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	commitRename(d, "ada", "ACCT#a1", "email", "ada@new.io")
	d.command("table orders")
	if r, ok := d.m.Reopen(); !d.quit || !ok || r != (Reopen{Table: "orders"}) {
		t.Fatalf(":table orders: quit %v, reopen %+v %v", d.quit, r, ok)
	}
	d = newDriver(t, Options{Roles: roles(store), History: d.m.History(), Writes: d.m.Writes()}, 120, 40)
	d.ready()
	d.press("w")
	if s := d.screen(); !strings.Contains(s, "writes of this session, newest first: 1") || d.rowIndex("#1 committed rename ACCT#a1") < 0 {
		t.Errorf("the writes log after :table:\n%s", s)
	}
}
