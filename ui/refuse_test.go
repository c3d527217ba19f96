package ui

import (
	"strings"
	"testing"
)

// TestFixLeftToAPersonSaysWhyInTheStatusLine: f on a duplicate_value (or
// an invalid value) opened the full-screen dialog only to say that no
// repair is planned for it. The refusal is the status line's, from every
// view that offers f, and nothing opens.
func TestFixLeftToAPersonSaysWhyInTheStatusLine(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 160, 40)
	d.ready()
	refused := func(where, why string) {
		t.Helper()
		d.press("f")
		if d.m.layers.write.Open() {
			t.Fatalf("f on %s opened the dialog:\n%s", where, d.screen())
		}
		if s := d.status(); !strings.Contains(s, why) {
			t.Errorf("f on %s says %q, want %q", where, s, why)
		}
	}
	d.press("3")
	d.selectRow("dup@x.io")
	refused("the problems view's duplicate", "two or more accounts hold the value: rename or delete one of them")
	d.selectRow("ACCT#f6")
	refused("the problems view's invalid value", "the value cannot be locked as it is")
	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	d.settle()
	d.selectRow("UNIQ#EMAIL#dup@x.io")
	refused("the locks view's duplicate", "two or more accounts hold the value: rename or delete one of them")
	d.press("1")
	d.selectRow("ACCT#e5")
	d.press("down")
	refused("the account's duplicate email", "two or more accounts hold the value: rename or delete one of them")
}

// TestMissingLockDetailOffersNoItemToCopy: the detail of a missing lock
// offered C (copy item JSON), which then answered "not copied: no item":
// there is no item. C is not offered there, and says why if pressed; c
// (the key the lock must have) still is.
func TestMissingLockDetailOffersNoItemToCopy(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 30)
	d.ready()
	d.selectRow("ACCT#b2")
	d.press("down", "down", "enter")
	waitScreen(d, "the missing lock's detail", "lock UNIQ#HANDLE#bob  (missing)")
	if f := d.footer(); strings.Contains(f, "C copy item") || !strings.Contains(f, "c copy key") {
		t.Errorf("the missing lock's detail offers %q, want c and not C", f)
	}
	d.press("C")
	if s := d.status(); !strings.Contains(s, "no item has this key") || d.clipboard != "" {
		t.Errorf("C on a missing lock: %q, clipboard %q", s, d.clipboard)
	}
	d.press("esc", "up", "up", "enter") // the account, which is there
	waitScreen(d, "the account's detail", `"S": "ACCT#b2"`)
	if f := d.footer(); !strings.Contains(f, "C copy item") {
		t.Errorf("the account's detail does not offer C: %q", f)
	}
}
