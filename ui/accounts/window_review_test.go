package accounts

import (
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
)

// consistent holds the window to what it says: the blocks held are main,
// its index and the pager's rows, every block on disk holds what its
// count says, and no account is listed twice. (From a review of the
// window, as its other checks below.)
func consistent(t *testing.T, m Model, step string) {
	t.Helper()
	w := &m.src.win
	if w.lo > w.hi || w.hi > len(w.counts) {
		t.Fatalf("%s: lo %d hi %d of %d", step, w.lo, w.hi, len(w.counts))
	}
	if s := sum(w.counts[w.lo:w.hi]); s != len(m.src.main) {
		t.Fatalf("%s: held counts %d, main %d", step, s, len(m.src.main))
	}
	per := 1 + len(m.r.Schema.Constraints)
	if n := m.pager.Len() - len(m.src.top); n != len(m.src.main)*per {
		t.Fatalf("%s: pager rows %d, main*per %d", step, n, len(m.src.main)*per)
	}
	for i, id := range m.src.main {
		if m.src.index[id] != i {
			t.Fatalf("%s: index of %s is %d, want %d", step, id, m.src.index[id], i)
		}
	}
	if len(m.src.index) != len(m.src.main) {
		t.Fatalf("%s: index %d main %d", step, len(m.src.index), len(m.src.main))
	}
	seen := map[string]int{}
	for _, id := range m.src.main {
		seen[id]++
	}
	for b := range w.counts {
		if b >= w.lo && b < w.hi {
			continue
		}
		var ids []string
		if b == len(w.counts)-1 && w.apart != nil {
			ids = w.apart
		} else {
			var err error
			ids, err = w.store.IDs(b)
			if err != nil {
				t.Fatalf("%s: block %d: %v", step, b, err)
			}
		}
		ids = slices.DeleteFunc(ids, func(id string) bool { return w.gone[id] })
		if len(ids) != w.counts[b] && len(w.gone) == 0 {
			t.Fatalf("%s: block %d holds %d, counts %d", step, b, len(ids), w.counts[b])
		}
		for _, id := range ids {
			seen[id]++
		}
	}
	for id, n := range seen {
		if n > 1 {
			t.Fatalf("%s: %s listed %d times", step, id, n)
		}
	}
}

// TestASortedViewKeepsItsSelectionAsTheWindowMoves: sorted, pages read by
// G move the window, and the selection stays on its account (it looked
// the account up by its old place: the wrong one, or out of range).
func TestASortedViewKeepsItsSelectionAsTheWindowMoves(t *testing.T) {
	smallWindow(t)
	_, m := viewOf(t, 300, nil)
	m = press(m, "s") // by key, ascending
	m = press(m, "G")
	consistent(t, m, "sorted, after G")
	if id := selectedID(m); id != "ACCT#0299" {
		t.Errorf("sorted by key, G selects %q, want ACCT#0299", id)
	}
}

// TestAnAccountDeletedOnDiskStaysGone: an account deleted (a write of
// this session read it gone) while its block is on disk is not listed
// again when the block comes back.
func TestAnAccountDeletedOnDiskStaysGone(t *testing.T) {
	smallWindow(t)
	b, m := viewOf(t, 120, nil)
	m = press(m, "G")
	b.Delete(b.Schema().Table, map[string]string{"PK": "ACCT#0003", "SK": "PROFILE"})
	m = run(m, m.Reread([]string{"ACCT#0003"}, true))
	m = press(m, "g")
	consistent(t, m, "after g")
	if _, listed := m.src.index["ACCT#0003"]; listed || m.src.win.total() != 119 {
		t.Errorf("ACCT#0003, deleted on disk, is listed again: %v; %d accounts listed, want 119", listed, m.src.win.total())
	}
}

// TestAWrittenAccountBackFromDiskLeavesThePin: an account this session
// wrote while its block was on disk is pinned as written; once its block
// comes back it is listed once, and no longer pinned.
func TestAWrittenAccountBackFromDiskLeavesThePin(t *testing.T) {
	smallWindow(t)
	_, m := viewOf(t, 120, nil)
	m = press(m, "G")
	m = run(m, m.Reread([]string{"ACCT#0003"}, true))
	m = press(m, "g")
	consistent(t, m, "after g")
	if _, listed := m.src.index["ACCT#0003"]; !listed || m.src.isPinned("ACCT#0003") {
		t.Errorf("ACCT#0003 back from disk: listed %v, still pinned %v; want listed, not pinned", listed, m.src.isPinned("ACCT#0003"))
	}
}

// TestGDuringAReloadListsEveryAccount: G pressed before a reload's first
// page came swept from the old list, which the reload then replaced: the
// accounts listed before were never listed again. G now pages after it.
func TestGDuringAReloadListsEveryAccount(t *testing.T) {
	smallWindow(t)
	_, m := sweptViewOf(t, 300, nil)
	m = press(m, "G")
	reload := m.Reload()
	m, g := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	m = run(m, reload)
	m = run(m, g)
	consistent(t, m, "after r and G")
	if n := m.src.win.total(); n != 300 || !m.pager.Paging().Done() {
		t.Errorf("r then G: %d accounts listed, every page read %v; want 300", n, m.pager.Paging().Done())
	}
}

// TestAPageInFlightIsListedOnce: a page asked for before G's sweep began
// lands after g moved the window away from the end; the sweep does not
// list its accounts again.
func TestAPageInFlightIsListedOnce(t *testing.T) {
	smallWindow(t)
	_, m := sweptViewOf(t, 300, nil)
	var page tea.Cmd
	for i := 0; page == nil && i < 100; i++ {
		m, page = m.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	if page == nil {
		t.Fatal("paging down asked for no page")
	}
	m, sweep := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	m, g := m.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	m = run(m, tea.Batch(g, page, sweep))
	consistent(t, m, "after all")
	if n := m.src.win.total(); n != 300 {
		t.Errorf("%d accounts listed, want 300", n)
	}
	_ = model.DefaultSchema
}
