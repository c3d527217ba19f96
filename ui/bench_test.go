package ui

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/live"
	"github.com/locktable/locktable/ui/pager"
)

// synthetic is a read-only backend that lists its accounts in one page,
// and then forgets them; the benchmarks ask it nothing else.
type synthetic struct {
	Pages
	views []model.AccountView
}

func (s *synthetic) AccountsPage(context.Context, backend.Cursor, int, bool) (backend.AccountPage, error) {
	views := s.views
	s.views = nil // the UI's share of memory is what is measured
	return backend.AccountPage{Accounts: views, Next: backend.At(len(views), true)}, nil
}

// loadedModel returns a UI at 120x40 with n synthetic accounts loaded,
// each with its two locks, in one page. Rendering and moving do no I/O.
func loadedModel(b *testing.B, n int) Model {
	b.Helper()
	sc := model.DefaultSchema(model.LayoutSingle)
	views := syntheticViews(n, "")
	m := New(context.Background(), Options{Roles: roles(&synthetic{views: views}), Schema: sc,
		Endpoint: backend.Endpoint{URL: "http://127.0.0.1:8000", Loopback: true}, NoCheck: true})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	next, _ = next.Update(next.(Model).views.accounts.Init()())
	m = next.(Model)
	m.views.accounts.Pager().SetCursor(m.views.accounts.Pager().Len() / 2) // somewhere in the middle
	// The first frame measures every row loaded, once (rows.Screen.Hold):
	// the frames timed are those of a user scrolling what is loaded.
	_ = m.View()
	// The loading's garbage is collected here, not in the first timed
	// frames: with a few hundred frames timed, one collection of it
	// doubled a frame's time.
	runtime.GC()
	return m
}

// syntheticViews are n accounts of the default schema, keys and values
// told apart by tag, each with its two locks, ok.
func syntheticViews(n int, tag string) []model.AccountView {
	sc := model.DefaultSchema(model.LayoutSingle)
	views := make([]model.AccountView, n)
	for i := range views {
		id := fmt.Sprintf("ACCT#%s%08x", tag, i)
		email, handle := fmt.Sprintf("%suser%d@example.org", tag, i), fmt.Sprintf("%suser%d", tag, i)
		it := model.Item{"PK": model.S(id), "SK": model.S("PROFILE"), "email": model.S(email), "username": model.S(handle)}
		locks := func(ci int, v string) model.LockView {
			_, k := sc.LockKey(ci, v)
			return model.LockView{Constraint: ci, Value: v, Owner: id, Status: model.LockOK,
				Item: model.Item{"PK": model.S(k["PK"]), "SK": model.S("LOCK"), "owner": model.S(id)}}
		}
		views[i] = model.AccountView{ID: id, Item: it, Locks: []model.LockView{locks(0, email), locks(1, handle)}}
	}
	return views
}

// BenchmarkView renders the accounts view with 1k and 100k accounts
// loaded; rendering is O(visible rows), so the two should cost the same.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		m := loadedModel(b, n)
		b.Run(fmt.Sprintf("accounts=%d", n), func(b *testing.B) {
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}

// BenchmarkKeypress is the CPU of one cursor move, Update and View, with
// 100k accounts (300k rows) loaded. Target: under 1 ms.
func BenchmarkKeypress(b *testing.B) {
	moveDownUp(b, loadedModel(b, 100_000))
}

// BenchmarkTakeSweep is the UI's share of G at 100,000 accounts: the
// accounts a sweep read taken in its chunks of 2,000 (pager.Append, as
// the accounts view takes them), a frame drawn after each (the columns
// measure the rows taken: rows.Screen.Hold). It reports the frames' share.
func BenchmarkTakeSweep(b *testing.B) {
	views := syntheticViews(100_000, "x")
	for b.Loop() {
		b.StopTimer()
		m := loadedModel(b, 10)
		b.StartTimer()
		var frames time.Duration
		for c := 0; c < len(views); c += 2000 {
			pager.Append(m.views.accounts.Pager(), views[c:min(c+2000, len(views))])
			sw := clock.Start()
			_ = m.View()
			frames += sw.Elapsed()
		}
		b.ReportMetric(float64(frames.Milliseconds()), "frames-ms/op")
	}
}

// BenchmarkLoadedHeap reports the live heap after 100k accounts with their
// locks are loaded (the UI's share of resident memory; the process adds
// the Go runtime and binary).
func BenchmarkLoadedHeap(b *testing.B) {
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		m := loadedModel(b, 100_000)
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-heap")
		runtime.KeepAlive(m)
	}
}

// BenchmarkViewHelp renders the screen with help open and pages through
// it: the help pages are laid out when help opens (and on a resize), not
// on each frame or pgdn.
func BenchmarkViewHelp(b *testing.B) {
	m := loadedModel(b, 1_000)
	next, _ := m.Update(tea.KeyPressMsg{Code: '?', Text: "?"})
	m = next.(Model)
	pgdn := tea.KeyPressMsg{Code: tea.KeyPgDown}
	for b.Loop() {
		next, _ := m.Update(pgdn)
		m = next.(Model)
		_ = m.View()
	}
}

// followed is m following a table's stream, as the UI is once the
// stream's first read started, with 1,000 accounts from the top marked as
// changed by someone else (every row on screen among them): what a frame
// does more while the table is live. A mark lasts 3 s, so 1,000 is a
// burst of changes far past what a screen shows; marking all 100,000
// would measure the collector scanning the marks, not the frame.
func followed(m Model) Model {
	at := time.Unix(1_700_000_000, 0)
	idle := func(ctx context.Context, _ live.Handler) error { <-ctx.Done(); return ctx.Err() }
	m.live = live.New(context.Background(), idle, m.setup.pump, m.setup.schema, nil, nil, clock.Fixed(at), 0)
	m.live = m.live.Update(live.StartedMsg{})
	m.items.SetNow(at.Unix())
	m.items.MarkChanged(m.views.accounts.SampleIDs(1000))
	return m
}

// BenchmarkViewLive is BenchmarkView's 100k accounts while the table's
// stream is followed and every row is marked changed: the frame costs
// the same.
func BenchmarkViewLive(b *testing.B) {
	m := followed(loadedModel(b, 100_000))
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkKeypressLive is BenchmarkKeypress while the table's stream is
// followed.
func BenchmarkKeypressLive(b *testing.B) {
	moveDownUp(b, followed(loadedModel(b, 100_000)))
}
