package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/dynamo/seed"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// sweepAll sweeps s's accounts and returns them in the order handed on,
// failing the test on an error.
func sweepAll(t *testing.T, s *dynamo.Store) []model.AccountView {
	t.Helper()
	var got []model.AccountView
	err := s.Sweeper.AccountsSweep(context.Background(), false, nil,
		func(_ int, views []model.AccountView) { got = append(got, views...) })
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// pagedAll reads every account of s through AccountsPage, page after page.
func pagedAll(t *testing.T, s *dynamo.Store) []model.AccountView {
	t.Helper()
	var all []model.AccountView
	for cur := (backend.Cursor{}); !cur.Done(); {
		p, err := s.Pages.AccountsPage(context.Background(), cur, 1000, false)
		if err != nil {
			t.Fatal(err)
		}
		all, cur = append(all, p.Accounts...), p.Next
	}
	return all
}

// byID keys views by account, after marking duplicate what the whole list
// shares: an account's lock is a duplicate when its page shows another
// holder, and the sweep's pages are not AccountsPage's.
func byID(t *testing.T, what string, views []model.AccountView) map[string]model.AccountView {
	t.Helper()
	views = slices.Clone(views)
	backend.MarkShared(views)
	m := map[string]model.AccountView{}
	for _, v := range views {
		if _, twice := m[v.ID]; twice {
			t.Errorf("%s: %s came twice", what, v.ID)
		}
		m[v.ID] = v
	}
	return m
}

// TestSweepJudgesAsAccountsPage: on tables seeded with every anomaly
// (missing, orphan, foreign and expired locks, duplicates, reservations,
// an invalid value, items that are neither accounts nor locks), each
// account the sweep hands on is the view AccountsPage gives of it, its
// locks' statuses, owners, TTLs and items, in both layouts; every
// account comes once, in scan pages and chunks small enough that each
// segment hands on many.
func TestSweepJudgesAsAccountsPage(t *testing.T) {
	t.Cleanup(dynamo.SetSweepChunk(4)) // not parallel with the other tests, then
	for _, l := range []model.Layout{model.LayoutSingle, model.LayoutTables} {
		t.Run(string(l), func(t *testing.T) {
			t.Parallel()
			at := time.Date(2026, 12, 1, 23, 20, 0, 0, time.UTC)
			store, client := dynamotest.TTLStoreAt(t, l, at)
			if _, err := seed.Run(context.Background(), store, seed.Options{Accounts: 30, Anomalies: true, Showcase: true}); err != nil {
				t.Fatal(err)
			}
			planted := []model.LockStatus{model.LockOK, model.LockMissing, model.LockForeign, model.LockDuplicate,
				model.LockExpired, model.LockExpiring, model.LockInvalid}
			if l == model.LayoutSingle {
				// The seed's reservations are nobody's or outlived: a
				// reservation an account holds, and a TTL that is a string.
				dynamotest.Put(t, client, store.Schema.Table, dynamotest.TTLItems(at)...)
				planted = append(planted, model.LockReserved)
			}
			want := byID(t, "AccountsPage", pagedAll(t, store))
			store.Segments, store.PageSize = 3, 7
			got := byID(t, "the sweep", sweepAll(t, store))
			statuses := map[model.LockStatus]bool{}
			for id, w := range want {
				g, ok := got[id]
				if !ok {
					t.Errorf("%s: not swept", id)
					continue
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("%s swept:\n%+v\nAccountsPage:\n%+v", id, g, w)
				}
				for _, l := range w.Locks {
					statuses[l.Status] = true
				}
			}
			for id := range got {
				if _, ok := want[id]; !ok {
					t.Errorf("%s swept, not an account AccountsPage lists", id)
				}
			}
			for _, s := range planted {
				if !statuses[s] {
					t.Errorf("no lock %s among the %d accounts: the seed no longer plants it, and this test says less", s, len(want))
				}
			}
		})
	}
}

// decodedScans answers every Scan as the SDK decodes it, as a client
// that is not the SDK's would: the options that keep a page's items as
// JSON (rawItems) are not passed on.
type decodedScans struct{ dynamo.API }

func (d decodedScans) Scan(ctx context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	return d.API.Scan(ctx, in)
}

// TestSweepReadsDecodedPages: through a client that decodes the scan's
// items itself, the sweep hands on the same views as through the SDK's
// (whose pages it reads as JSON): what it keeps on disk of a decoded
// item (strings, numbers, a TTL) reads back the same.
func TestSweepReadsDecodedPages(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 23, 20, 0, 0, time.UTC)
	store, client := dynamotest.TTLStoreAt(t, model.LayoutSingle, at)
	if _, err := seed.Run(context.Background(), store, seed.Options{Accounts: 20, Anomalies: true, Showcase: true}); err != nil {
		t.Fatal(err)
	}
	dynamotest.Put(t, client, store.Schema.Table, dynamotest.TTLItems(at)...)
	want := sweepAll(t, store)
	decoded := dynamo.NewStore(decodedScans{client}, store.Endpoint, store.Schema, store.Clock)
	if got := sweepAll(t, decoded); !reflect.DeepEqual(byID(t, "decoded", got), byID(t, "as JSON", want)) {
		t.Errorf("swept through a client that decodes the pages:\n%+v\nthrough the SDK's:\n%+v", got, want)
	}
}

// TestSweepKeepsEachSegmentsOrder: each segment's accounts come in the
// order its scan reads them, and page and progress are never called at
// once (run with -race), though the segments are read side by side.
func TestSweepKeepsEachSegmentsOrder(t *testing.T) {
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	if _, err := seed.Run(context.Background(), store, seed.Options{Accounts: 120, Anomalies: true}); err != nil {
		t.Fatal(err)
	}
	const segments = 4
	store.Segments, store.PageSize = segments, 20
	defer dynamo.SetSweepChunk(7)() // not parallel with the other tests, then
	var inside atomic.Int32
	enter := func(what string) func() {
		if inside.Add(1) != 1 {
			t.Errorf("%s called while another call runs", what)
		}
		time.Sleep(time.Millisecond) // room for another to come in, if it could
		return func() { inside.Add(-1) }
	}
	order := make([][]string, segments)
	progressed := 0
	err := store.Sweeper.AccountsSweep(context.Background(), false,
		func(backend.SweepProgress) { defer enter("progress")(); progressed++ },
		func(seg int, views []model.AccountView) {
			defer enter("page")()
			for _, v := range views {
				order[seg] = append(order[seg], v.ID)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if progressed == 0 {
		t.Error("progress never told")
	}
	c := model.Classifier{Schema: &store.Schema}
	for seg := range segments {
		var want []string
		in := &dynamodb.ScanInput{TableName: aws.String(store.Schema.Table), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(segments)}
		for {
			out, err := client.Scan(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			for _, av := range out.Items {
				it := dynamo.ItemFromSDK(av)
				if c.Classify(store.Schema.Table, it).Kind == model.EntryAccount {
					want = append(want, store.Schema.AccountID(it))
				}
			}
			if len(out.LastEvaluatedKey) == 0 {
				break
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
		if len(want) < 10 {
			t.Fatalf("segment %d holds %d accounts: too few to tell an order", seg, len(want))
		}
		if !slices.Equal(order[seg], want) {
			t.Errorf("segment %d came in the order\n%v\nits scan reads\n%v", seg, order[seg], want)
		}
	}
}

// TestSweepReadsLocksByKeyOnlyForProblems: the sweep takes each lock
// from its own scan, so a table whose one problem is an account without
// its username lock costs the scans and one BatchGetItem (that
// account's locks, read again consistently), not a read of every
// account's locks; the progress counts every item and page read; the
// files the scan was kept in are gone once it returns.
func TestSweepReadsLocksByKeyOnlyForProblems(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // not parallel with the other tests, then
	base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	const n = 300
	var items []model.Item
	for i := range n {
		id, v := fmt.Sprintf("ACCT#%04d", i), fmt.Sprintf("u%04d", i)
		items = append(items, acct(id, v+"@x.io", v), lock("UNIQ#EMAIL#"+v+"@x.io", id), lock("UNIQ#HANDLE#"+v, id))
	}
	items = append(items, acct("ACCT#zz", "zz@x.io", "zz"), lock("UNIQ#EMAIL#zz@x.io", "ACCT#zz")) // its username lock is missing
	dynamotest.Put(t, client, base.Schema.Table, items...)
	api := &countingAPI{api: client}
	store := dynamo.NewStore(api, base.Endpoint, base.Schema, base.Clock)
	store.Segments, store.PageSize = 4, 100 // several pages in each segment
	var got []model.AccountView
	var last backend.SweepProgress
	err := store.Sweeper.AccountsSweep(context.Background(), false, func(p backend.SweepProgress) { last = p },
		func(_ int, views []model.AccountView) { got = append(got, views...) })
	if err != nil {
		t.Fatal(err)
	}
	problems := 0
	for _, v := range got {
		if v.Problematic() {
			problems++
			if v.ID != "ACCT#zz" || v.Locks[1].Status != model.LockMissing {
				t.Errorf("%s: %+v, want ACCT#zz's username lock missing alone", v.ID, v.Locks)
			}
		}
	}
	if len(got) != n+1 || problems != 1 {
		t.Errorf("%d accounts, %d with a problem; want %d, 1", len(got), problems, n+1)
	}
	calls := api.snapshot()
	if calls["BatchGetItem"] != 1 || api.readsOf("UNIQ#HANDLE#zz") != 1 || api.readsOf("UNIQ#HANDLE#u0000") != 0 {
		t.Errorf("%d BatchGetItem calls (ACCT#zz's username lock read %d times, u0000's %d); want 1, for ACCT#zz's locks alone",
			calls["BatchGetItem"], api.readsOf("UNIQ#HANDLE#zz"), api.readsOf("UNIQ#HANDLE#u0000"))
	}
	if last.Items != int64(len(items)) || last.Pages < 4 || last.Pages != calls["Scan"] {
		t.Errorf("progress %+v after %d scans; want %d items, a page per scan", last, calls["Scan"], len(items))
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the sweep left %v in the temporary directory", left)
	}
}

// refusedGets refuses every BatchGetItem.
type refusedGets struct{ dynamo.API }

func (refusedGets) BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return nil, errors.New("throttled")
}

// TestSweepFailsWithItsReads: when the consistent reads of an account
// that shows a problem fail, the sweep returns their error (not a
// context's, nor a hang), hands nothing on after it, and leaves no file.
func TestSweepFailsWithItsReads(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // not parallel with the other tests, then
	base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	if _, err := seed.Run(context.Background(), base, seed.Options{Accounts: 40, Anomalies: true}); err != nil {
		t.Fatal(err)
	}
	store := dynamo.NewStore(refusedGets{client}, base.Endpoint, base.Schema, base.Clock)
	defer dynamo.SetSweepChunk(5)()
	problems := 0
	err := store.Sweeper.AccountsSweep(context.Background(), false, nil, func(_ int, views []model.AccountView) {
		for _, v := range views {
			if v.Problematic() {
				problems++
			}
		}
	})
	if err == nil || !strings.Contains(err.Error(), "throttled") || errors.Is(err, context.Canceled) {
		t.Fatalf("sweep whose reads fail: %v; want their error", err)
	}
	if problems > 0 {
		t.Errorf("%d accounts with a problem handed on, judged without their reads", problems)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the failed sweep left %v in the temporary directory", left)
	}
}

// slowScans holds every Scan a while (or until its context ends), so
// that a sweep is still reading when it is stopped.
type slowScans struct {
	dynamo.API
	delay time.Duration
}

func (s slowScans) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.API.Scan(ctx, in, o...)
}

// TestSweepStops: a sweep whose context ends returns the context's error
// promptly, though reads were in flight, and hands nothing on once the
// cancel has returned: stopped from its own progress, from a page, and
// from outside.
func TestSweepStops(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // not parallel with the other tests, then
	base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	if _, err := seed.Run(context.Background(), base, seed.Options{Accounts: 60}); err != nil {
		t.Fatal(err)
	}
	store := dynamo.NewStore(slowScans{API: client, delay: 100 * time.Millisecond}, base.Endpoint, base.Schema, base.Clock)
	store.Segments, store.PageSize = 2, 10
	defer dynamo.SetSweepChunk(3)()
	for _, from := range []string{"progress", "page", "outside"} {
		t.Run(from, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var (
				mu       sync.Mutex
				stopped  bool // the cancel has returned
				late     int  // pages handed on after it
				stop     = sync.OnceFunc(func() { cancel(); mu.Lock(); stopped = true; mu.Unlock() })
				canceled clock.Stopwatch // from the cancel on
			)
			stopNow := func() { canceled = clock.Start(); stop() }
			if from == "outside" {
				go func() { time.Sleep(250 * time.Millisecond); stopNow() }()
			}
			err := store.Sweeper.AccountsSweep(ctx, false,
				func(backend.SweepProgress) {
					if from == "progress" {
						stopNow()
					}
				},
				func(int, []model.AccountView) {
					mu.Lock()
					if stopped {
						late++
					}
					mu.Unlock()
					if from == "page" {
						stopNow()
					}
				})
			took := canceled.Elapsed()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("stopped sweep returned %v, want %v", err, context.Canceled)
			}
			if late > 0 {
				t.Errorf("%d pages handed on after the cancel returned", late)
			}
			if took > 10*time.Second { // a hang guard, not a speed: the reads in flight give up
				t.Errorf("returned %v after the cancel: not promptly", took)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("the stopped sweep left %v in the temporary directory", left)
			}
		})
	}
}

// TestSweepHoldsTheMaxRCUBudget: a sweep under --max-rcu consumes no more
// read capacity per second than the budget (plus one second's burst), as
// its progress reports it, where unpaced it reads much faster.
func TestSweepHoldsTheMaxRCUBudget(t *testing.T) {
	t.Parallel()
	store, _ := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	if _, err := seed.Run(context.Background(), store, seed.Options{Accounts: 300, Anomalies: true}); err != nil {
		t.Fatal(err)
	}
	store.PageSize = 50 // many small reads, so that pacing has something to pace
	sweep := func() (rcu, secs float64) {
		var last backend.SweepProgress
		took := clock.Start()
		err := store.Sweeper.AccountsSweep(context.Background(), false, func(p backend.SweepProgress) { last = p }, func(int, []model.AccountView) {})
		if err != nil {
			t.Fatal(err)
		}
		return last.RCU, took.Elapsed().Seconds()
	}
	free, freeSecs := sweep()
	// A budget the sweep needs four seconds of, one of them its burst.
	budget := free / 4
	store.SetMaxRCU(budget)
	paced, secs := sweep()
	rate := paced / secs
	t.Logf("unpaced: %.1f RCU in %.2fs (%.0f/s); --max-rcu %.1f: %.1f RCU in %.2fs (%.1f/s)",
		free, freeSecs, free/freeSecs, budget, paced, secs, rate)
	if paced < 2*budget {
		t.Fatalf("only %.1f RCU consumed: too little to measure a budget of %.1f/s", paced, budget)
	}
	if least := (paced - 2*budget) / budget; secs < least {
		t.Fatalf("%.1f RCU in %.2fs: not paced (at least %.1fs at %.1f/s)", paced, secs, least, budget)
	}
	if limit := budget * (1 + 1/secs); rate > limit*1.1 {
		t.Fatalf("%.1f RCU/s under a budget of %.1f/s (at most %.1f/s with one second's burst)", rate, budget, limit)
	}
}

// TestSweepRefusesAnAccountsIndex: accounts listed through an index are
// not swept (a scan of the table would not follow the index): the sweep
// says so with backend.ErrNoSweep, for the caller to page instead.
func TestSweepRefusesAnAccountsIndex(t *testing.T) {
	t.Parallel()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	dynamotest.Put(t, client, store.Schema.Table, acct("ACCT#a", "a@x.io", "a"))
	store.AccountsIndex = "accounts"
	handed := 0
	err := store.Sweeper.AccountsSweep(context.Background(), false, nil, func(int, []model.AccountView) { handed++ })
	if !errors.Is(err, backend.ErrNoSweep) || handed != 0 {
		t.Fatalf("sweep with an accounts index: %v, %d pages; want backend.ErrNoSweep and none", err, handed)
	}
}
