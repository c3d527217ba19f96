package ui

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// accountsShown are the keys of the account rows on screen, in order.
func (d *driver) accountsShown() []string {
	var ids []string
	for _, l := range d.lines()[2:] {
		if f := strings.Fields(strings.TrimPrefix(l, "▸ ")); len(f) > 0 && strings.HasPrefix(f[0], "ACCT#") {
			ids = append(ids, f[0])
		}
	}
	return ids
}

// firstFields are the first word of each row of the list on screen that
// starts with prefix, in order.
func (d *driver) firstFields(prefix string) []string {
	var out []string
	for _, l := range d.lines()[2 : len(d.lines())-2] {
		if f := strings.Fields(strings.TrimPrefix(l, "▸ ")); len(f) > 0 && strings.HasPrefix(f[0], prefix) {
			out = append(out, f[0])
		}
	}
	return out
}

// showLocks shows the locks view, every page of it read.
func (d *driver) showLocks() {
	d.t.Helper()
	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	d.settle()
}

// showItems shows the items view, every page of it read.
func (d *driver) showItems() {
	d.t.Helper()
	d.press("4")
	d.until("the items", func(m *Model) bool { return m.views.others.Done() && !m.views.others.Loading() })
	d.settle()
}

// TestSortAccounts (issue 39, 3): s sorts the accounts loaded by key, by
// each unique value, then by their problems, ascending, and S reverses;
// each account keeps its locks under it, the orphan locks stay on top,
// the header and the status line say the sort, and the selection stays
// on its row (a lock of carol's) wherever the sort puts it.
func TestSortAccounts(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 140, 40)
	d.ready()
	d.selectRow("UNIQ#HANDLE#carol")
	readOrder := d.accountsShown()
	for _, c := range []struct {
		keys   []string
		header string
		want   []string
	}{
		{[]string{"s"}, "1 Accounts sorted by key ↑", []string{"ACCT#a1", "ACCT#b2", "ACCT#c3", "ACCT#d4", "ACCT#e5", "ACCT#f6", "ACCT#g7"}},
		{[]string{"S"}, "1 Accounts sorted by key ↓", []string{"ACCT#g7", "ACCT#f6", "ACCT#e5", "ACCT#d4", "ACCT#c3", "ACCT#b2", "ACCT#a1"}},
		// f6's email is a number: its DynamoDB JSON, {"N":"5"}, after
		// every letter; d4 and e5 share dup@x.io and keep the order read.
		{[]string{"s"}, "1 Accounts sorted by email ↑", []string{"ACCT#a1", "ACCT#b2", "ACCT#c3", "ACCT#d4", "ACCT#e5", "ACCT#g7", "ACCT#f6"}},
		{[]string{"S"}, "1 Accounts sorted by email ↓", []string{"ACCT#f6", "ACCT#g7", "ACCT#d4", "ACCT#e5", "ACCT#c3", "ACCT#b2", "ACCT#a1"}},
		// g7 has no username: last, either way.
		{[]string{"s", "S"}, "1 Accounts sorted by username ↓", []string{"ACCT#f6", "ACCT#e5", "ACCT#d4", "ACCT#c3", "ACCT#b2", "ACCT#a1", "ACCT#g7"}},
		// One problem each but a1 and g7, which keep the order read.
		{[]string{"s"}, "1 Accounts sorted by problems ↑", []string{"ACCT#a1", "ACCT#g7", "ACCT#b2", "ACCT#c3", "ACCT#d4", "ACCT#e5", "ACCT#f6"}},
		{[]string{"S"}, "1 Accounts sorted by problems ↓", []string{"ACCT#b2", "ACCT#c3", "ACCT#d4", "ACCT#e5", "ACCT#f6", "ACCT#a1", "ACCT#g7"}},
		{[]string{"s"}, "1 Accounts  2 Locks", readOrder},
	} {
		d.press(c.keys...)
		if got := d.accountsShown(); !slices.Equal(got, c.want) {
			t.Errorf("after %v: accounts %q, want %q\n%s", c.keys, got, c.want, d.screen())
		}
		if h := d.lines()[1]; !strings.Contains(h, c.header) {
			t.Errorf("after %v: the header %q does not say %q", c.keys, h, c.header)
		}
		if sel := d.selected(); !strings.Contains(sel, "UNIQ#HANDLE#carol") {
			t.Errorf("after %v: the selection left carol's lock for %q", c.keys, sel)
		}
		d.wantRows("orphan locks (2)")
		d.wantRows("ACCT#f6", "└ (email)", "└ UNIQ#HANDLE#frank")
		d.wantRows("ACCT#c3", "└ UNIQ#EMAIL#carol@x.io", "└ UNIQ#HANDLE#carol")
	}
	if s := d.lines()[len(d.lines())-2]; !strings.Contains(s, "not sorted: as read") {
		t.Errorf("the status line %q does not say the order", s)
	}
}

// TestSortLocks (issue 39, 3): the locks loaded by owner, ascending and
// descending, a lock with no owner last either way; then by key.
func TestSortLocks(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.showLocks()
	d.selectRow("UNIQ#HANDLE#eve")
	d.press("s", "s")
	owners := func() []string {
		var out []string
		for _, l := range d.lines()[2:14] {
			_, owner, _ := strings.Cut(fields(strings.TrimPrefix(l, "▸ ")), " owner ")
			owner, _, _ = strings.Cut(owner, " ")
			if strings.Contains(l, " no owner ") {
				owner = ""
			}
			out = append(out, owner)
		}
		return out
	}
	want := []string{"ACCT#a1", "ACCT#a1", "ACCT#a1", "ACCT#b2", "ACCT#d4", "ACCT#d4", "ACCT#e5", "ACCT#f6", "ACCT#g7", "ACCT#z9", "", ""}
	if got := owners(); !slices.Equal(got, want) {
		t.Errorf("by owner: %q, want %q\n%s", got, want, d.screen())
	}
	if h := d.lines()[1]; !strings.Contains(h, "2 Locks sorted by owner ↑") {
		t.Errorf("the header %q does not say the sort", h)
	}
	d.press("S")
	want = []string{"ACCT#z9", "ACCT#g7", "ACCT#f6", "ACCT#e5", "ACCT#d4", "ACCT#d4", "ACCT#b2", "ACCT#a1", "ACCT#a1", "ACCT#a1", "", ""}
	if got := owners(); !slices.Equal(got, want) {
		t.Errorf("by owner, descending: %q, want %q\n%s", got, want, d.screen())
	}
	if sel := d.selected(); !strings.Contains(sel, "UNIQ#HANDLE#eve") {
		t.Errorf("the selection left eve's lock for %q", sel)
	}
	d.press("s", "s", "s") // expiry (none has a TTL: as read), none, key
	keys := d.firstFields("UNIQ#")
	if !slices.IsSorted(keys) || len(keys) != 12 {
		t.Errorf("by key: %q", keys)
	}
}

// TestSortProblems (issue 39, 3): kind orders the groups by the kind's
// name; value and account order the problems within each group.
func TestSortProblems(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.press("3")
	groups := func() []string {
		var out []string
		for _, l := range d.lines()[2:] {
			if f := strings.Fields(l); len(f) == 2 && strings.HasPrefix(f[1], "(") {
				out = append(out, f[0])
			}
		}
		return out
	}
	d.selectRow("UNIQ#HANDLE#ghost")
	d.press("s")
	if got, want := groups(), []string{"duplicate_value", "foreign_lock", "invalid_value", "missing_lock", "orphan_lock"}; !slices.Equal(got, want) {
		t.Errorf("by kind: groups %q, want %q", got, want)
	}
	d.press("S")
	if got, want := groups(), []string{"orphan_lock", "missing_lock", "invalid_value", "foreign_lock", "duplicate_value"}; !slices.Equal(got, want) {
		t.Errorf("by kind, descending: groups %q, want %q", got, want)
	}
	d.press("s")
	d.wantRows("orphan_lock (2)", "UNIQ#HANDLE#ghost", "UNIQ#EMAIL#old@x.io")
	if h := d.lines()[1]; !strings.Contains(h, "3 Problems sorted by value ↑") {
		t.Errorf("the header %q does not say the sort", h)
	}
	d.press("S")
	d.wantRows("orphan_lock (2)", "UNIQ#EMAIL#old@x.io", "UNIQ#HANDLE#ghost")
	if sel := d.selected(); !strings.Contains(sel, "UNIQ#HANDLE#ghost") {
		t.Errorf("the selection left the ghost orphan for %q", sel)
	}
}

// TestSortCoversWhatIsLoaded (issue 39, 3): while pages remain the
// header says the sort orders what is loaded; the sort reads no page by
// itself (sorted descending, the selected ACCT#0000 stays last however
// many come), a page read later takes its place in the sort, the
// selection staying on its account, and once every page is read the
// note goes.
func TestSortCoversWhatIsLoaded(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeMany(200))}, 80, 24)
	d.ready()
	p := d.m.views.accounts.Pager()
	loaded := p.Count()
	if p.Paging().Done() {
		t.Fatal("every page is read: the test needs pages left")
	}
	d.press("S")
	if h := d.lines()[1]; !strings.Contains(h, "key↓ (loaded)") && !strings.Contains(h, "sorted by key ↓ (what is loaded)") {
		t.Errorf("pages remain, and the header %q does not say the sort orders what is loaded", h)
	}
	if p.Count() != loaded {
		t.Errorf("the sort read pages by itself: %d accounts loaded, %d before", p.Count(), loaded)
	}
	d.press("g")
	first := d.accountsShown()[0]
	d.press("down", "down", "down")
	selected := strings.Fields(strings.TrimPrefix(d.selected(), "▸ "))[0]
	d.run(p.More())
	d.settle()
	if got := strings.Fields(strings.TrimPrefix(d.selected(), "▸ "))[0]; got != selected {
		t.Errorf("a page read moved the selection from %s to %s", selected, got)
	}
	d.press("g")
	if got := d.accountsShown()[0]; got <= first || p.Count() <= loaded {
		t.Errorf("a page read later did not take its place: %s on top, as before it (%s)", got, first)
	}
	d.press("G")
	d.until("every page", func(m *Model) bool { return m.views.accounts.Pager().Paging().Done() })
	d.settle()
	d.press("g")
	if got := d.accountsShown()[0]; got != "ACCT#0199" {
		t.Errorf("every page read, sorted by key descending, the first account is %s", got)
	}
	if h := d.lines()[1]; strings.Contains(h, "loaded") || !strings.Contains(h, "key") {
		t.Errorf("every page read, the header %q still says the sort orders what is loaded (or no sort)", h)
	}
}

// TestExportFollowsTheSort (issue 39, 3): :export writes the accounts in
// the order the sort shows them, each followed by its locks, under the
// orphan locks on top.
func TestExportFollowsTheSort(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.press("s", "s", "s", "S") // username, descending
	path := filepath.Join(t.TempDir(), "sorted.csv")
	d.exportTo(path, false)
	_, rows := readCSV(t, path)
	var got []string
	for i, r := range rows {
		switch {
		case r[0] == "account":
			got = append(got, r[1])
		case r[0] == "lock" && (i == 0 || rows[i-1][1] != r[1]):
			t.Errorf("row %d, a lock of %s, is not under its account: %q", i, r[1], rows[i-1])
		case r[0] == "orphan" && len(got) > 0:
			t.Errorf("row %d, an orphan lock, is not on top", i)
		}
	}
	if want := []string{"ACCT#f6", "ACCT#e5", "ACCT#d4", "ACCT#c3", "ACCT#b2", "ACCT#a1", "ACCT#g7"}; !slices.Equal(got, want) {
		t.Errorf("exported accounts %q, want them as sorted: %q", got, want)
	}
}

// TestSortLocksByExpiry (issue 39, 3): a TTL sorts as a number, the
// locks without one last either way, those of equal TTLs in the order
// read.
func TestSortLocksByExpiry(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeTTL())}, 120, 40)
	d.ready()
	d.showLocks()
	noTTL := []string{"UNIQ#EMAIL#carol@x", "UNIQ#EMAIL#clean@x", "UNIQ#HANDLE#ada", "UNIQ#HANDLE#bob", "UNIQ#HANDLE#carol", "UNIQ#HANDLE#clean", "UNIQ#HANDLE#trial"}
	d.press("s", "s", "s")
	want := append([]string{"UNIQ#EMAIL#ada@x", "UNIQ#EMAIL#gone@x", "UNIQ#EMAIL#pending@x", "UNIQ#EMAIL#bob@x", "UNIQ#EMAIL#trial@x"}, noTTL...)
	if got := d.firstFields("UNIQ#"); !slices.Equal(got, want) {
		t.Errorf("by expiry: %q, want %q", got, want)
	}
	d.press("S")
	want = append([]string{"UNIQ#EMAIL#bob@x", "UNIQ#EMAIL#trial@x", "UNIQ#EMAIL#pending@x", "UNIQ#EMAIL#ada@x", "UNIQ#EMAIL#gone@x"}, noTTL...)
	if got := d.firstFields("UNIQ#"); !slices.Equal(got, want) {
		t.Errorf("by expiry, descending: %q, want %q", got, want)
	}
}

// TestSortKeepsThePinnedOnTop (issue 39, 3): a search's pinned group
// stays on top of the sorted accounts, as found, and the orphan locks
// under it.
func TestSortKeepsThePinnedOnTop(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.search("ACCT#a1")
	d.press("S") // by key, descending: a1 would be last
	if got := d.accountsShown(); len(got) < 2 || got[0] != "ACCT#a1" || got[1] != "ACCT#g7" {
		t.Errorf("the pinned ACCT#a1 is not on top of the sorted accounts: %q\n%s", got, d.screen())
	}
	d.wantRows("orphan locks (2)")
	if d.rowIndex("orphan locks") < d.rowIndex("ACCT#a1") {
		t.Errorf("the orphan locks went above the pinned group:\n%s", d.screen())
	}
}

// TestSortPlacesRowsReadAgain (issue 39, 3): an account read again (as
// the stream's reread does) takes its new place in the sort, and one
// read by a reload takes its own, the selection staying on its account.
func TestSortPlacesRowsReadAgain(t *testing.T) {
	t.Parallel()
	b := fakePlanted()
	d := newDriver(t, Options{Roles: roles(b)}, 120, 40)
	d.ready()
	d.selectRow("ACCT#b2")
	d.press("s", "s", "s") // by username: ada, bob, carol ...
	b.Put(tablePlaceholder, acct("ACCT#c3", "carol@x.io", "aaron"))
	d.run(d.m.views.accounts.Reread([]string{"ACCT#c3"}, false))
	d.settle()
	if got := d.accountsShown(); len(got) < 3 || got[0] != "ACCT#c3" || got[1] != "ACCT#a1" {
		t.Errorf("renamed aaron, ACCT#c3 did not move first: %q", got)
	}
	b.Put(tablePlaceholder, acct("ACCT#a0", "zed@x.io", "abe"), lock("UNIQ#EMAIL#zed@x.io", "ACCT#a0"), lock("UNIQ#HANDLE#abe", "ACCT#a0"))
	d.press("r")
	d.until("the reload and the check", func(m *Model) bool { return m.check.Report() != nil && !m.check.Bar().Running })
	d.settle()
	if got := d.accountsShown(); len(got) < 3 || got[0] != "ACCT#c3" || got[1] != "ACCT#a0" {
		t.Errorf("reloaded, ACCT#a0 (abe) did not take its place after aaron: %q", got)
	}
	if sel := d.selected(); !strings.HasPrefix(fields(strings.TrimPrefix(sel, "▸ ")), "ACCT#b2") {
		t.Errorf("the selection left ACCT#b2 for %q", sel)
	}
}

// TestSortItems (issue 39, 3): the items view sorts its items by key,
// ascending and descending.
func TestSortItems(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeWithOthers())}, 120, 40)
	d.ready()
	d.showItems()
	keys := func() []string {
		var out []string
		for _, l := range d.lines()[2 : len(d.lines())-2] {
			if f := strings.Fields(strings.TrimPrefix(l, "▸ ")); len(f) > 1 {
				out = append(out, f[0]+" "+f[1])
			}
		}
		return out
	}
	d.press("S")
	got := keys()
	if len(got) < 3 || !slices.IsSortedFunc(got, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Errorf("S: the items are not sorted by key, descending: %q", got)
	}
	if h := d.lines()[1]; !strings.Contains(h, "Items sorted by key ↓") && !strings.Contains(h, "Items key↓") {
		t.Errorf("the header %q does not say the sort", h)
	}
	d.press("S")
	down := slices.Clone(got)
	slices.Reverse(got)
	if up := keys(); !slices.Equal(up, got) {
		t.Errorf("S again: %q, want %q reversed", up, down)
	}
}

// TestSortByProblemsFollowsTheCheck (issue 39, 3): sorted by problems,
// an account whose problem a fix repairs goes among those with none once
// the rows are judged again, in the order read; the selection stays on
// its row.
func TestSortByProblemsFollowsTheCheck(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
	d.ready()
	d.press("s", "s", "s", "s", "S") // problems, descending
	if got := d.accountsShown(); len(got) == 0 || got[0] != "ACCT#b2" {
		t.Fatalf("by problems, descending: %q, want ACCT#b2 first", got)
	}
	d.press("g")
	d.selectRow("UNIQ#HANDLE#bob")
	fixSelected(d, "put lock UNIQ#HANDLE#bob (owner ACCT#b2)")
	want := []string{"ACCT#c3", "ACCT#d4", "ACCT#e5", "ACCT#f6", "ACCT#a1", "ACCT#b2", "ACCT#g7"}
	d.until("ACCT#b2 among the accounts with no problem", func(m *Model) bool { return slices.Equal(d.accountsShown(), want) })
	if sel := d.selected(); !strings.Contains(sel, "UNIQ#HANDLE#bob") {
		t.Errorf("the selection left bob's lock for %q", sel)
	}
}
