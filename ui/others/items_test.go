package others

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
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
	m := New(context.Background(), b, &rows.Renderer{Schema: &sc, Styles: &st}, km)
	m.SetSize(100, 5)
	return m
}

// TestPagesOnceShown: nothing is read before the view is shown; then
// pages of other items come, neither the account nor its lock among
// them, and more as the selection moves down.
func TestPagesOnceShown(t *testing.T) {
	b := fixture(40)
	m := newView(b, DefaultKeyMap())
	if cmd := m.Prefetch(); cmd != nil || b.Calls("OthersPage") != 0 {
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
	b.Fail("OthersPage", errors.New("throttled"))
	m, _ = m.Update(m.Show()())
	if m.Err() == nil || m.Loading() {
		t.Fatalf("err %v, loading %v", m.Err(), m.Loading())
	}
	b.Fail("OthersPage", nil)
	m, _ = m.Update(m.Retry()())
	if m.Err() != nil || !strings.Contains(ansi.Strip(m.View()), "is other than an account or a lock") {
		t.Errorf("after the retry, err %v:\n%s", m.Err(), m.View())
	}
}
