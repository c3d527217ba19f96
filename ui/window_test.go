package ui

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/memtest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/rows"
)

// endless is a read-only backend of n accounts, each with its two locks,
// made as each page is asked for and kept nowhere: whatever memory a
// test measures is the UI's.
type endless struct {
	Pages
	sc *model.Schema
	n  int
}

// account is account i, as AccountsPage reads it.
func (e *endless) account(i int) model.AccountView {
	id := fmt.Sprintf("ACCT#%08x", i)
	email, handle := fmt.Sprintf("user%d@example.org", i), fmt.Sprintf("user%d", i)
	it := model.Item{"PK": model.S(id), "SK": model.S("PROFILE"), "email": model.S(email), "username": model.S(handle)}
	lock := func(ci int, v string) model.LockView {
		_, k := e.sc.LockKey(ci, v)
		return model.LockView{Constraint: ci, Value: v, Owner: id, Status: model.LockOK,
			Item: model.Item{"PK": model.S(k["PK"]), "SK": model.S("LOCK"), "owner": model.S(id)}}
	}
	return model.AccountView{ID: id, Item: it, Locks: []model.LockView{lock(0, email), lock(1, handle)}}
}

func (e *endless) AccountsPage(_ context.Context, from backend.Cursor, want int, _ bool) (backend.AccountPage, error) {
	at := from.Pos()
	end := min(at+want, e.n)
	views := make([]model.AccountView, 0, end-at)
	for i := at; i < end; i++ {
		views = append(views, e.account(i))
	}
	return backend.AccountPage{Accounts: views, Next: backend.At(end, end == e.n)}, nil
}

// drive runs m's update loop as the program does (uitest.Drive).
func drive(m Model, cmds ...tea.Cmd) Model {
	return uitest.Drive(m, func(m Model, msg tea.Msg) (Model, tea.Cmd) {
		next, cmd := m.Update(msg)
		return next.(Model), cmd
	}, cmds...)
}

// gOver presses G on n endless accounts at 120x40, through the real
// Update loop with a memory limit of budget, and returns the model after
// it and the heap's peak while it read.
func gOver(t *testing.T, n int, budget int64) (Model, uint64) {
	t.Helper()
	sc := model.DefaultSchema(model.LayoutSingle)
	runtime.GC()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(budget))
	stop := memtest.HeapPeak()
	m := New(context.Background(), Options{Roles: Roles{Pages: &endless{sc: &sc, n: n}}, Schema: sc,
		Endpoint: backend.Endpoint{URL: "http://127.0.0.1:8000", Loopback: true}, NoCheck: true})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = drive(next.(Model), next.(Model).views.accounts.Init())
	next, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	m = drive(next.(Model), cmd)
	_ = m.View()
	return m, stop()
}

// selected is the key of the accounts view's selected account.
func selected(m Model) string {
	a, _ := m.views.accounts.SelectedAccount()
	return a.ID
}

// TestGHoldsTheHeapFlat: G over a table far larger than the window, driven
// through the real Update loop against a backend that keeps no account,
// keeps the heap under the budget (the UI's share of --max-memory), and
// about where it is for a table of 10,000 accounts; the last account is
// selected, the status counts every row, and g brings the first back.
// LOCKTABLE_TEST_G_ACCOUNTS sets the size (make bench-tui runs 10M).
func TestGHoldsTheHeapFlat(t *testing.T) {
	n := 100_000
	if v := os.Getenv("LOCKTABLE_TEST_G_ACCOUNTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			t.Fatalf("LOCKTABLE_TEST_G_ACCOUNTS=%q: want a positive integer", v)
		}
	}
	const budget = 32 << 20
	_, small := gOver(t, 10_000, budget)
	start := time.Now()
	m, peak := gOver(t, n, budget)
	elapsed := time.Since(start)
	fmt.Printf("tui G: accounts=%d budget=%dMB peak-heap=%.1fMB (10k accounts: %.1fMB) time=%.1fs\n",
		n, budget>>20, float64(peak)/(1<<20), float64(small)/(1<<20), elapsed.Seconds())
	if peak > budget {
		t.Errorf("G over %d accounts: heap peak %.1f MB, over the budget of %d MB", n, float64(peak)/(1<<20), budget>>20)
	}
	last := fmt.Sprintf("ACCT#%08x", n-1)
	if id := selected(m); id != last {
		t.Fatalf("after G %q is selected, want %s", id, last)
	}
	if s := m.views.accounts.Status(); !strings.Contains(s, fmt.Sprintf("row %s of %s", rows.Count(int64(3*n)), rows.Count(int64(3*n)))) {
		t.Errorf("after G the status says %q", s)
	}
	next, cmd := m.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	m = drive(next.(Model), cmd)
	if id := selected(m); id != "ACCT#00000000" {
		t.Errorf("after g %q is selected, want ACCT#00000000", id)
	}
}
