package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
)

// orphans is the planted table plus n orphan locks: every third names no
// owner (repaired in three steps), the others an owner that is gone.
func orphans(n int) *uitest.Backend {
	b := fakePlanted()
	for i := range n {
		owner := fmt.Sprintf("ACCT#gone%02d", i)
		if i%3 == 0 {
			owner = ""
		}
		b.Put(tablePlaceholder, lock(fmt.Sprintf("UNIQ#HANDLE#lost%02d", i), owner))
	}
	return b
}

// orphanCount is how many orphan locks the check finds in b now.
func orphanCount(t *testing.T, b *uitest.Backend) int {
	t.Helper()
	r, err := b.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r.Counts()[model.OrphanLock]
}

var ctrlA = tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl}

// bulkPreview goes as a user would to the preview of fixing every orphan:
// 3, /orphan, enter, ctrl+a, F.
func bulkPreview(t *testing.T, d *driver) {
	t.Helper()
	d.ready()
	d.press("3", "/")
	d.typeText("orphan")
	d.press("enter")
	d.send(ctrlA)
	d.settle()
	d.press("F")
	d.until("the batch's preview", func(m *Model) bool { return strings.Contains(d.screen(), "to send:") })
}

// TestBulkFixEveryOrphan: 3, /orphan, enter, ctrl+a, F, typing the number
// of transactions and enter fixes every orphan lock, ownerless ones in
// their three steps; the preview counts them by kind, the status line
// counted the marks, and the writes log holds the batch as one group.
func TestBulkFixEveryOrphan(t *testing.T) {
	b := orphans(35)
	want := orphanCount(t, b) // the planted ones too
	d := newDriver(t, Options{Roles: roles(b)}, 120, 40)
	d.ready()
	d.press("3", "/")
	d.typeText("orphan")
	d.press("enter")
	d.send(ctrlA)
	d.settle()
	if s := d.screen(); !strings.Contains(s, fmt.Sprintf("%d marked", want)) || !strings.Contains(s, "✓") {
		t.Fatalf("ctrl+a under /orphan: the status does not count %d marks, or no row shows one:\n%s", want, s)
	}
	d.press("F")
	d.until("the batch's preview", func(m *Model) bool { return strings.Contains(d.screen(), "to send:") })
	s := d.screen()
	for _, w := range []string{fmt.Sprintf("%d transactions (orphan_lock %d)", want, want), "type " + fmt.Sprint(want), "1. repair"} {
		if !strings.Contains(s, w) {
			t.Errorf("the preview lacks %q:\n%s", w, s)
		}
	}
	d.typeText("3")
	d.press("enter")
	if !strings.Contains(d.screen(), fmt.Sprintf("type %d exactly to send", want)) || orphanCount(t, b) != want {
		t.Fatalf("a wrong count sent, or did not say why:\n%s", d.screen())
	}
	d.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	d.typeText(fmt.Sprint(want))
	d.press("enter")
	d.until("every transaction's answer", func(m *Model) bool {
		return strings.Contains(d.screen(), fmt.Sprintf("sent %d of %d transactions: %d committed", want, want, want))
	})
	if n := orphanCount(t, b); n != 0 {
		t.Errorf("%d orphans left after the batch", n)
	}
	d.press("enter") // closes: the rows are read again, the check runs
	d.settle()
	d.until("the check after the batch", func(m *Model) bool { return m.check.Report() != nil && !m.check.Bar().Running })
	if s := d.screen(); strings.Contains(s, "marked") {
		t.Errorf("marks left after every repair was sent:\n%s", s)
	}
	d.press("w")
	if s := d.screen(); !strings.Contains(s, "batch: fix "+fmt.Sprint(want)+" marked problems") || !strings.Contains(s, "undo the batch") {
		t.Errorf("the writes log does not show the batch as a group:\n%s", s)
	}
}

// TestBulkFixEscStopsMidway: esc while the first transaction is in
// flight stops the batch before the next one: the first is settled and
// reported, the others are not sent and stay marked.
func TestBulkFixEscStopsMidway(t *testing.T) {
	b := orphans(8)
	want := orphanCount(t, b)
	d := newDriver(t, Options{Roles: roles(b)}, 120, 40)
	bulkPreview(t, d)
	d.typeText(fmt.Sprint(want))
	arrived, release := b.Control.HoldWrites()
	d.send(keyMsg("enter"))
	d.inFlight(arrived) // the first transaction is in flight
	if s := d.screen(); !strings.Contains(s, "░░░") || !strings.Contains(s, fmt.Sprintf("sent 0 of %d transactions", want)) {
		t.Errorf("no progress bar while sending:\n%s", s)
	}
	d.send(keyMsg("esc"))
	if s := d.screen(); !strings.Contains(s, "stopping") {
		t.Errorf("esc while sending does not say it stops:\n%s", s)
	}
	release()
	d.until("the batch's report", func(m *Model) bool { return strings.Contains(d.screen(), "not sent (still marked)") })
	s := d.screen()
	if !strings.Contains(s, fmt.Sprintf("sent 1 of %d transactions", want)) || !strings.Contains(s, "→ not sent") {
		t.Errorf("the report is not of one transaction sent:\n%s", s)
	}
	if n := orphanCount(t, b); n != want-1 {
		t.Errorf("%d orphans left; want %d: one fixed", n, want-1)
	}
	d.press("esc")
	d.settle()
	d.until("the check after the batch", func(m *Model) bool { return m.check.Report() != nil && !m.check.Bar().Running })
	if s := d.screen(); !strings.Contains(s, fmt.Sprintf("%d marked", want-1)) {
		t.Errorf("the unsent are not left marked (%d):\n%s", want-1, s)
	}
}

// TestBulkUndoTheGroup: u on a write of a batch in the writes log takes
// back every write of the batch, in one preview with the count typed.
func TestBulkUndoTheGroup(t *testing.T) {
	b := orphans(4)
	want := orphanCount(t, b)
	d := newDriver(t, Options{Roles: roles(b)}, 120, 40)
	bulkPreview(t, d)
	d.typeText(fmt.Sprint(want))
	d.press("enter")
	d.until("the batch's report", func(m *Model) bool { return strings.Contains(d.screen(), "committed") && !m.layers.batch.Sending() })
	d.press("enter")
	d.settle()
	if n := orphanCount(t, b); n != 0 {
		t.Fatalf("%d orphans left", n)
	}
	d.press("w", "u")
	d.until("the undo's preview", func(m *Model) bool { return strings.Contains(d.screen(), "to send:") })
	if s := d.screen(); !strings.Contains(s, "undo the batch") {
		t.Fatalf("u on the batch does not preview its undo:\n%s", s)
	}
	d.typeText(fmt.Sprint(want))
	d.press("enter")
	d.until("the undo's report", func(m *Model) bool {
		return strings.Contains(d.screen(), fmt.Sprintf("sent %d of %d transactions", want, want))
	})
	if n := orphanCount(t, b); n != want {
		t.Errorf("after the batch's undo %d orphans; want the %d it fixed back", n, want)
	}
}

// TestFixRejudgesOnlyItsKeys: after a fix (f) and after a batch (F), the
// problems fixed are judged again from consistent reads of the keys they
// involve: the check does not run again over the whole table, and the
// problems view and the header drop them at once.
func TestFixRejudgesOnlyItsKeys(t *testing.T) {
	b := fakeMany(300)
	b.Put(tablePlaceholder, lock("UNIQ#HANDLE#ghost", ""), lock("UNIQ#HANDLE#lost1", "ACCT#gone1"), lock("UNIQ#HANDLE#lost2", "ACCT#gone2"))
	d := newDriver(t, Options{Roles: roles(b)}, 120, 40)
	d.ready()
	checks := b.Control.Calls("Check")
	d.press("3")
	d.selectRow("UNIQ#HANDLE#ghost")
	d.press("f")
	d.until("the fix's preview", func(m *Model) bool { return strings.Contains(d.screen(), "claim lock UNIQ#HANDLE#ghost") })
	d.press("enter")
	d.until("the fix's result", func(m *Model) bool { return strings.Contains(d.screen(), "COMMITTED") })
	d.press("enter")
	d.until("the orphan gone", func(m *Model) bool { return strings.Contains(d.screen(), "orphan 2") })
	if s := d.screen(); strings.Contains(s, "UNIQ#HANDLE#ghost") {
		t.Errorf("the fixed orphan is still listed:\n%s", s)
	}
	d.send(ctrlA)
	d.settle()
	d.press("F")
	d.until("the batch's preview", func(m *Model) bool { return strings.Contains(d.screen(), "to send:") })
	d.typeText("2")
	d.press("enter")
	d.until("the batch's report", func(m *Model) bool { return strings.Contains(d.screen(), "sent 2 of 2 transactions: 2 committed") })
	d.press("enter")
	d.until("the orphans gone", func(m *Model) bool { return !strings.Contains(d.screen(), "orphan") })
	if n := b.Control.Calls("Check"); n != checks {
		t.Errorf("the check ran %d more times after the fixes; want none: they judge their keys", n-checks)
	}
	if s := d.screen(); !strings.Contains(s, "no problems") {
		t.Errorf("the problems view after the fixes:\n%s", s)
	}
}

// TestHelpSaysTheMarks: ? over the problems view lists space and ctrl+a,
// and F only once a problem is marked (it does nothing before); the help
// line offers F once there are marks.
func TestHelpSaysTheMarks(t *testing.T) {
	d := newDriver(t, Options{Roles: roles(orphans(2))}, 120, 40)
	d.ready()
	d.press("3", "?")
	s := fields(d.screen())
	if !strings.Contains(s, "space mark row") || !strings.Contains(s, "ctrl+a mark all shown") || strings.Contains(s, "F fix marked") {
		t.Errorf("help with nothing marked:\n%s", d.screen())
	}
	d.press("?", "space", "?")
	if s := fields(d.screen()); !strings.Contains(s, "F fix marked") {
		t.Errorf("help with a mark does not offer F:\n%s", d.screen())
	}
	d.press("?")
	if s := d.lines(); !strings.Contains(s[len(s)-1], "F fix marked") {
		t.Errorf("the help line with a mark: %q", s[len(s)-1])
	}
}

// TestMarkedSaysWhatFSends (issue 38, 12): the status counted every
// marked problem as one F fixes ("3 marked (F fixes them)", all three
// duplicates F does not send); it says how many F fixes, and what it
// leaves to a person.
func TestMarkedSaysWhatFSends(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 30)
	d.ready()
	d.press("3")
	d.selectRow("duplicate")
	d.press("space", "down", "space")
	if s := d.status(); !strings.Contains(s, "2 marked (none F can fix: 1 duplicate, 1 invalid value)") {
		t.Errorf("a duplicate and an invalid value marked: the status says %q", s)
	}
	d.press("up", "up", "space")
	if s := d.status(); !strings.Contains(s, "3 marked (F fixes 1, not 1 duplicate, 1 invalid value)") {
		t.Errorf("a foreign lock marked too: the status says %q", s)
	}
	d.press("down", "space", "down", "space")
	if s := d.status(); !strings.Contains(s, "1 marked (F fixes it)") {
		t.Errorf("the foreign lock alone marked: the status says %q", s)
	}
}

// TestPreviewKeysStayOverAWrappedStatus (issue 38, 12): at 80x24 a status
// of two lines took the help line's, and the bulk preview's "enter send
// • esc cancel" went off the screen; the preview's keys stay, the status
// keeps one line.
func TestPreviewKeysStayOverAWrappedStatus(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 80, 24)
	d.ready()
	d.press("3")
	d.send(ctrlA)
	d.settle()
	d.press("F")
	d.until("the batch's preview", func(m *Model) bool { return strings.Contains(d.screen(), "to send:") })
	long := "a status longer than the screen is wide: " + strings.Repeat("word ", 20)
	d.m.status = long
	if !strings.Contains(d.m.statusText(), "a status longer") {
		t.Fatalf("the test's status is not shown: %q", d.m.statusText())
	}
	ls := d.lines()
	if len(ls) != 24 || !strings.Contains(ls[23], "enter send") || !strings.Contains(ls[23], "esc cancel") {
		t.Errorf("the preview's keys are not on the last line:\n%s", d.screen())
	}
	if !strings.HasPrefix(ls[22], "a status longer") {
		t.Errorf("the status is not above them: %q", ls[22])
	}
	wantFits(t, d, 80)
}
