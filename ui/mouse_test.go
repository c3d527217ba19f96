package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestMouseOffByDefault: without Options.Mouse the UI asks the terminal
// for no mouse reports, so its own selection of text works; with it, it
// asks for clicks and the wheel.
func TestMouseOffByDefault(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted()), NoCheck: true}, 100, 30)
	d.ready()
	if mode := d.m.View().MouseMode; mode != tea.MouseModeNone {
		t.Errorf("mouse mode %v by default, want none", mode)
	}
	on := newDriver(t, Options{Roles: roles(fakePlanted()), NoCheck: true, Mouse: true}, 100, 30)
	on.ready()
	if mode := on.m.View().MouseMode; mode != tea.MouseModeCellMotion {
		t.Errorf("mouse mode %v with Mouse, want cell motion", mode)
	}
}

// TestClickSelectsARow: a click on a row of the list selects it (the
// screen line, under the header); a click below the rows, or over help,
// selects nothing.
func TestClickSelectsARow(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted()), NoCheck: true, Mouse: true}, 100, 30)
	d.ready()
	line := d.rowIndex("ACCT#c3")
	if line < 0 {
		t.Fatalf("no row of ACCT#c3:\n%s", d.screen())
	}
	d.send(tea.MouseClickMsg{X: 10, Y: line, Button: tea.MouseLeft})
	d.settle()
	if got := d.selected(); !strings.Contains(got, "ACCT#c3") {
		t.Fatalf("after a click on line %d the selection is %q, want ACCT#c3\n%s", line, got, d.screen())
	}
	d.send(tea.MouseClickMsg{X: 10, Y: 27, Button: tea.MouseLeft}) // below the last row
	d.press("?")
	d.send(tea.MouseClickMsg{X: 10, Y: line + 1, Button: tea.MouseLeft})
	d.press("?")
	if got := d.selected(); !strings.Contains(got, "ACCT#c3") {
		t.Errorf("a click below the rows or over help moved the selection to %q", got)
	}
}
