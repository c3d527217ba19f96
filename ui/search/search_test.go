package search

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/items"
)

// field returns a closed search field over ada and bob, and the pump its
// searches answer through.
func field(t *testing.T, km KeyMap) (Model, *uitest.Backend, events.Pump) {
	t.Helper()
	b := uitest.Holding(
		dynamotest.Account("ACCT#a1", "ada@x.io", "ada"), dynamotest.Lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), dynamotest.Lock("UNIQ#HANDLE#ada", "ACCT#a1"),
		dynamotest.Account("ACCT#b2", "bob@x.io", "bob"), dynamotest.Lock("UNIQ#EMAIL#bob@x.io", "ACCT#b2"),
	)
	pump := events.NewPump()
	sc := b.Schema()
	m := New(context.Background(), b, &sc, items.New(&sc), pump, km)
	m.SetSize(80, 1)
	return m, b, pump
}

func press(code rune) tea.KeyPressMsg {
	k := tea.KeyPressMsg{Code: code}
	if code >= ' ' && code < 0x7f {
		k.Text = string(code)
	}
	return k
}

// typeIn opens the field and types text.
func typeIn(t *testing.T, m Model, text string) Model {
	t.Helper()
	m, _ = m.Open("")
	for _, r := range text {
		m, _ = m.Update(press(r))
	}
	if m.Value() != text {
		t.Fatalf("field holds %q, want %q", m.Value(), text)
	}
	return m
}

// done runs cmd, which starts a search, and returns the search's answer
// from the pump, its progress skipped.
func done(t *testing.T, cmd tea.Cmd, pump events.Pump) DoneMsg {
	t.Helper()
	if cmd == nil {
		t.Fatal("no search started")
	}
	if msg := cmd(); msg != nil {
		t.Fatalf("starting a search answers %T at once, want it on the pump", msg)
	}
	for {
		select {
		case msg := <-pump:
			if d, ok := msg.(DoneMsg); ok {
				return d
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no answer from the search")
		}
	}
}

// pinned is the pin the answer's emitted message carries.
func pinned(t *testing.T, cmd tea.Cmd) accounts.Pin {
	t.Helper()
	if cmd == nil {
		t.Fatal("the answer pins nothing")
	}
	msg, ok := cmd().(accounts.PinMsg)
	if !ok {
		t.Fatalf("the answer emits %T, want accounts.PinMsg", cmd())
	}
	return msg.Pin
}

// TestSearchPinsWhatItFinds: enter closes the field and searches; the
// answer pins the account found, and the field is no longer busy.
func TestSearchPinsWhatItFinds(t *testing.T) {
	m, _, pump := field(t, DefaultKeyMap())
	m = typeIn(t, m, "bob@x.io")
	if !m.Typing() || !strings.Contains(m.View(), "bob@x.io") {
		t.Fatalf("typing %v, view %q", m.Typing(), m.View())
	}
	m, cmd := m.Update(press(tea.KeyEnter))
	if m.Typing() || !m.Busy() || m.Status() != "searching for bob@x.io…" {
		t.Fatalf("after enter: typing %v, busy %v, status %q", m.Typing(), m.Busy(), m.Status())
	}
	m, cmd = m.Update(done(t, cmd, pump))
	if m.Busy() || m.Status() != "" || m.Err() != nil {
		t.Errorf("after the answer: busy %v, status %q, err %v", m.Busy(), m.Status(), m.Err())
	}
	p := pinned(t, cmd)
	if p.Title != "search: bob@x.io" || len(p.Accounts) != 1 || p.Accounts[0].ID != "ACCT#b2" {
		t.Errorf("pin %q with %+v, want bob's account", p.Title, p.Accounts)
	}
}

// TestCancelAndEmpty: esc closes the field without searching, and so does
// enter on nothing but spaces.
func TestCancelAndEmpty(t *testing.T) {
	m, b, _ := field(t, DefaultKeyMap())
	m = typeIn(t, m, "ada")
	m, cmd := m.Update(press(tea.KeyEscape))
	if m.Typing() || m.Busy() || cmd != nil {
		t.Errorf("esc: typing %v, busy %v, cmd %v; want closed, nothing asked", m.Typing(), m.Busy(), cmd != nil)
	}
	m = typeIn(t, m, "  ")
	m, cmd = m.Update(press(tea.KeyEnter))
	if m.Typing() || m.Busy() || cmd != nil || b.Control.Calls("Find") != 0 {
		t.Errorf("enter on spaces: typing %v, busy %v, %d finds; want closed, nothing asked", m.Typing(), m.Busy(), b.Control.Calls("Find"))
	}
	if m, _ = m.Open(""); m.Value() != "" {
		t.Errorf("the field opens holding %q, want it empty", m.Value())
	}
}

// TestLaterSearchWins: the answer of a search overtaken by another is
// dropped; the last one's is pinned.
func TestLaterSearchWins(t *testing.T) {
	m, _, pump := field(t, DefaultKeyMap())
	m = typeIn(t, m, "ada")
	m, first := m.Update(press(tea.KeyEnter))
	m = typeIn(t, m, "bob")
	m, second := m.Update(press(tea.KeyEnter))
	old := done(t, first, pump)
	m, cmd := m.Update(old)
	if cmd != nil || !m.Busy() {
		t.Fatalf("the overtaken answer was taken: busy %v, cmd %v", m.Busy(), cmd != nil)
	}
	m, cmd = m.Update(done(t, second, pump))
	if p := pinned(t, cmd); p.Title != "search: bob" || m.Busy() {
		t.Errorf("pinned %q, busy %v; want the search for bob, done", p.Title, m.Busy())
	}
}

// TestFailedSearch: a search that fails keeps its error for the status
// line and pins nothing; ClearErr forgets it.
func TestFailedSearch(t *testing.T) {
	m, b, pump := field(t, DefaultKeyMap())
	b.Control.Fail("Find", errors.New("throttled"))
	m = typeIn(t, m, "ada")
	m, cmd := m.Update(press(tea.KeyEnter))
	m, cmd = m.Update(done(t, cmd, pump))
	if cmd != nil || m.Busy() || m.Err() == nil || !strings.Contains(m.Err().Error(), "throttled") {
		t.Fatalf("after a failure: cmd %v, busy %v, err %v", cmd != nil, m.Busy(), m.Err())
	}
	m.ClearErr()
	if m.Err() != nil {
		t.Error("ClearErr kept the error")
	}
}

// TestJumpPinsTheProblemsRows: a jump to an orphan lock pins the orphan
// and says so while it reads.
func TestJumpPinsTheProblemsRows(t *testing.T) {
	m, _, pump := field(t, DefaultKeyMap())
	orphan := model.Problem{Kind: model.OrphanLock, Constraint: "email", Value: "old@x.io", Owner: "ACCT#a1"}
	m, cmd := m.Update(JumpMsg{Problem: orphan})
	if !m.Busy() || !strings.Contains(m.Status(), "reading the rows of this problem") {
		t.Fatalf("jump: busy %v, status %q", m.Busy(), m.Status())
	}
	_, cmd = m.Update(done(t, cmd, pump))
	p := pinned(t, cmd)
	if len(p.Orphans) != 1 || p.Orphans[0].Value != "old@x.io" || len(p.Accounts) != 0 {
		t.Errorf("pin %q: orphans %+v, accounts %+v; want the orphan alone", p.Title, p.Orphans, p.Accounts)
	}
}

// TestRemappedCancel: the field matches its bindings: cancel remapped to
// ctrl+g closes on ctrl+g, and esc no longer does.
func TestRemappedCancel(t *testing.T) {
	km := DefaultKeyMap()
	if !keymap.Remap(&km, "cancel", []string{"ctrl+g"}) {
		t.Fatal("no binding cancel")
	}
	m, _, _ := field(t, km)
	m = typeIn(t, m, "ada")
	if m, _ = m.Update(press(tea.KeyEscape)); !m.Typing() {
		t.Fatal("esc closed the field, remapped to ctrl+g")
	}
	if m, _ = m.Update(tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl}); m.Typing() {
		t.Error("ctrl+g did not close the field")
	}
	if h := m.ShortHelp()[1].Help(); h.Key != "ctrl+g" || h.Desc != "clear the filter" {
		t.Errorf("help says %+v", h)
	}
}

// TestFilterKeptOrLookedUp: the field's text is the list's filter; enter
// keeps it when it keeps rows, and looks it up across the table when it
// keeps none, offering that first; esc clears it.
func TestFilterKeptOrLookedUp(t *testing.T) {
	m, b, pump := field(t, DefaultKeyMap())
	m = typeIn(t, m, "ada")
	m.SetMatches(3, 21)
	if m.Query() != "ada" || !strings.Contains(m.View(), "3 of 21 rows") {
		t.Fatalf("query %q, view %q; want ada and the count", m.Query(), m.View())
	}
	m, cmd := m.Update(press(tea.KeyEnter))
	if m.Typing() || m.Busy() || cmd != nil || m.Query() != "ada" || b.Control.Calls("Find") != 0 {
		t.Fatalf("enter on a filter that keeps rows: typing %v, busy %v, query %q, %d finds; want it kept, nothing looked up",
			m.Typing(), m.Busy(), m.Query(), b.Control.Calls("Find"))
	}
	m, _ = m.Open(m.Query())
	if m.Value() != "ada" {
		t.Errorf("the field opens holding %q, want the filter in force", m.Value())
	}
	m, _ = m.Update(press(tea.KeyEscape))
	if m.Query() != "" {
		t.Errorf("esc left the filter %q", m.Query())
	}
	m = typeIn(t, m, "zed@x.io")
	m.SetMatches(0, 21)
	if !strings.Contains(m.View(), "no loaded row matches; enter looks it up in the whole table") {
		t.Errorf("a filter that keeps nothing does not offer the lookup: %q", m.View())
	}
	if h := m.ShortHelp()[0].Help(); h.Desc != "look it up in the whole table" {
		t.Errorf("enter's help says %q", h.Desc)
	}
	m, cmd = m.Update(press(tea.KeyEnter))
	if m.Query() != "" || !m.Busy() {
		t.Fatalf("enter on a filter that keeps nothing: query %q, busy %v; want it cleared and looked up", m.Query(), m.Busy())
	}
	if d := done(t, cmd, pump); d.err != nil {
		t.Errorf("the lookup failed: %v", d.err)
	}
}

// TestSearchJudgesAtTheBackendsClock: a / search judges a lock nobody
// holds at the backend's time, as its check does, not at the machine's:
// at each clock case, a lock whose TTL is an hour past the backend's time
// is a reservation (no orphan), and one an hour before it is an expired
// lock. (Find fell back to the machine's clock when the UI gave it no
// time: a reservation an hour past 2026-12-01 was then expired.)
func TestSearchJudgesAtTheBackendsClock(t *testing.T) {
	clocktest.Each(t, func(t *testing.T, at time.Time) {
		for _, c := range []struct {
			ttl  time.Duration
			want []model.ProblemKind
		}{
			{time.Hour, nil},
			{-time.Hour, []model.ProblemKind{model.ExpiredLock}},
		} {
			sc := model.DefaultSchema(model.LayoutSingle)
			sc.TTLAttr, sc.TTLGiven = "ttl", true
			b := uitest.New(sc)
			b.Clock = clock.Fixed(at)
			lock := dynamotest.Lock("UNIQ#EMAIL#kept@x.io", "")
			lock["ttl"] = model.N(strconv.FormatInt(at.Add(c.ttl).Unix(), 10))
			b.Put(sc.Table, lock)
			pump := events.NewPump()
			m := New(context.Background(), b, &sc, items.New(&sc), pump, DefaultKeyMap())
			m.SetSize(80, 1)
			m = typeIn(t, m, "kept@x.io")
			m, cmd := m.Update(press(tea.KeyEnter))
			_, cmd = m.Update(done(t, cmd, pump))
			var got []model.ProblemKind
			for _, o := range pinned(t, cmd).Orphans {
				got = append(got, o.Kind)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("a lock nobody holds whose TTL is %v from the backend's time: problems %v, want %v", c.ttl, got, c.want)
			}
		}
	})
}

// TestPlaceholderWholeOrNone (issue 38, 12): the placeholder cut short
// ("/fi", beside a refused paste's reason) read as typed text; the field
// shows it whole, or none where it has no room.
func TestPlaceholderWholeOrNone(t *testing.T) {
	whole := "/filter: email, username, account id…"
	for _, width := range []int{80, 60, 30, 12} {
		m, _, _ := field(t, DefaultKeyMap())
		m.SetSize(width, 1)
		m, _ = m.Open("")
		for _, what := range []string{"open", "a paste refused"} {
			if what == "a paste refused" {
				m, _ = m.Update(tea.PasteMsg{Content: "a\x07b"})
			}
			line := strings.TrimRight(ansi.Strip(m.View()), " ")
			if !strings.HasPrefix(line, whole) && !strings.HasPrefix(line, "/ ") && line != "/" {
				t.Errorf("at %d, %s: the field shows %q, want the placeholder whole or none", width, what, line)
			}
		}
	}
}

// TestANewFilterGivesUpTheSearch (issue 38, 3; found by
// TestTheScreenAgreesWithTheTable): /v1 enter searched the table, esc, then
// a filter that kept rows; seconds later the search's answer pinned its
// rows, cleared that filter and moved the selection. Opening the field
// again gives the running search up: its answer pins nothing.
func TestANewFilterGivesUpTheSearch(t *testing.T) {
	m, _, pump := field(t, DefaultKeyMap())
	m = typeIn(t, m, "zed")
	m, first := m.Update(press(tea.KeyEnter))
	if !m.Busy() {
		t.Fatal("enter on a filter that keeps nothing started no search")
	}
	m = typeIn(t, m, "ada")
	if m.Busy() {
		t.Error("a new filter left the search running")
	}
	if _, cmd := m.Update(done(t, first, pump)); cmd != nil {
		t.Errorf("the search given up pinned its answer: %T", cmd())
	}
}
