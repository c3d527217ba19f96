package writelog

import (
	"errors"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/styles"
	"github.com/locktable/locktable/ui/write"
)

func newLog(t *testing.T) Model {
	t.Helper()
	st := styles.New(true)
	m := New(DefaultKeyMap(), &st, "/tmp/audit.log")
	m.SetSize(100, 30)
	m.Open()
	return m
}

func committed(op, token, undoes string, keys ...string) write.OutcomeMsg {
	return write.OutcomeMsg{Result: model.Result{Operation: op, Keys: keys, Outcome: model.Committed, Token: token}, Undoes: undoes}
}

// press sends a key and returns what it asked for (nil: nothing).
func press(t *testing.T, m *Model, k string) tea.Msg {
	t.Helper()
	msg := tea.KeyPressMsg{Code: rune(k[0]), Text: k}
	if k == "enter" {
		msg = tea.KeyPressMsg{Code: tea.KeyEnter}
	}
	var cmd tea.Cmd
	*m, cmd = m.Update(msg)
	if cmd == nil {
		return nil
	}
	return cmd()
}

// TestUndoChainsAreJudgedByTheirNewestWrite: in a family of a write and
// the undos that go back to it, the writes in effect are those that
// leave what its newest left; the others name the newest, and undoing a
// write in effect is an undo or a redo of the first, as the count of undos
// between says, never "undo undo".
func TestUndoChainsAreJudgedByTheirNewestWrite(t *testing.T) {
	m := newLog(t)
	m.Record(committed("rename", "r", "", "ACCT#a1"))
	m.Record(committed("undo", "u1", "r", "ACCT#a1"))
	m.Record(committed("undo", "u2", "u1", "ACCT#a1"))
	m.Record(committed("undo", "u3", "r", "ACCT#a1")) // the rename undone again, directly
	for n, want := range map[int]struct{ op, title, why string }{
		1: {"rename", "", "#1 was taken back by #4"},
		2: {"undo #1", "redo rename ACCT#a1", ""}, // its items are as #4 left them
		3: {"redo #1", "", "#3 was taken back by #4"},
		4: {"undo #1", "redo rename ACCT#a1", ""},
	} {
		u, why := m.offer(n)
		if got := m.operation(n); got != want.op {
			t.Errorf("#%d is named %q, want %q", n, got, want.op)
		}
		if u.Title != want.title || !strings.HasPrefix(why, want.why) || (want.why == "") != (why == "") {
			t.Errorf("#%d offers %q (why not: %q), want %q (%q)", n, u.Title, why, want.title, want.why)
		}
	}
	if u, _ := m.UndoLast(); u.Token != "u3" || u.Title != "redo rename ACCT#a1" {
		t.Errorf("u over the lists offers %+v, want the redo of u3", u)
	}
}

// TestClaimsRacersAndFailuresAreLogged: a reclaim is logged as its claim
// and its last step, which alone is offered; racers say which they were;
// a write that was not sent says why, and is not offered.
func TestClaimsRacersAndFailuresAreLogged(t *testing.T) {
	m := newLog(t)
	step := committed("repair", "step", "", "UNIQ#EMAIL#x")
	step.Claimed = "claim"
	m.Record(step)
	racer := committed("signup", "r3", "", "ACCT#n3", "UNIQ#EMAIL#racer")
	racer.Racer, racer.Racers = 3, 10
	m.Record(racer)
	m.Record(write.OutcomeMsg{Result: model.Result{Operation: "rename", Keys: []string{"ACCT#a1"}, Outcome: model.NotSent, Token: "ns"},
		Err: errors.New("connect: connection refused")})

	screen := ansi.Strip(m.View())
	for _, want := range []string{"#4 not sent   rename", "connect: connection refused", "#3 committed  signup", "racer 3 of 10",
		"#2 committed  repair", "#1 committed  repair claim", "token claim", "audit log: /tmp/audit.log"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the log does not show %q:\n%s", want, screen)
		}
	}
	if _, why := m.offer(1); !strings.Contains(why, "claim step of a repair, which its last step (#2) ends") {
		t.Errorf("the claim: %q", why)
	}
	if u, why := m.offer(2); u.Token != "step" || why != "" {
		t.Errorf("the repair's last step: %+v, %q", u, why)
	}
	if _, why := m.offer(4); !strings.Contains(why, "it was not sent, so it wrote nothing") {
		t.Errorf("the write not sent: %q", why)
	}
	if msg := press(t, &m, "u"); msg != nil || !strings.Contains(m.Status(), "not offered") {
		t.Errorf("u on the write not sent asks for %#v, says %q", msg, m.Status())
	}
	press(t, &m, "j")
	if msg, ok := press(t, &m, "u").(write.UndoMsg); !ok || msg.Token != "r3" || msg.Title != "undo signup ACCT#n3, UNIQ#EMAIL#racer" {
		t.Errorf("u on the racer asks for %#v", msg)
	}
	open, ok := press(t, &m, "enter").(detail.OpenMsg)
	if !ok {
		t.Fatal("enter opens no detail")
	}
	lines := strings.Join(open.Render(nil), "\n")
	for _, want := range []string{"token      r3", "race       racer 3 of 10", "  UNIQ#EMAIL#racer", "locktable undo r3"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the detail lacks %q:\n%s", want, lines)
		}
	}
}

// TestTheSelectionStaysOnItsWrite: a write logged while an older one is
// selected leaves that one selected; the newest selected follows the
// newest.
func TestTheSelectionStaysOnItsWrite(t *testing.T) {
	m := newLog(t)
	m.Record(committed("rename", "a", ""))
	m.Record(committed("rename", "b", ""))
	press(t, &m, "j")
	m.Record(committed("undo", "c", "a"))
	if _, n := m.at(m.cursor); n != 1 {
		t.Errorf("#%d selected, want #1 still", n)
	}
	press(t, &m, "g")
	m.Record(committed("undo", "d", "c"))
	if _, n := m.at(m.cursor); n != 4 {
		t.Errorf("#%d selected, want the newest, #4", n)
	}
}

// TestAResendSettlesTheFirstSending: an unknown write sent again with its
// token is offered where the resend's answer is, and an undo of that token
// takes that one back.
func TestAResendSettlesTheFirstSending(t *testing.T) {
	m := newLog(t)
	m.Record(write.OutcomeMsg{Result: model.Result{Operation: "rename", Outcome: model.Unknown, Token: "t"}})
	m.Record(committed("rename", "t", ""))
	if _, why := m.offer(1); why != "#1 was sent again, with its token, as #2: u there" {
		t.Errorf("the first sending: %q", why)
	}
	m.Record(committed("undo", "u", "t"))
	if got := m.operation(3); got != "undo #2" {
		t.Errorf("the undo is named %q, want undo #2", got)
	}
	if k := m.takenBack()[2]; k != 3 {
		t.Errorf("#2 taken back by #%d, want #3", k)
	}
}
