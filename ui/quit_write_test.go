package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/locktable/locktable/ui/dialog"
)

// TestRenameToAValueHeldWithoutItsLockIsRefused: renaming to a value whose
// holder has no lock committed (no warning; the header went from missing
// to duplicate). The finished check names the holder, a consistent read
// confirms it, and the form says why, before anything is previewed.
func TestRenameToAValueHeldWithoutItsLockIsRefused(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Store: store}, 120, 40)
	d.ready()
	pinAccount(d, "ada")
	d.press("e", "tab")
	waitScreen(d, "the form", "rename ACCT#a1")
	d.send(ctrlU())
	d.typeText("bob")
	d.press("enter")
	waitScreen(d, "the refusal", "username bob is taken by ACCT#b2, whose lock is missing")
	if !d.m.write.Open() || d.m.write.Stage() != dialog.StageForm {
		t.Fatalf("not back on the form:\n%s", d.screen())
	}
	if a, _, _ := store.Account(context.Background(), "ACCT#a1"); a.Item["username"].S != "ada" {
		t.Fatalf("the account changed: %v", a.Item["username"])
	}
}

// sendingFix opens the fix of bob's missing lock on a store whose writes
// wait for release, and sends it.
func sendingFix(t *testing.T) (d *driver, release func()) {
	t.Helper()
	store := fakePlanted()
	arrived, release := store.HoldWrites()
	d = newDriver(t, Options{Store: store}, 120, 40)
	d.ready()
	pinAccount(d, "bob")
	d.press("down", "down", "f")
	waitScreen(d, "the preview", "put lock UNIQ#HANDLE#bob (owner ACCT#b2) if the value is free")
	d.send(keyMsg("enter")) // press would wait for the write to end
	d.until("the write sent", func(m *Model) bool { return m.write.Sending() })
	<-arrived
	return d, release
}

// TestQuitWaitsForAWriteInFlight: ctrl+c while a fix showed "working…"
// exited at once, with nothing in the audit log and the orphan deleted.
// Quitting now waits for the outcome, then says what it was.
func TestQuitWaitsForAWriteInFlight(t *testing.T) {
	t.Parallel()
	d, release := sendingFix(t)
	d.send(keyMsg("ctrl+c"))
	if d.quit || !strings.Contains(d.screen(), "a write is in flight") {
		t.Fatalf("quit %v with a write in flight; screen:\n%s", d.quit, d.screen())
	}
	release()
	d.until("the quit after the outcome", func(*Model) bool { return d.quit })
	if f := d.m.Farewell(); !strings.HasPrefix(f, "committed repair UNIQ#HANDLE#bob") || !strings.Contains(f, "token ") {
		t.Fatalf("farewell %q", f)
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
