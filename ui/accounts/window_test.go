package accounts

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// smallWindow makes blocks of 8 accounts and a window of 4 blocks for
// the test: a few hundred accounts move it many times.
func smallWindow(t *testing.T) {
	t.Helper()
	bs, hb := blockSize, heldBlocks
	blockSize, heldBlocks = 8, 4
	t.Cleanup(func() { blockSize, heldBlocks = bs, hb })
}

// viewOf is the view on n accounts, ACCT#0000 on, with their locks, their
// first page read; missing, when not nil, says which accounts have no
// lock for their email.
func viewOf(t *testing.T, n int, missing func(i int) bool) (*uitest.Backend, Model) {
	t.Helper()
	b := accountsOf(n, missing)
	return b, viewOn(b, b)
}

// sweptViewOf is viewOf whose backend reads every account at once for G
// and n (uitest.Sweeper).
func sweptViewOf(t *testing.T, n int, missing func(i int) bool) (*uitest.Backend, Model) {
	t.Helper()
	b := accountsOf(n, missing)
	return b, viewOn(b, struct {
		*uitest.Backend
		uitest.Sweeper
	}{b, uitest.NewSweeper(b)})
}

// accountsOf is a backend of n accounts, as viewOf describes them.
func accountsOf(n int, missing func(i int) bool) *uitest.Backend {
	sc := model.DefaultSchema(model.LayoutSingle)
	b := uitest.New(sc)
	for i := range n {
		id, email, handle := fmt.Sprintf("ACCT#%04d", i), fmt.Sprintf("u%d@x.io", i), fmt.Sprintf("u%d", i)
		b.Put(sc.Table, dynamotest.Account(id, email, handle))
		b.Put(sc.Table, dynamotest.Lock("UNIQ#HANDLE#"+handle, id))
		if missing == nil || !missing(i) {
			b.Put(sc.Table, dynamotest.Lock("UNIQ#EMAIL#"+email, id))
		}
	}
	return b
}

// viewOn is the view reading from backend, the accounts of b, its first
// page read.
func viewOn(b *uitest.Backend, backend Backend) Model {
	sc := b.Schema()
	st := styles.New(true)
	m := New(context.Background(), backend, &rows.Renderer{Schema: &sc, Styles: &st}, items.New(&sc), DefaultKeyMap())
	m.Pager().SetSize(100, 10)
	return run(m, m.Init())
}

// run updates m with what cmd brings (uitest.Drive).
func run(m Model, cmd tea.Cmd) Model { return uitest.Drive(m, Model.Update, cmd) }

func press(m Model, keys ...string) Model {
	for _, k := range keys {
		msg := tea.KeyPressMsg{Code: []rune(k)[0], Text: k}
		switch k {
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "pgdown":
			msg = tea.KeyPressMsg{Code: tea.KeyPgDown}
		case "pgup":
			msg = tea.KeyPressMsg{Code: tea.KeyPgUp}
		}
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		m = run(m, cmd)
	}
	return m
}

// selectedID is the account of the selected row, "" for none.
func selectedID(m Model) string {
	a, ok := m.SelectedAccount()
	if !ok {
		return ""
	}
	return a.ID
}

// held is how many accounts the view holds in memory, at most what the
// window allows.
func held(t *testing.T, m Model) {
	t.Helper()
	if max := (heldBlocks + heldBlocks/2 + 1) * blockSize; len(m.src.main) > max {
		t.Fatalf("%d accounts held, more than the window's %d", len(m.src.main), max)
	}
}

// TestGThenGShowsTheLastAndTheFirst: G reads every account, the window
// holding a few blocks; the last account is selected, the status counts
// every row; g brings the first back from disk.
func TestGThenGShowsTheLastAndTheFirst(t *testing.T) {
	smallWindow(t)
	_, m := viewOf(t, 300, nil)
	m = press(m, "G")
	held(t, m)
	if id := selectedID(m); id != "ACCT#0299" || m.pager.Count() != 300 {
		t.Fatalf("after G: %q selected, %d accounts listed; want ACCT#0299 of 300", id, m.pager.Count())
	}
	if s := m.Status(); !strings.Contains(s, "row 900 of 900") || !strings.Contains(s, "300 accounts loaded") {
		t.Errorf("after G the status says %q", s)
	}
	m = press(m, "g")
	held(t, m)
	if id := selectedID(m); id != "ACCT#0000" {
		t.Fatalf("after g: %q selected, want ACCT#0000", id)
	}
	if s := m.Status(); !strings.Contains(s, "row 1 of 900") {
		t.Errorf("after g the status says %q", s)
	}
	m = press(m, "G")
	if id := selectedID(m); id != "ACCT#0299" {
		t.Fatalf("G again: %q selected, want ACCT#0299", id)
	}
}

// TestScrollingGoesOverEveryAccountInOrder: down from the first row to
// the last, and up again, every account shows in the order read, once,
// however the window moves under the selection.
func TestScrollingGoesOverEveryAccountInOrder(t *testing.T) {
	smallWindow(t)
	_, m := viewOf(t, 100, nil)
	m = press(m, "G", "g")
	walk := func(key string) []string {
		var seen []string
		for range 400 {
			if id := selectedID(m); len(seen) == 0 || seen[len(seen)-1] != id {
				seen = append(seen, id)
			}
			m = press(m, key)
			held(t, m)
		}
		return seen
	}
	down := walk("down")
	if len(down) != 100 || down[0] != "ACCT#0000" || down[99] != "ACCT#0099" {
		t.Fatalf("down: %d accounts, %v … %v", len(down), down[:min(3, len(down))], down[max(len(down)-3, 0):])
	}
	for i, id := range down {
		if want := fmt.Sprintf("ACCT#%04d", i); id != want {
			t.Fatalf("down: account %d is %s, want %s", i, id, want)
		}
	}
	up := walk("up")
	for i, id := range up {
		if want := fmt.Sprintf("ACCT#%04d", 99-i); id != want {
			t.Fatalf("up: account %d is %s, want %s", i, id, want)
		}
	}
	for range 20 {
		m = press(m, "pgdown")
	}
	if id := selectedID(m); id != "ACCT#0066" {
		t.Errorf("20 pages down from the top: %s, want ACCT#0066 (10 rows a page, 3 an account)", id)
	}
}

// TestNextProblemLooksOnDisk: n and N find a problem in the blocks on
// disk, before and after the window, and say so when there is none.
func TestNextProblemLooksOnDisk(t *testing.T) {
	smallWindow(t)
	_, m := viewOf(t, 200, func(i int) bool { return i == 5 || i == 190 })
	m = press(m, "G", "g")
	m = press(m, "n")
	if id := selectedID(m); id != "ACCT#0005" {
		t.Fatalf("n from the top: %s, want ACCT#0005", id)
	}
	m = press(m, "n")
	if id := selectedID(m); id != "ACCT#0190" {
		t.Fatalf("n again: %s, want ACCT#0190, on disk past the window", id)
	}
	held(t, m)
	m = press(m, "N")
	if id := selectedID(m); id != "ACCT#0005" {
		t.Fatalf("N: %s, want ACCT#0005, on disk before the window", id)
	}
	m = press(m, "N")
	if id := selectedID(m); id != "ACCT#0005" || !strings.Contains(m.Status(), "no further problem") {
		t.Errorf("N before the first problem: %s selected, status %q", id, m.Status())
	}
}

// TestAChangeOnDiskIsReadWhenItComesBack: someone else changes an account
// the window no longer holds; when the selection comes back to it, it is
// read again and shows the change.
func TestAChangeOnDiskIsReadWhenItComesBack(t *testing.T) {
	smallWindow(t)
	sc := model.DefaultSchema(model.LayoutSingle)
	b, m := viewOf(t, 120, nil)
	m = press(m, "G")
	if m.src.items.Has("ACCT#0003") {
		t.Fatal("the first accounts are still held after G: the window did not move")
	}
	b.Put(sc.Table, dynamotest.Account("ACCT#0003", "changed@x.io", "u3"))
	m = run(m, m.Reread([]string{"ACCT#0003"}, false)) // reads only what is held
	m, _ = m.Update(TouchedMsg{IDs: []string{"ACCT#0003"}})
	m = press(m, "g")
	a, ok := m.src.items.Account("ACCT#0003")
	if !ok || a.Item["email"].S != "changed@x.io" {
		t.Errorf("ACCT#0003 back from disk shows %q, want the change", a.Item["email"].S)
	}
}

// TestGFollowsTheEndWhileTheTopChanges: G pressed before the check ends
// reads on to the last account although the check's orphan locks come
// meanwhile and change the rows on top (they kept the selection on its
// row, and G stopped following the end).
func TestGFollowsTheEndWhileTheTopChanges(t *testing.T) {
	_, m := viewOf(t, 300, nil)
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	orphan := model.Problem{Kind: model.OrphanLock, Constraint: "email", Value: "gone@x.io"}
	m.SetOrphans([]model.Problem{orphan})
	m = run(m, cmd)
	if id := selectedID(m); id != "ACCT#0299" || !m.pager.Paging().Done() {
		t.Errorf("G, the orphans shown meanwhile: %q selected, every page read %v; want ACCT#0299, true", id, m.pager.Paging().Done())
	}
}

// TestExportListsEveryAccountOnDisk: :export after G writes every
// account listed, those on disk too, in the list's order, each with its
// locks; under a filter, the rows the filter keeps among those held.
func TestExportListsEveryAccountOnDisk(t *testing.T) {
	smallWindow(t)
	_, m := viewOf(t, 100, nil)
	m = press(m, "G")
	table := m.Export()
	var accounts []string
	for _, r := range table.Rows {
		if r[0] == "account" {
			accounts = append(accounts, r[1])
		}
	}
	if len(table.Rows) != 300 || len(accounts) != 100 {
		t.Fatalf(":export after G: %d rows, %d accounts; want 300, 100", len(table.Rows), len(accounts))
	}
	for i, id := range accounts {
		if want := fmt.Sprintf("ACCT#%04d", i); id != want {
			t.Fatalf("account %d exported is %s, want %s", i, id, want)
		}
	}
	m.Pager().SetFilter("u99@")
	if rows := m.Export().Rows; len(rows) != 3 {
		t.Errorf(":export under a filter: %d rows, want account 99's 3", len(rows))
	}
}
