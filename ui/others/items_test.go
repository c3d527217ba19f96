package others

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/locktable/locktable/backend"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// fixture holds an account with its lock, an order under its partition
// and n settings of their own, in the default layout.
func fixture(n int) *uitest.Backend {
	b := uitest.Holding(dynamotest.Account("ACCT#a1", "ada@x.io", "ada"), dynamotest.Lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"),
		model.Item{"PK": model.S("ACCT#a1"), "SK": model.S("ORDER#1"), "total": model.N("12")})
	for i := range n {
		b.Put(b.Schema().Table, model.Item{"PK": model.S(fmt.Sprintf("CONFIG#%03d", i)), "SK": model.S("V1")})
	}
	return b
}

func newView(b *uitest.Backend, km KeyMap) Model {
	sc := b.Schema()
	st := styles.New(true)
	m := New(context.Background(), b, &rows.Renderer{Schema: &sc, Styles: &st}, items.New(&sc), km)
	m.SetSize(100, 5)
	return m
}

// TestPagesOnceShown: nothing is read before the view is shown; then
// pages of other items come, neither the account nor its lock among
// them, and more as the selection moves down.
func TestPagesOnceShown(t *testing.T) {
	b := fixture(40)
	m := newView(b, DefaultKeyMap())
	if cmd := m.Prefetch(); cmd != nil || b.Control.Calls("OthersPage") != 0 {
		t.Fatal("the view read before it was shown")
	}
	m, _ = m.Update(m.Show()())
	if m.Count() != 15 || m.Done() {
		t.Fatalf("first page: %d items, done %v; want 15 (3 screens), more", m.Count(), m.Done())
	}
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "ACCT#a1  ORDER#1") || strings.Contains(view, "PROFILE") || strings.Contains(view, "UNIQ#") {
		t.Errorf("rows:\n%s", view)
	}
	for range 15 {
		var cmd tea.Cmd
		if m, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyDown}); cmd != nil {
			m, _ = m.Update(cmd())
		}
	}
	if m.Count() <= 15 {
		t.Errorf("%d items after moving down: no next page", m.Count())
	}
	if !strings.Contains(m.Status(), "other items loaded") {
		t.Errorf("status %q", m.Status())
	}
}

// TestEnterReadsTheItem: enter opens the selected item's detail, read
// again by its key.
func TestEnterReadsTheItem(t *testing.T) {
	m := newView(fixture(0), DefaultKeyMap())
	m, _ = m.Update(m.Show()())
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter asks for nothing")
	}
	open, ok := cmd().(detail.OpenMsg)
	if !ok || open.Read == nil || open.Read.Key["PK"] != "ACCT#a1" || open.Read.Key["SK"] != "ORDER#1" {
		t.Fatalf("enter: %#v", open)
	}
	if lines := open.Render(nil); !strings.Contains(lines[0], "no longer exists") {
		t.Errorf("a gone item renders %q", lines)
	}
}

// TestEmptyAndFailed: a table with no other item says so; a failed page
// is kept as the error, and Retry reads it again.
func TestEmptyAndFailed(t *testing.T) {
	b := uitest.Holding(dynamotest.Account("ACCT#a1", "ada@x.io", "ada"))
	m := newView(b, DefaultKeyMap())
	b.Control.Fail("OthersPage", errors.New("throttled"))
	m, _ = m.Update(m.Show()())
	if m.Err() == nil || m.Loading() {
		t.Fatalf("err %v, loading %v", m.Err(), m.Loading())
	}
	b.Control.Fail("OthersPage", nil)
	m, _ = m.Update(m.Retry()())
	if m.Err() != nil || !strings.Contains(ansi.Strip(m.View()), "is other than an account or a lock") {
		t.Errorf("after the retry, err %v:\n%s", m.Err(), m.View())
	}
}

// TestFailedReloadKeepsTheItems: a reload whose first page fails keeps
// the items read before, said to be stale and why, as the other views
// do; r reloads again.
func TestFailedReloadKeepsTheItems(t *testing.T) {
	b := fixture(2)
	m := newView(b, DefaultKeyMap())
	m, _ = m.Update(m.Show()())
	if m.Count() != 3 {
		t.Fatalf("first page: %d items, want 3", m.Count())
	}
	b.Control.Fail("OthersPage", errors.New("throttled"))
	m, _ = m.Update(m.Reload()())
	view := ansi.Strip(m.View())
	if m.Count() != 3 || !strings.Contains(view, "CONFIG#001") {
		t.Errorf("after a failed reload: %d items, want the 3 read before:\n%s", m.Count(), view)
	}
	if m.Err() == nil || !strings.Contains(view, "throttled") {
		t.Errorf("the rows are not said to be stale, err %v:\n%s", m.Err(), view)
	}
	b.Control.Fail("OthersPage", nil)
	b.Put(b.Schema().Table, model.Item{"PK": model.S("CONFIG#new"), "SK": model.S("V1")})
	m, _ = m.Update(m.Retry()())
	if view = ansi.Strip(m.View()); m.Count() != 4 || strings.Contains(view, "throttled") {
		t.Errorf("after r: %d items, want 4, no longer stale:\n%s", m.Count(), view)
	}
}

// TestColumnsAlign: the items' attributes start in one column and their
// statuses end in one, whatever the width of each key and value.
func TestColumnsAlign(t *testing.T) {
	b := uitest.Holding(model.Item{"PK": model.S("ORDER#1"), "SK": model.S("A"), "total": model.N("10")},
		model.Item{"PK": model.S("ORDER#10"), "SK": model.S("A"), "total": model.N("100")})
	m := newView(b, DefaultKeyMap())
	m, _ = m.Update(m.Show()())
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	if len(lines) < 2 {
		t.Fatalf("view:\n%s", m.View())
	}
	for _, col := range []string{"total=", "other"} {
		if a, b := column(lines[0], col), column(lines[1], col); a < 0 || a != b {
			t.Errorf("%q at column %d and %d:\n%s\n%s", col, a, b, lines[0], lines[1])
		}
	}
}

// column is the cell at which s first shows sub, -1 if it does not.
func column(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return -1
	}
	return ansi.StringWidth(s[:i])
}

// scanning is a table whose other items are far into it: its first page
// finds none, and there is more.
type scanning struct{ Backend }

func (scanning) OthersPage(_ context.Context, from backend.Cursor, _ int) (backend.ItemPage, error) {
	return backend.ItemPage{Next: backend.At(from.Pos()+1, false)}, nil
}

// TestNoneFoundYetSaysSo: while the pages read find no item, the view
// says it has found none so far and reads on, rather than stay blank.
func TestNoneFoundYetSaysSo(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	st := styles.New(true)
	m := New(context.Background(), scanning{}, &rows.Renderer{Schema: &sc, Styles: &st}, items.New(&sc), DefaultKeyMap())
	m.SetSize(100, 5)
	m, cmd := m.Update(m.Show()())
	if cmd == nil || m.Count() != 0 {
		t.Fatalf("after an empty page: %d items, next page asked %v", m.Count(), cmd != nil)
	}
	if v := strings.TrimSpace(ansi.Strip(m.View())); !strings.Contains(v, "so far") {
		t.Errorf("the view while no item is found yet: %q", v)
	}
}
