package dynamo_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/seed"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestMaxRCUHoldsABudget: a check under --max-rcu consumes no more read
// capacity per second than the budget (plus one second's burst), as
// dynoxide reports it, where unpaced it goes much faster.
func TestMaxRCUHoldsABudget(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	if _, err := seed.Run(context.Background(), f.store, seed.Options{Accounts: 300}); err != nil {
		t.Fatal(err)
	}
	f.store.PageSize = 50 // many small reads, so that pacing has something to pace
	start := time.Now()
	free := check(t, f.store)
	freeSecs := time.Since(start).Seconds()
	const budget = 3.0
	f.store.SetMaxRCU(budget)
	start = time.Now()
	paced := check(t, f.store)
	secs := time.Since(start).Seconds()
	rate := paced.ConsumedRCU / secs
	t.Logf("unpaced: %.1f RCU in %.2fs (%.0f/s); --max-rcu %.0f: %.1f RCU in %.2fs (%.1f/s)",
		free.ConsumedRCU, freeSecs, free.ConsumedRCU/freeSecs, budget, paced.ConsumedRCU, secs, rate)
	if paced.ConsumedRCU < 2*budget {
		t.Fatalf("only %.1f RCU consumed: too little to measure a budget of %.0f/s", paced.ConsumedRCU, budget)
	}
	if least := (paced.ConsumedRCU - 2*budget) / budget; secs < least {
		t.Fatalf("%.1f RCU in %.2fs: not paced (at least %.1fs at %.0f/s)", paced.ConsumedRCU, secs, least, budget)
	}
	if limit := budget * (1 + 1/secs); rate > limit*1.1 {
		t.Fatalf("%.1f RCU/s under a budget of %.0f/s (at most %.1f/s with one second's burst)", rate, budget, limit)
	}
}

// heldScans holds every Scan until release is closed, counting how many
// are in flight at once, and answers each with an empty last page that
// consumed one unit. With itemBytes set, DescribeTable reports tables of
// items that size.
type heldScans struct {
	dynamo.API
	schema    model.Schema
	itemBytes int64
	release   chan struct{}
	arrived   chan struct{} // one value per Scan that reached the fake
	mu        sync.Mutex
	inFlight  int
	maxSeen   int
}

func (f *heldScans) Scan(ctx context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	f.mu.Lock()
	f.inFlight++
	f.maxSeen = max(f.maxSeen, f.inFlight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	select {
	case f.arrived <- struct{}{}:
	default:
	}
	select {
	case <-f.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &dynamodb.ScanOutput{ConsumedCapacity: &types.ConsumedCapacity{TableName: in.TableName, CapacityUnits: aws.Float64(1)}}, nil
}

func (f *heldScans) DescribeTable(_ context.Context, in *dynamodb.DescribeTableInput, _ ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	keys := []types.KeySchemaElement{{AttributeName: aws.String(f.schema.PK), KeyType: types.KeyTypeHash}}
	if f.schema.SK != "" {
		keys = append(keys, types.KeySchemaElement{AttributeName: aws.String(f.schema.SK), KeyType: types.KeyTypeRange})
	}
	return &dynamodb.DescribeTableOutput{Table: &types.TableDescription{
		TableName: in.TableName, TableStatus: types.TableStatusActive, KeySchema: keys,
		ItemCount: aws.Int64(1000), TableSizeBytes: aws.Int64(1000 * f.itemBytes),
	}}, nil
}

// DescribeTimeToLive says the table has no TTL.
func (f *heldScans) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}}, nil
}

// TestMaxRCUReservesBeforeSending: --max-rcu charged a read only once its
// answer came, so all the segments' first pages went out at once, each
// up to 1 MB (128 RCU), whatever the budget. A read now reserves its
// estimated cost before it is sent: under 100 RCU/s, a page of unknown
// items (a 1 MB page, 128 RCU) waits for the one in flight; pages the
// item size says are small (100 items of 400 bytes: 5 RCU) go together.
// What the check reports consumed is what DynamoDB reported, not the
// reservations.
func TestMaxRCUReservesBeforeSending(t *testing.T) {
	t.Parallel()
	const segments = 8
	for _, tc := range []struct {
		name      string
		itemBytes int64 // 0: the tables' size is unknown
		pageSize  int32
		most      int // scans in flight at once
	}{
		{name: "unknown item size", most: 1},
		{name: "small pages", itemBytes: 400, pageSize: 100, most: segments},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			schema := model.DefaultSchema(model.LayoutSingle)
			api := &heldScans{schema: schema, itemBytes: tc.itemBytes, release: make(chan struct{}), arrived: make(chan struct{}, segments)}
			s := dynamo.NewStore(api, backend.Endpoint{}, schema, clock.System())
			s.Segments, s.PageSize = segments, tc.pageSize
			if tc.itemBytes > 0 {
				if err := s.Verify(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			s.SetMaxRCU(100)
			type result struct {
				report model.Report
				err    error
			}
			done := make(chan result, 1)
			go func() {
				r, err := s.Checker.Check(context.Background(), nil)
				done <- result{r, err}
			}()
			// Every scan the budget lets go is sent at once; give the
			// others time to be sent too, if they would be.
			deadline := time.After(5 * time.Second)
			for range tc.most {
				select {
				case <-api.arrived:
				case <-deadline:
					t.Fatalf("fewer than %d scans sent", tc.most)
				}
			}
			time.Sleep(300 * time.Millisecond)
			api.mu.Lock()
			seen := api.maxSeen
			api.mu.Unlock()
			close(api.release)
			res := <-done
			if res.err != nil {
				t.Fatal(res.err)
			}
			if seen > tc.most {
				t.Errorf("%d scans in flight at once under 100 RCU/s; want at most %d", seen, tc.most)
			}
			if res.report.ConsumedRCU != segments {
				t.Errorf("consumed %.1f RCU; want %d, as the answers reported", res.report.ConsumedRCU, segments)
			}
		})
	}
}

// TestCheckCountsItsOwnReadsOnly: the capacity a check reports is what
// its own reads consumed, not what the store read meanwhile for others
// (the terminal UI pages through the accounts while its check runs).
func TestCheckCountsItsOwnReadsOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	if _, err := seed.Run(context.Background(), f.store, seed.Options{Accounts: 60}); err != nil {
		t.Fatal(err)
	}
	f.store.PageSize = 20
	alone := check(t, f.store)
	if alone.ConsumedRCU <= 0 {
		t.Fatalf("the check reports %v RCU: nothing to compare", alone.ConsumedRCU)
	}
	browsed := 0
	busy, err := f.store.Checker.Check(context.Background(), func(model.CheckProgress) {
		// A consistent page of accounts read by someone else at each of
		// the check's pages.
		if _, err := f.store.Pages.AccountsPage(context.Background(), backend.Cursor{}, 50, true); err != nil {
			t.Error(err)
		}
		browsed++
	})
	if err != nil {
		t.Fatal(err)
	}
	if browsed == 0 {
		t.Fatal("no page was read during the check")
	}
	if busy.ConsumedRCU != alone.ConsumedRCU {
		t.Fatalf("with %d pages read by others meanwhile the check reports %.1f RCU, alone %.1f", browsed, busy.ConsumedRCU, alone.ConsumedRCU)
	}
}
