package locks

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// fixture holds ada's sound locks, an orphan (ghost) and bob's email
// lock, in the default layout.
func fixture() *uitest.Backend {
	return uitest.Holding(
		dynamotest.Account("ACCT#a1", "ada@x.io", "ada"), dynamotest.Lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), dynamotest.Lock("UNIQ#HANDLE#ada", "ACCT#a1"),
		dynamotest.Lock("UNIQ#HANDLE#ghost", ""),
		dynamotest.Account("ACCT#b2", "bob@x.io", "bob"), dynamotest.Lock("UNIQ#EMAIL#bob@x.io", "ACCT#b2"),
	)
}

// shown returns the view on b, shown and its first page loaded.
func shown(t *testing.T, b *uitest.Backend, km KeyMap) Model {
	t.Helper()
	sc := b.Schema()
	st := styles.New(true)
	m := New(context.Background(), b, &rows.Renderer{Schema: &sc, Styles: &st}, items.New(&sc), km)
	m.SetSize(100, 10)
	if cmd := m.Prefetch(); cmd != nil || b.Control.Calls("LocksPage") != 0 {
		t.Fatalf("the view read before it was shown: %d reads", b.Control.Calls("LocksPage"))
	}
	cmd := m.Show()
	if cmd == nil {
		t.Fatal("Show asks for no page")
	}
	m, _ = m.Update(cmd())
	if m.Loading() || !m.pager.Paging().Done() || m.Err() != nil {
		t.Fatalf("after the page: loading %v, done %v, err %v", m.Loading(), m.pager.Paging().Done(), m.Err())
	}
	return m
}

func press(m Model, code rune) (Model, tea.Cmd) {
	k := tea.KeyPressMsg{Code: code}
	if code >= ' ' && code < 0x7f {
		k.Text = string(code)
	}
	return m.Update(k)
}

func selected(m Model) string {
	for _, l := range strings.Split(ansi.Strip(m.View()), "\n") {
		if strings.HasPrefix(l, "▸") {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	return ""
}

// TestLocksListedWithTheirStatus: every lock is a row, "checking" until a
// report arrives, then its status; the status line counts them.
func TestLocksListedWithTheirStatus(t *testing.T) {
	b := fixture()
	m := shown(t, b, DefaultKeyMap())
	if m.Count() != 4 || !strings.Contains(m.Status(), "4 locks loaded") {
		t.Fatalf("%d locks, status %q; want 4", m.Count(), m.Status())
	}
	view := ansi.Strip(m.View())
	for _, want := range []string{"UNIQ#EMAIL#ada@x.io", "UNIQ#HANDLE#ghost", "UNIQ#EMAIL#bob@x.io", "checking"} {
		if !strings.Contains(view, want) {
			t.Errorf("no %q in\n%s", want, view)
		}
	}
	r, err := b.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m.look.items.SetReport(&r, r.Duplicates())
	view = ansi.Strip(m.View())
	if strings.Contains(view, "checking") {
		t.Errorf("still checking after the report:\n%s", view)
	}
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "ghost") && !strings.Contains(l, string(model.LockOrphan)) {
			t.Errorf("the ownerless lock is not an orphan: %q", l)
		}
	}
}

// TestNoLocks: an empty table says so rather than show an empty list.
func TestNoLocks(t *testing.T) {
	m := shown(t, uitest.Holding(), DefaultKeyMap())
	if v := ansi.Strip(m.View()); !strings.Contains(v, "no locks") {
		t.Errorf("view %q, want no locks", v)
	}
}

// TestStalePageDropped: a page asked for before a reload is dropped when
// it arrives after it.
func TestStalePageDropped(t *testing.T) {
	b := fixture()
	sc := b.Schema()
	st := styles.New(true)
	m := New(context.Background(), b, &rows.Renderer{Schema: &sc, Styles: &st}, items.New(&sc), DefaultKeyMap())
	m.SetSize(100, 10)
	stale := m.Show()
	reload := m.Reload()
	m, _ = m.Update(stale())
	if m.Count() != 0 {
		t.Fatalf("a page from before the reload was shown: %d locks", m.Count())
	}
	m, _ = m.Update(reload())
	if m.Count() != 4 {
		t.Errorf("the reload's page: %d locks, want 4", m.Count())
	}
}

// TestEnterOpensTheLock: enter asks for the detail of the selected lock,
// read again (so that c and C copy it: issue 27 #8; it rendered the item
// as listed, Render(nil), before); down moves to the next lock first.
func TestEnterOpensTheLock(t *testing.T) {
	m := shown(t, fixture(), DefaultKeyMap())
	first := selected(m)
	m, _ = press(m, tea.KeyDown)
	if selected(m) == first {
		t.Fatalf("down did not move off %q", first)
	}
	_, cmd := press(m, tea.KeyEnter)
	if cmd == nil {
		t.Fatal("enter asks for nothing")
	}
	open, ok := cmd().(detail.OpenMsg)
	if !ok {
		t.Fatalf("enter emits %T, want detail.OpenMsg", cmd())
	}
	ref, _ := m.SelectedRef()
	if !strings.Contains(open.Title, ref.Key["PK"]) || !strings.Contains(open.Title, "checking") {
		t.Errorf("detail title %q, want the selected lock %s and its status", open.Title, ref.Key["PK"])
	}
	if open.Read == nil || !reflect.DeepEqual(*open.Read, ref) {
		t.Fatalf("the detail reads %v, want the selected lock %v", open.Read, ref)
	}
	var item model.Item
	if err := fixture().ReadConsistent(context.Background(), []model.KeyRef{ref}, func(_ string, it model.Item) { item = it }); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Join(open.Render(item), "\n"); !strings.Contains(lines, ref.Key["PK"]) {
		t.Errorf("the detail does not show the lock's item:\n%s", lines)
	}
}

// TestNextProblemSeeksTheOrphan: n moves to the next lock with a problem,
// and says so when there is none further.
func TestNextProblemSeeksTheOrphan(t *testing.T) {
	b := fixture()
	m := shown(t, b, DefaultKeyMap())
	r, err := b.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m.look.items.SetReport(&r, r.Duplicates())
	m, _ = press(m, 'n')
	if s := selected(m); !strings.Contains(s, "ghost") {
		t.Fatalf("n selected %q, want the orphan", s)
	}
	m, _ = press(m, 'n')
	if !strings.Contains(m.Status(), "no further problem") || !strings.Contains(selected(m), "ghost") {
		t.Errorf("a second n: status %q, selected %q; want it to stay and say so", m.Status(), selected(m))
	}
	m, _ = press(m, tea.KeyDown)
	if strings.Contains(m.Status(), "no further problem") {
		t.Errorf("the note outlived the next key: %q", m.Status())
	}
}

// TestRemappedEnter: the view matches its bindings, not the keys they
// ship with: enter remapped to o opens with o, and enter does nothing.
func TestRemappedEnter(t *testing.T) {
	km := DefaultKeyMap()
	if !keymap.Remap(&km, "enter", []string{"o"}) {
		t.Fatal("no binding enter")
	}
	m := shown(t, fixture(), km)
	if _, cmd := press(m, tea.KeyEnter); cmd != nil {
		if _, ok := cmd().(detail.OpenMsg); ok {
			t.Error("enter still opens the lock")
		}
	}
	if _, cmd := press(m, 'o'); cmd == nil {
		t.Error("o does not open the lock")
	} else if _, ok := cmd().(detail.OpenMsg); !ok {
		t.Errorf("o emits %T, want detail.OpenMsg", cmd())
	}
	if !strings.Contains(km.ShortHelp()[0].Help().Key, "o") {
		t.Errorf("help says %q", km.ShortHelp()[0].Help().Key)
	}
}

// TestFailedReadStopsPaging: after a page fails, moving down asks for no
// more pages (the view would ask the failing table again at every key);
// the rows stay, and Retry asks for the page again.
func TestFailedReadStopsPaging(t *testing.T) {
	b := fixture()
	sc := b.Schema()
	st := styles.New(true)
	m := New(context.Background(), b, &rows.Renderer{Schema: &sc, Styles: &st}, items.New(&sc), DefaultKeyMap())
	m.SetSize(100, 1) // 3 rows a page: 3 of the 4 locks
	m, _ = m.Update(m.Show()())
	if m.Count() != 3 || m.pager.Paging().Done() {
		t.Fatalf("first page: %d locks, done %v; want 3, more", m.Count(), m.pager.Paging().Done())
	}
	b.Control.Fail("LocksPage", errors.New("throttled"))
	m, cmd := press(m, tea.KeyDown)
	if cmd == nil {
		t.Fatal("moving down asks for no page")
	}
	m, _ = m.Update(cmd())
	if m.Err() == nil {
		t.Fatal("the failed page is not the view's error")
	}
	calls := b.Control.Calls("LocksPage")
	for range 2 {
		if m, cmd = press(m, tea.KeyDown); cmd != nil {
			m, _ = m.Update(cmd())
		}
	}
	if b.Control.Calls("LocksPage") != calls {
		t.Errorf("after a failed read, moving down read %d pages more, want none until r", b.Control.Calls("LocksPage")-calls)
	}
	if m.Count() != 3 {
		t.Errorf("%d locks after the failure, want the 3 read", m.Count())
	}
	b.Control.Fail("LocksPage", nil)
	if cmd = m.Retry(); cmd == nil {
		t.Fatal("Retry asks for nothing")
	}
	m, _ = m.Update(cmd())
	if m.Err() != nil || m.Count() != 4 || !m.pager.Paging().Done() {
		t.Errorf("after the retry: err %v, %d locks, done %v; want 4, done", m.Err(), m.Count(), m.pager.Paging().Done())
	}
}
