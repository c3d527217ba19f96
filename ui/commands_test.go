package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// command types line on the command line and enters it.
func (d *driver) command(line string) {
	d.t.Helper()
	d.press(":")
	d.typeText(line)
	d.press("enter")
}

// TestCommandsDoWhatTheirKeysDo: :locks, :problems, :items and
// :accounts show their views, :writes the writes log, :find pins what it
// finds, and :q quits; every key that
// does the same still does.
func TestCommandsDoWhatTheirKeysDo(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 30)
	d.ready()
	d.command("locks")
	if d.m.views.shown != viewLocks || d.m.layers.cmdline.Shown() {
		t.Fatalf(":locks shows view %d (line open %v)", d.m.views.shown, d.m.layers.cmdline.Shown())
	}
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	d.wantRows("UNIQ#EMAIL#ada@x.io")
	d.command("prob")
	if d.m.views.shown != viewProblems {
		t.Errorf(":prob shows view %d, want the problems", d.m.views.shown)
	}
	d.command("items")
	if d.m.views.shown != viewItems {
		t.Errorf(":items shows view %d, want the items", d.m.views.shown)
	}
	d.command("writes")
	if !d.m.layers.writelog.Shown() {
		t.Errorf(":writes did not show the writes log:\n%s", d.screen())
	}
	d.press("esc")
	d.command("accounts")
	if d.m.views.shown != viewAccounts {
		t.Errorf(":accounts shows view %d", d.m.views.shown)
	}
	d.press("2")
	if d.m.views.shown != viewLocks {
		t.Errorf("2 no longer shows the locks")
	}
	d.search("bob@x.io") // :find
	d.wantRows("search: bob@x.io", "ACCT#b2 email=bob@x.io username=bob")
	if d.m.views.shown != viewAccounts {
		t.Errorf(":find shows view %d, want the accounts with the pin", d.m.views.shown)
	}
	d.command("q")
	if !d.quit {
		t.Error(":q did not quit")
	}
}

// TestCommandLineRefusesAndRemembers: an unknown command is refused with
// the nearest one named, the line staying open; up brings back the lines
// entered; tab completes a table from the endpoint's.
func TestCommandLineRefusesAndRemembers(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	store.Put("orders-2024", acct("ORD#1", "", ""))
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 120, 30)
	d.ready()
	d.command("lcks")
	if !d.m.layers.cmdline.Shown() || !strings.Contains(d.status(), `no command "lcks" (did you mean ":locks"?)`) {
		t.Fatalf("line open %v, says %q; want it refused naming :locks", d.m.layers.cmdline.Shown(), d.status())
	}
	d.press("esc")
	d.command("problems")
	d.command("accounts")
	d.press(":", "up", "up")
	if !strings.Contains(d.status(), ":problems") {
		t.Errorf("up up: %q, want the line before last", d.status())
	}
	d.press("esc", ":")
	d.typeText("table ord")
	d.press("tab")
	if !strings.Contains(d.status(), ":table orders-2024") {
		t.Errorf("tab after :table ord: %q, want the endpoint's table", d.status())
	}
	d.press("esc", ":")
	d.typeText("table nosuch")
	d.press("enter")
	if !strings.Contains(d.status(), `no NAME "nosuch"`) || d.quit {
		t.Errorf(":table nosuch: %q, quit %v; want it refused", d.status(), d.quit)
	}
}

// TestSwitchTableAndTarget: :table and :target quit asking to be opened
// on the table or the target named (what cli runs then).
func TestSwitchTableAndTarget(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	store.Put("orders", acct("ORD#1", "", ""))
	d := newDriver(t, Options{Roles: roles(store), NoCheck: true, Targets: []string{"local", "prod"}}, 120, 30)
	d.ready()
	if _, ok := d.m.Reopen(); ok {
		t.Fatal("a reopen asked for before any command")
	}
	d.command("target staging")
	if d.quit || !strings.Contains(d.status(), `no NAME "staging" (did you mean`) {
		t.Fatalf(":target staging: quit %v, says %q", d.quit, d.status())
	}
	d.press("esc")
	d.command("table orders")
	if r, ok := d.m.Reopen(); !d.quit || !ok || r != (Reopen{Table: "orders"}) {
		t.Errorf(":table orders: quit %v, reopen %+v %v", d.quit, r, ok)
	}
	// The UI opened again carries the command line's history on.
	d = newDriver(t, Options{Roles: roles(store), NoCheck: true, Targets: []string{"local", "prod"}, History: d.m.History()}, 120, 30)
	d.ready()
	d.press(":", "up")
	if !strings.Contains(d.status(), ":table orders") {
		t.Errorf("up in the UI opened again: %q, want the last line of the one before", d.status())
	}
	d.press("esc")
	d.command("target prod")
	if r, ok := d.m.Reopen(); !d.quit || !ok || r != (Reopen{Target: "prod"}) {
		t.Errorf(":target prod: quit %v, reopen %+v %v", d.quit, r, ok)
	}
}

// TestRemappedCommandAndFilterKeys: the command line's and the filter's
// keys are remappable as every other: command to ;, clear-filter to x,
// command.complete to right; the old keys no longer do it.
func TestRemappedCommandAndFilterKeys(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted()), NoCheck: true,
		Keys: map[string][]string{"command": {";"}, "clear-filter": {"x"}, "command.complete": {"right"}}}, 200, 30)
	d.ready()
	d.press(":")
	if d.m.layers.cmdline.Shown() {
		t.Fatal(": opened the command line, remapped to ;")
	}
	d.press(";")
	d.typeText("lo")
	d.send(keyMsgRight)
	d.settle()
	if !strings.Contains(d.status(), ":locks") {
		t.Errorf("right after lo: %q, want :locks", d.status())
	}
	d.press("esc", "/")
	d.typeText("ada")
	d.press("enter", "esc")
	if d.m.views.accounts.Pager().Filter() != "ada" {
		t.Fatalf("esc cleared the filter, remapped to x")
	}
	if !strings.Contains(d.footer(), "x clear the filter") {
		t.Errorf("the help line %q does not say x clears the filter", d.footer())
	}
	d.press("x")
	if d.m.views.accounts.Pager().Filter() != "" {
		t.Errorf("x left the filter %q", d.m.views.accounts.Pager().Filter())
	}
}

var keyMsgRight = tea.KeyPressMsg{Code: tea.KeyRight}
