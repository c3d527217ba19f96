package ui

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/ui/dialog"
)

// TestRenameToAValueHeldWithoutItsLockIsRefused: renaming to a value whose
// holder has no lock committed (no warning; the header went from missing
// to duplicate). The finished check names the holder, a consistent read
// confirms it, and the form says why, before anything is previewed.
func TestRenameToAValueHeldWithoutItsLockIsRefused(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	renameADA(d, "username", "bob")
	waitScreen(d, "the refusal", "username bob is taken by ACCT#b2, whose lock is missing")
	if !d.m.layers.write.Open() || d.m.layers.write.Stage() != dialog.StageForm {
		t.Fatalf("not back on the form:\n%s", d.screen())
	}
	if a, _, _ := store.Account(context.Background(), "ACCT#a1"); a.Item["username"].S != "ada" {
		t.Fatalf("the account changed: %v", a.Item["username"])
	}
}

// renameADA opens the rename form of ACCT#a1 and submits attr (email or
// username) as v.
func renameADA(d *driver, attr, v string) {
	d.t.Helper()
	renameAccount(d, "ada", "ACCT#a1", attr, v)
}

// renameAccount searches q, account id's, and previews renaming its
// attr to v.
func renameAccount(d *driver, q, id, attr, v string) {
	d.t.Helper()
	pinAccount(d, q)
	d.press("e")
	if attr == "username" {
		d.press("tab")
	}
	waitScreen(d, "the form", "rename "+id)
	d.send(ctrlU())
	d.typeText(v)
	d.press("enter")
}

// sendingFix opens the fix of bob's missing lock on a store whose writes
// wait for release, and sends it.
func sendingFix(t *testing.T) (d *driver, release func()) {
	t.Helper()
	store := fakePlanted()
	arrived, release := store.Control.HoldWrites()
	d = newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	pinAccount(d, "bob")
	d.press("down", "down", "f")
	waitScreen(d, "the preview", "put lock UNIQ#HANDLE#bob (owner ACCT#b2)")
	d.send(keyMsg("enter")) // press would wait for the write to end
	d.until("the write sent", func(m *Model) bool { return m.layers.write.Sending() })
	d.inFlight(arrived)
	if !strings.Contains(d.screen(), "sending the transaction (token ") {
		t.Fatalf("the dialog does not say it is sending:\n%s", d.screen())
	}
	return d, release
}

// TestQuitWaitsForAWriteInFlight: ctrl+c while a fix showed "working…"
// exited at once, with nothing in the audit log and the orphan deleted;
// q did nothing (the dialog took it as text, though it has none while
// sending). Either now waits for the outcome, then quits saying what it
// was, as the README says.
func TestQuitWaitsForAWriteInFlight(t *testing.T) {
	t.Parallel()
	for _, quit := range []string{"ctrl+c", "q"} {
		t.Run(quit, func(t *testing.T) {
			t.Parallel()
			d, release := sendingFix(t)
			d.send(keyMsg(quit))
			if d.quit || !strings.Contains(d.screen(), "a write is in flight") {
				t.Fatalf("quit %v with a write in flight; screen:\n%s", d.quit, d.screen())
			}
			release()
			d.until("the quit after the outcome", func(*Model) bool { return d.quit })
			if f := d.m.Farewell(); !strings.HasPrefix(f, "committed repair UNIQ#HANDLE#bob") || !strings.Contains(f, "token ") {
				t.Fatalf("farewell %q", f)
			}
		})
	}
}

// TestSecondCtrlCQuitsWithTheToken: a second ctrl+c quits at once; the
// outcome is unknown and its token is printed.
func TestSecondCtrlCQuitsWithTheToken(t *testing.T) {
	t.Parallel()
	d, release := sendingFix(t)
	defer release()
	d.send(keyMsg("ctrl+c"))
	d.send(keyMsg("ctrl+c"))
	d.until("the quit", func(*Model) bool { return d.quit })
	if f := d.m.Farewell(); !strings.HasPrefix(f, "UNKNOWN   repair UNIQ#HANDLE#bob") || !strings.Contains(f, "(token ") {
		t.Fatalf("farewell %q", f)
	}
}

// TestFailuresAreReadableWhole: at 80 columns a refused connection and a
// refusal in the form were cut at the edge, and said nothing of the
// outcome. They are wrapped to the dialog's width, and the outcome is
// said in words.
func TestFailuresAreReadableWhole(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 80, 24)
	d.ready()
	renameADA(d, "username", "bob")
	want := "username bob is taken by ACCT#b2, whose lock is missing (sending would make a duplicate_value; repair the missing lock, or rename that account)"
	d.until("the refusal", func(m *Model) bool { return strings.Contains(fields(d.screen()), want) })
	wantWithin(t, d, 80)

	refused := fmt.Errorf("operation error DynamoDB: TransactWriteItems, https response error StatusCode: 0, RequestID: , request send failed, Post \"http://127.0.0.1:8000/\": %w",
		&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
	store.Control.Fail("Execute", refused)
	d.send(ctrlU())
	d.typeText("adele")
	d.press("enter")
	waitScreen(d, "the preview", "put lock UNIQ#HANDLE#adele")
	d.press("enter")
	s := fields(d.screen())
	for _, w := range []string{"NOT SENT", "nothing was written", fields(refused.Error())} {
		if !strings.Contains(s, w) {
			t.Errorf("the failure does not say %q whole:\n%s", w, d.screen())
		}
	}
	wantWithin(t, d, 80)
}

// wantWithin fails if a line of the screen is wider than width.
func wantWithin(t *testing.T, d *driver, width int) {
	t.Helper()
	for _, l := range d.lines() {
		if ansi.StringWidth(l) > width {
			t.Errorf("line wider than %d: %q", width, l)
		}
	}
}
