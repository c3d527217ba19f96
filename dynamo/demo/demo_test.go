package demo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/demo"
	"github.com/locktable/locktable/dynamo/seed"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// seededDemo starts the demo backend for the test and seeds a writable
// layout-1 store on it, as --demo does.
func seededDemo(t *testing.T, o seed.Options) *dynamo.Store {
	t.Helper()
	backend, err := demo.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	client, ep, err := dynamo.NewClient(context.Background(), dynamo.ClientOptions{EndpointURL: backend.URL, Demo: true})
	if err != nil {
		t.Fatal(err)
	}
	store := dynamo.NewStore(client, ep, model.DefaultSchema(model.LayoutSingle), clock.System())
	store.SetWritable(true)
	if _, err := seed.Run(context.Background(), store, o); err != nil {
		t.Fatal(err)
	}
	return store
}

// TestDemoBackendServesEveryRead runs the reads the UI and the check send
// against the embedded minidyn backend, whose expression parser is
// stricter than DynamoDB's in places (nested ANDs).
func TestDemoBackendServesEveryRead(t *testing.T) {
	ctx := context.Background()
	store := seededDemo(t, seed.Options{Accounts: 10, Anomalies: true, Showcase: true})
	if r, err := store.Checker.Check(ctx, nil); err != nil || len(r.Problems) == 0 {
		t.Fatalf("check: %v, %d problems", err, len(r.Problems))
	}
	// A value nobody holds: the filtered scan for holders runs to the end.
	holders, err := store.Lookup.Holders(ctx, []int{1}, "nobody-has-this", nil)
	if err != nil || len(holders[0]) != 0 {
		t.Fatalf("holders of a free value: %v, %v", holders, err)
	}
	if holders, err := store.Lookup.Holders(ctx, []int{1}, "ada0", nil); err != nil || len(holders[0]) != 1 {
		t.Fatalf("holders of ada0: %v, %v", holders, err)
	}
	// Both constraints in one scan: a filter that ORs them.
	if holders, err := store.Lookup.Holders(ctx, []int{0, 1}, "ada0", nil); err != nil || len(holders[0]) != 0 || len(holders[1]) != 1 {
		t.Fatalf("holders of ada0 by email or username: %v, %v", holders, err)
	}
	if page, err := store.Pages.LocksPage(ctx, backend.Cursor{}, 50); err != nil || len(page.Locks) == 0 {
		t.Fatalf("locks page: %d locks, %v", len(page.Locks), err)
	}
	if page, err := store.Pages.AccountsPage(ctx, backend.Cursor{}, 20, true); err != nil || len(page.Accounts) < 20 {
		t.Fatalf("accounts page: %d accounts, %v", len(page.Accounts), err)
	}
	// The showcase's other items; its orders are in the first account's
	// partition, read by a Query.
	others, err := store.Pages.OthersPage(ctx, backend.Cursor{}, 10)
	if err != nil || len(others.Items) != 3 {
		t.Fatalf("others page: %d items, %v", len(others.Items), err)
	}
	var first string
	for _, it := range others.Items {
		if strings.HasPrefix(it[store.Schema.SK].S, "ORDER#") {
			first = it[store.Schema.PK].S
		}
	}
	if page, err := store.Pages.PartitionPage(ctx, first, backend.Cursor{}, 10); err != nil || len(page.Items) != 3 {
		t.Fatalf("partition of %s: %d items, %v", first, len(page.Items), err)
	}
	if err := store.Verify(ctx); err != nil { // one segment: minidyn ignores them
		t.Fatal(err)
	}
	if r, err := store.Checker.Check(ctx, nil); err != nil || r.OtherItems() != 3 {
		t.Fatalf("check: %d other items (%v), %v", r.OtherItems(), r.Others, err)
	}
}

// TestProbeMinidyn: minidyn has transactions but ignores ClientRequestToken,
// returns no ALL_OLD item, ignores a parallel scan's segments and fails a
// scan whose filter compares values of different types; the probes say
// so, in words, and the store scans with one segment.
func TestProbeMinidyn(t *testing.T) {
	ctx := context.Background()
	store := seededDemo(t, seed.Options{Accounts: 2})
	if err := store.Verify(ctx); err != nil { // as every command does
		t.Fatal(err)
	}
	c, err := store.Probe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (backend.Capabilities{Probed: true, Transactions: true}); c != want || len(c.Missing()) != 4 {
		t.Fatalf("capabilities %+v (%q), want %+v", c, c.Missing(), want)
	}
	// And the store scans with one segment: with four, each would read
	// the whole table, and the check would count every item four times.
	scanned := func(segments int) int {
		store.Segments = segments
		r, err := store.Checker.Check(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r.ScannedItems
	}
	if one, four := scanned(1), scanned(4); four != one {
		t.Errorf("a check with 4 segments scanned %d items, with 1 %d", four, one)
	}
}

// TestMinidynHasNoTTL: minidyn answers the TTL operations with a bare
// 400, which says it has none: a table whose TTL attribute is not given
// is checked without TTL and without a warning. (--demo names one: its
// UpdateTimeToLive, answered so too, is skipped: cli's
// TestDemoTableHasReservations.)
func TestMinidynHasNoTTL(t *testing.T) {
	ctx := context.Background()
	r, err := seededDemo(t, seed.Options{Accounts: 3}).Checker.Check(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 0 || r.Now != 0 {
		t.Errorf("warnings %q, now %d: want none, and no TTL judged", r.Warnings, r.Now)
	}
}

// TestHolderLookupCountsTheAccountsRead: minidyn leaves a scan's
// ScannedCount out, and the demo's holder lookup said "consistent scan of
// the accounts, 0 items read" of a scan that returned every account. A
// page has read at least the items it returned.
func TestHolderLookupCountsTheAccountsRead(t *testing.T) {
	ctx := context.Background()
	store := seededDemo(t, seed.Options{Accounts: 10})
	if err := store.Verify(ctx); err != nil { // as every command does: it probes the reads
		t.Fatal(err)
	}
	l, err := store.Lookup.LookupHolders(ctx, []backend.Wanted{{Constraint: 1, Value: "nobody-has-this"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.Method != backend.ScanMethod || l.ItemsRead < 10 {
		t.Errorf("lookup by %q read %d items, want the 10 accounts at least", l.Method, l.ItemsRead)
	}
}
