package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/others"
)

// otherItems are what a single-table design keeps beside the planted
// accounts: two orders and a session under ACCT#a1's partition key, and
// a setting under a key of its own; none is an account or a lock.
func otherItems() []model.Item {
	return []model.Item{
		{"PK": model.S("ACCT#a1"), "SK": model.S("ORDER#0001"), "total": model.N("12"), "status": model.S("shipped")},
		{"PK": model.S("ACCT#a1"), "SK": model.S("ORDER#0002"), "total": model.N("7"), "status": model.S("paid\x1b[2J")},
		{"PK": model.S("ACCT#a1"), "SK": model.S("SESSION#s1"), "expires": model.N("1767225600")},
		{"PK": model.S("CONFIG#site"), "SK": model.S("V1"), "motd": model.S("hello")},
	}
}

// fakeWithOthers is fakePlanted with otherItems.
func fakeWithOthers() *uitest.Backend { return fake(append(plantedItems(), otherItems()...)...) }

// wantPartition opens ACCT#a1's detail and asserts it lists the other
// items of its partition, their text made printable, and not the
// account itself or another partition's items.
func wantPartition(d *driver) {
	d.t.Helper()
	d.selectRow("ACCT#a1")
	d.press("enter")
	waitScreen(d, "the partition", "other items under PK ACCT#a1: 3")
	screen := d.screen()
	for _, want := range []string{"ACCT#a1 ORDER#0001 status=shipped total=12", `ACCT#a1 ORDER#0002 status=paid\x1b[2J total=7`,
		"ACCT#a1 SESSION#s1 expires=1767225600"} {
		if !strings.Contains(fields(screen), want) {
			d.t.Errorf("the detail does not list %q:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "CONFIG#site") || strings.Contains(screen, "ACCT#a1 PROFILE") || strings.Contains(screen, "\x1b[2J") {
		d.t.Errorf("the partition lists what it should not:\n%q", screen)
	}
}

// TestAccountDetailListsItsPartition: an account's detail lists the
// other items under its partition key, read by one Query.
func TestAccountDetailListsItsPartition(t *testing.T) {
	t.Parallel()
	store := fakeWithOthers()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	wantPartition(d)
	if n := store.Control.Calls("PartitionPage"); n != 1 {
		t.Errorf("%d partition reads, want one Query", n)
	}
}

// TestAccountDetailListsItsPartitionOnDynamoDB is the same against
// dynoxide: a Query on the account's partition key.
func TestAccountDetailListsItsPartitionOnDynamoDB(t *testing.T) {
	t.Parallel()
	store, client := planted(t)
	dynamotest.Put(t, client, store.Schema.Table, otherItems()...)
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	wantPartition(d)
	d.press("esc")
	// At 120 columns with the check's RCU the counts take their short words.
	d.until("the header's count", func(*Model) bool {
		h := d.lines()[1]
		return strings.Contains(h, "other items 4") || strings.Contains(h, "other 4")
	})
}

// TestPartitionPages: a partition longer than a page lists its first
// page and says how to read the next; m reads it.
func TestPartitionPages(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	for i := range detail.PartitionPageSize + 5 {
		store.Put(tablePlaceholder, model.Item{"PK": model.S("ACCT#a1"), "SK": model.S(fmt.Sprintf("ORDER#%04d", i))})
	}
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	d.selectRow("ACCT#a1")
	d.press("enter")
	waitScreen(d, "the first page", "other items under PK ACCT#a1: 50 read so far")
	end := func() {
		for range 10 {
			d.press("pgdown")
		}
	}
	end()
	waitScreen(d, "the way on", "… more below: m reads the next 50")
	d.press("m")
	end()
	waitScreen(d, "the second page", "ORDER#0054")
	if strings.Contains(d.screen(), "more below") || store.Control.Calls("PartitionPage") != 2 {
		t.Errorf("after the last page (%d reads):\n%s", store.Control.Calls("PartitionPage"), d.screen())
	}
}

// TestHeaderCountsOtherItems: once the check is done the header counts
// the items that are neither accounts nor locks, and offers their view
// as a tab; a table without any shows neither.
func TestHeaderCountsOtherItems(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeWithOthers())}, 200, 40)
	d.ready()
	if h := d.lines()[1]; !strings.Contains(h, "other items 4") || !strings.Contains(h, "4 Items") {
		t.Errorf("header %q: want other items 4 and the Items tab", h)
	}
	// At 80 columns the views keep their names (issue 19, 12): the
	// count of other items gives way first, the Items tab says they are.
	d = newDriver(t, Options{Roles: roles(fakeWithOthers())}, 80, 24)
	d.ready()
	if h := d.lines()[1]; !strings.Contains(h, "2 Locks") || !strings.Contains(h, "4 Items") {
		t.Errorf("header at 80 columns %q: the views lost their names", h)
	}
	d = newDriver(t, Options{Roles: roles(fakePlanted())}, 200, 40)
	d.ready()
	if h := d.lines()[1]; strings.Contains(h, "other") || strings.Contains(h, "Items") {
		t.Errorf("header %q of a table with no other item", h)
	}
}

// TestItemsViewListsOthers: 4 shows the items no other view lists, in
// key order; enter reads one in full; tab cycles through the view; the
// view's message (for :items) and a remapped key show it too.
func TestItemsViewListsOthers(t *testing.T) {
	t.Parallel()
	store := fakeWithOthers()
	d := newDriver(t, Options{Roles: roles(store), Keys: map[string][]string{"items": {"I"}}}, 120, 40)
	d.ready()
	d.press("4")
	if d.m.views.shown == viewItems {
		t.Fatal("4 shows the items view though items is remapped to I")
	}
	d.press("I")
	d.until("the items", func(m *Model) bool { return m.views.others.Done() && !m.views.others.Loading() })
	d.settle()
	d.wantRows("ACCT#a1 ORDER#0001 status=shipped total=12 other", `ACCT#a1 ORDER#0002 status=paid\x1b[2J total=7 other`,
		"ACCT#a1 SESSION#s1 expires=1767225600 other", "CONFIG#site V1 motd=hello other")
	if !strings.Contains(d.screen(), "4 other items loaded") {
		t.Errorf("status:\n%s", d.screen())
	}
	d.press("down", "down", "down", "enter")
	waitScreen(d, "the item's detail", `"motd": {"S": "hello"}`)
	if !strings.Contains(d.screen(), "item CONFIG#site  V1") {
		t.Errorf("detail title:\n%s", d.screen())
	}
	d.press("esc", "tab")
	if d.m.views.shown != viewAccounts {
		t.Errorf("tab from the items view shows view %d, want the accounts", d.m.views.shown)
	}
	d.press("shift+tab")
	if d.m.views.shown != viewItems {
		t.Errorf("shift+tab from the accounts shows view %d, want the items", d.m.views.shown)
	}
	d.press("1")
	d.send(others.ShowMsg{})
	d.settle()
	if d.m.views.shown != viewItems {
		t.Errorf("others.ShowMsg shows view %d", d.m.views.shown)
	}
}

// TestGoldenPartition renders a partition detail and the items view at
// each size.
func TestGoldenPartition(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{60, 16}, {80, 24}, {120, 40}, {200, 50}} {
		name := func(view string) string { return fmt.Sprintf("%s_%dx%d", view, size[0], size[1]) }
		d := newDriver(t, Options{Roles: roles(fakeWithOthers())}, size[0], size[1])
		d.ready()
		d.selectRow("ACCT#a1")
		d.press("enter")
		waitScreen(d, "the partition", "other items under PK")
		d.golden(name("partition"))
		d.press("esc", "4")
		d.until("the items", func(m *Model) bool { return m.views.others.Done() && !m.views.others.Loading() })
		d.settle()
		d.golden(name("items"))
	}
}

// TestFilterTheItemsView: / in the items view filters the items, not the
// accounts view behind it; enter keeps it, esc clears it, and enter
// reads the item the filter left selected.
func TestFilterTheItemsView(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeWithOthers())}, 120, 40)
	d.ready()
	d.showItems()
	d.press("/")
	d.typeText("motd")
	d.press("enter")
	d.wantRows("CONFIG#site V1 motd=hello other")
	if d.m.views.others.Filter() != "motd" || d.m.views.accounts.Pager().Filter() != "" {
		t.Errorf("filters: items %q, accounts %q; want the items' alone", d.m.views.others.Filter(), d.m.views.accounts.Pager().Filter())
	}
	d.press("enter")
	waitScreen(d, "the item's detail", `"motd": {"S": "hello"}`)
	d.press("esc", "esc")
	if d.m.views.others.Filter() != "" {
		t.Errorf("esc kept the filter %q", d.m.views.others.Filter())
	}
}
