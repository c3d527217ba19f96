package accounts

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/dynamo/dynamotest"
)

// TestGSweepsEveryAccountThroughTheWindow (issue 41, 2): on a backend that
// reads every account at once, G does so once, instead of a page after a
// page: every account is listed once (those the first page listed are
// not listed again), the window holding a few blocks of them, the last
// selected; g brings the first back.
func TestGSweepsEveryAccountThroughTheWindow(t *testing.T) {
	smallWindow(t)
	b, m := sweptViewOf(t, 300, nil)
	pages := b.Control.Calls("AccountsPage")
	m = press(m, "G")
	held(t, m)
	if id := selectedID(m); id != "ACCT#0299" || m.pager.Count() != 300 || !m.pager.Paging().Done() {
		t.Fatalf("after G: %q selected, %d accounts listed, done %v; want ACCT#0299 of 300, done", id, m.pager.Count(), m.pager.Paging().Done())
	}
	if sweeps, more := b.Control.Calls("AccountsSweep"), b.Control.Calls("AccountsPage")-pages; sweeps != 1 || more != 0 {
		t.Errorf("G read %d sweeps and %d pages more; want one sweep, no page", sweeps, more)
	}
	m = press(m, "g")
	if id := selectedID(m); id != "ACCT#0000" {
		t.Errorf("after g: %q selected, want ACCT#0000", id)
	}
	seen := map[string]bool{}
	for range 3 * 300 {
		id := selectedID(m)
		if seen[id] && id != selectedID(press(m, "up")) {
			t.Fatalf("%s is listed twice", id)
		}
		seen[id] = true
		m = press(m, "down")
	}
	if len(seen) != 300 {
		t.Errorf("scrolling down lists %d accounts, want 300", len(seen))
	}
}

// TestEscStopsALongG (issue 41, 3): while G reads every account the status
// says how far it has read and that esc stops it; esc stops it, what it
// tells afterwards is dropped, the rows listed stay, and pages are read
// on from where they stood (it had listed none).
func TestEscStopsALongG(t *testing.T) {
	b, m := sweptViewOf(t, 120, nil)
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	m, wait := m.Update(sweepMsg(t, cmd)) // its first word: how far it has read
	if s := m.Status(); !strings.Contains(s, "reading every account: 50 of ~120 items") || !strings.HasSuffix(s, "esc stops") {
		t.Errorf("while it reads, the status says %q", s)
	}
	if !m.keys().Stop.Enabled() {
		t.Error("esc is not offered as stopping the read")
	}
	m, next := m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if s := m.Status(); !strings.HasPrefix(s, "stopped reading every account after 50 items") {
		t.Errorf("after esc the status says %q", s)
	}
	for wait != nil { // what the stopped read still tells is dropped
		msg := wait()
		if msg == nil {
			break
		}
		m, wait = m.Update(msg)
	}
	listed := m.pager.Count()
	if m.pager.Paging().Done() || m.Err() != nil {
		t.Fatalf("after esc: %d accounts, done %v, err %v; want those read before, more to read", listed, m.pager.Paging().Done(), m.Err())
	}
	m = run(m, next)
	m = press(m, "G")
	if m.pager.Count() != 120 || b.Control.Calls("AccountsSweep") != 2 {
		t.Errorf("G again: %d accounts, %d sweeps; want 120, two", m.pager.Count(), b.Control.Calls("AccountsSweep"))
	}
}

// TestNextProblemAtTheEndIsOneSweep (issue 41, 2): n before the check
// ends, with the only problem at the table's end, reads every account in
// one sweep, not a page after a page, and selects it.
func TestNextProblemAtTheEndIsOneSweep(t *testing.T) {
	smallWindow(t)
	b, m := sweptViewOf(t, 300, func(i int) bool { return i == 297 })
	pages := b.Control.Calls("AccountsPage")
	m = press(m, "n")
	if id := selectedID(m); id != "ACCT#0297" {
		t.Fatalf("n: %q selected, want ACCT#0297 (%q)", id, m.Status())
	}
	if sweeps, more := b.Control.Calls("AccountsSweep"), b.Control.Calls("AccountsPage")-pages; sweeps != 1 || more != 0 {
		t.Errorf("n read %d sweeps and %d pages more; want one sweep, no page", sweeps, more)
	}
}

// TestGKeepsWhatAWriteRead: an account written while G reads (read again
// by key after the write) keeps what that read found when the sweep,
// which scanned it before the write, lists it.
func TestGKeepsWhatAWriteRead(t *testing.T) {
	b, m := sweptViewOf(t, 120, nil)
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	m, wait := m.Update(sweepMsg(t, cmd)) // the sweep has read the table as it was
	b.Put(b.Schema().Table, dynamotest.Account("ACCT#0100", "u100@x.io", "renamed"))
	m = run(m, m.Reread([]string{"ACCT#0100"}, true))
	m = run(m, wait)
	if m.pager.Count() != 120 || !m.pager.Paging().Done() {
		t.Fatalf("after G: %d accounts, done %v; want 120, done", m.pager.Count(), m.pager.Paging().Done())
	}
	a, _ := m.src.items.Account("ACCT#0100")
	if got := a.Item["username"].S; got != "renamed" {
		t.Errorf("ACCT#0100 shows username %q after G, want what the read after the write found: renamed", got)
	}
}

// sweepMsg is the sweep's first message, which cmd (G's) brings, alone
// or in a batch.
func sweepMsg(t *testing.T, cmd tea.Cmd) SweepMsg {
	t.Helper()
	cmds := []tea.Cmd{cmd}
	for len(cmds) > 0 {
		c := cmds[0]
		cmds = cmds[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			cmds = append(cmds, msg...)
		case SweepMsg:
			return msg
		}
	}
	t.Fatal("G starts no read of every account")
	return SweepMsg{}
}
