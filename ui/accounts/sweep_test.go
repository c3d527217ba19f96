package accounts

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/dynamo/dynamotest"
)

// TestEscStopsALongG: G reads every account at once, saying how far it
// has read and that esc stops it; esc stops it, what it tells afterwards
// is dropped, the rows listed stay, and pages are read from where they
// stood as before.
func TestEscStopsALongG(t *testing.T) {
	b, m := firstOf120()
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	if cmd == nil || !m.Pager().Paging().Loading() {
		t.Fatal("G starts no read of every account")
	}
	m, wait := m.Update(cmd()) // its first word: how far it has read
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
	if n := m.pager.Count(); n != 50 || m.Pager().Paging().Done() || m.Err() != nil {
		t.Fatalf("after esc: %d accounts, done %v, err %v; want the 50 read before, more to read", n, m.Pager().Paging().Done(), m.Err())
	}
	if m.Pager().Cursor() != m.Pager().Len()-1 {
		t.Errorf("after esc the selection moved: row %d of %d", m.Pager().Cursor(), m.Pager().Len())
	}
	// The selection is near the end: the next page is read, as it would
	// be had G not been pressed, and no more (G no longer follows the end).
	calls := b.Control.Calls("AccountsPage")
	if next == nil {
		t.Fatal("after esc, at the end of the rows, no page is asked for")
	}
	m, next = m.Update(next())
	if next != nil {
		m, _ = m.Update(next())
	}
	if m.pager.Count() != 100 || b.Control.Calls("AccountsPage") != calls+1 || b.Control.Calls("AccountsSweep") != 1 {
		t.Errorf("after esc: %d accounts, %d pages read, %d sweeps; want 100, one, one", m.pager.Count(), b.Control.Calls("AccountsPage")-calls, b.Control.Calls("AccountsSweep"))
	}
}

// TestGKeepsWhatAWriteRead: an account written while G reads (read again
// by key after the write) keeps what that read found when the sweep,
// which scanned it before the write, lists it.
func TestGKeepsWhatAWriteRead(t *testing.T) {
	b, m := firstOf120()
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	m, wait := m.Update(cmd()) // the sweep has read the table as it was
	b.Put(b.Schema().Table, dynamotest.Account("ACCT#100", "u100@x.io", "renamed"))
	m, _ = m.Update(m.Reread([]string{"ACCT#100"}, true)())
	for wait != nil {
		msg := wait()
		if msg == nil {
			break
		}
		m, wait = m.Update(msg)
	}
	if m.pager.Count() != 120 || !m.Pager().Paging().Done() {
		t.Fatalf("after G: %d accounts, done %v; want 120, done", m.pager.Count(), m.Pager().Paging().Done())
	}
	a, _ := m.src.items.Account("ACCT#100")
	if got := a.Item["username"].S; got != "renamed" {
		t.Errorf("ACCT#100 shows username %q after G, want what the read after the write found: renamed", got)
	}
}
