package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestRescanFindsScopedHolders: a scoped constraint's value carries the
// scope ("acme#gone@x.io") while the account stores only "gone@x.io", so
// the rescan cannot name the value in its filter. An account that takes
// the value of an ownerless orphan between the two scans must be found
// (before, the filter named the scoped value and found nobody: a false
// orphan_lock).
func TestRescanFindsScopedHolders(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.Constraints[0].Scope, sc.Constraints[0].Tail = "org", "#"
	base, client := dynamotest.Store(t, sc)
	scoped := func(id, org, email, username string) model.Item {
		it := acct(id, email, username)
		it["org"] = model.S(org)
		return it
	}
	for i := range 5 {
		id, v := fmt.Sprintf("ACCT#%02d", i), fmt.Sprintf("u%02d", i)
		dynamotest.Put(t, client, base.Schema.Table,
			scoped(id, "acme", v+"@x.io", v), lock("UNIQ#EMAIL#acme#"+v+"@x.io", id), lock("UNIQ#HANDLE#"+v, id))
	}
	dynamotest.Put(t, client, base.Schema.Table, lock("UNIQ#EMAIL#acme#gone@x.io", ""))
	hook := &rescanHook{API: client, before: func() {
		dynamotest.Put(t, client, base.Schema.Table, scoped("ACCT#late", "acme", "gone@x.io", ""))
	}}
	r := check(t, dynamo.NewStore(hook, base.Endpoint, base.Schema, clock.System()))
	if len(r.Problems) != 0 {
		t.Fatalf("problems = %+v, want none: ACCT#late holds acme#gone@x.io", r.Problems)
	}
	if hook.examined.Load() == 0 {
		t.Fatal("no rescan: the test did not test it")
	}
}

// TestRescanFilterNamesAtMostMaxValues: past maxFilterValues (48)
// ownerless orphans, the rescan's filter names no values (each one costs
// the filter on every account, more than sending every account back) and
// the values are matched as the accounts come back; a late holder is
// still found.
func TestRescanFilterNamesAtMostMaxValues(t *testing.T) {
	for _, tc := range []struct {
		orphans  int
		returned int32 // by the rescan
	}{{48, 1}, {49, 21}} {
		t.Run(fmt.Sprint(tc.orphans), func(t *testing.T) {
			base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
			for i := range 20 {
				id, v := fmt.Sprintf("ACCT#%02d", i), fmt.Sprintf("u%02d", i)
				dynamotest.Put(t, client, base.Schema.Table,
					acct(id, v+"@x.io", v), lock("UNIQ#EMAIL#"+v+"@x.io", id), lock("UNIQ#HANDLE#"+v, id))
			}
			for i := range tc.orphans {
				dynamotest.Put(t, client, base.Schema.Table, lock(fmt.Sprintf("UNIQ#EMAIL#gone%03d@x.io", i), ""))
			}
			hook := &rescanHook{API: client, before: func() {
				dynamotest.Put(t, client, base.Schema.Table, acct("ACCT#late", "gone000@x.io", ""))
			}}
			r := check(t, dynamo.NewStore(hook, base.Endpoint, base.Schema, clock.System()))
			if len(r.Problems) != tc.orphans-1 {
				t.Fatalf("%d problems, want %d (every orphan but gone000@x.io, which ACCT#late holds)", len(r.Problems), tc.orphans-1)
			}
			for _, p := range r.Problems {
				if p.Value == "gone000@x.io" {
					t.Fatalf("reported %+v: ACCT#late holds it", p)
				}
			}
			if got := hook.returned.Load(); got != tc.returned {
				t.Fatalf("the rescan returned %d items, want %d", got, tc.returned)
			}
		})
	}
}

// locksGoneHook deletes keys just before the first consistent read of
// keys, and counts consistent scans.
type locksGoneHook struct {
	dynamo.API
	once  sync.Once
	gone  func()
	scans atomic.Int32
}

func (h *locksGoneHook) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	h.once.Do(h.gone)
	return h.API.BatchGetItem(ctx, in, opts...)
}

func (h *locksGoneHook) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if aws.ToBool(in.ConsistentRead) {
		h.scans.Add(1)
	}
	return h.API.Scan(ctx, in, opts...)
}

// TestRescanSkippedWhenTheLocksAreGone: ownerless orphan locks deleted
// after the main scan are no orphans, and the consistent re-read of the
// locks shows it; no second scan is needed to look for their holders.
func TestRescanSkippedWhenTheLocksAreGone(t *testing.T) {
	base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	dynamotest.Put(t, client, base.Schema.Table,
		acct("ACCT#a", "a@x.io", "a"), lock("UNIQ#EMAIL#a@x.io", "ACCT#a"), lock("UNIQ#HANDLE#a", "ACCT#a"),
		lock("UNIQ#EMAIL#gone@x.io", ""), lock("UNIQ#HANDLE#gone", ""))
	hook := &locksGoneHook{API: client, gone: func() {
		for _, pk := range []string{"UNIQ#EMAIL#gone@x.io", "UNIQ#HANDLE#gone"} {
			_, err := client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{
				TableName: aws.String(base.Schema.Table),
				Key:       dynamo.ItemToSDK(model.Item{"PK": model.S(pk), "SK": model.S("LOCK")}),
			})
			if err != nil {
				t.Errorf("delete %s: %v", pk, err)
			}
		}
	}}
	r := check(t, dynamo.NewStore(hook, base.Endpoint, base.Schema, clock.System()))
	if len(r.Problems) != 0 {
		t.Fatalf("problems = %+v, want none: the locks are gone", r.Problems)
	}
	if got := hook.scans.Load(); got != 0 {
		t.Fatalf("%d consistent scan pages: a rescan for values whose locks are gone", got)
	}
}

// segmentsHook records the TotalSegments of consistent scans.
type segmentsHook struct {
	dynamo.API
	mu       sync.Mutex
	segments map[int32]bool
}

func (h *segmentsHook) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if aws.ToBool(in.ConsistentRead) {
		h.mu.Lock()
		h.segments[aws.ToInt32(in.TotalSegments)] = true
		h.mu.Unlock()
	}
	return h.API.Scan(ctx, in, opts...)
}

// TestRescanReadsTwiceTheSegments: the second scan returns few items, so
// its time is the server's reading, which more segments share out; with
// one segment (a backend that ignores segments) it keeps one.
func TestRescanReadsTwiceTheSegments(t *testing.T) {
	for _, tc := range []struct{ segments, want int32 }{{1, 0}, {2, 4}, {4, 8}} {
		t.Run(fmt.Sprint(tc.segments), func(t *testing.T) {
			base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
			dynamotest.Put(t, client, base.Schema.Table,
				acct("ACCT#a", "a@x.io", "a"), lock("UNIQ#EMAIL#a@x.io", "ACCT#a"), lock("UNIQ#HANDLE#a", "ACCT#a"),
				lock("UNIQ#EMAIL#gone@x.io", ""))
			hook := &segmentsHook{API: client, segments: map[int32]bool{}}
			store := dynamo.NewStore(hook, base.Endpoint, base.Schema, clock.System())
			store.Segments = int(tc.segments)
			if r := check(t, store); len(r.Problems) != 1 {
				t.Fatalf("problems = %+v, want the orphan", r.Problems)
			}
			if len(hook.segments) != 1 || !hook.segments[tc.want] {
				t.Fatalf("the rescan's TotalSegments: %v, want %d (0: none)", hook.segments, tc.want)
			}
		})
	}
}
