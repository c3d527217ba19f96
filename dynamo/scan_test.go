package dynamo_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// segmentAPI answers every Scan with an empty page after a short wait,
// counting the pages of each segment and how many run at once. failAt, if
// not negative, is a segment whose Scan fails; a Scan that comes after
// that failure (counted in after) waits for its context to end, so that
// no worker can send a second one, however the machine schedules them;
// cancel, if set, is called during call number cancelAfter, which itself
// succeeds.
type segmentAPI struct {
	dynamo.API
	failAt            int
	cancelAfter       int64 // calls; then cancel is called
	cancel            func()
	calls             atomic.Int64
	failed            atomic.Bool  // failAt has failed
	after             atomic.Int64 // Scans started after it
	mu                sync.Mutex
	pages             map[int32]int
	inFlight, maxSeen int
	maxTotal          int32 // the largest TotalSegments asked for
}

func (f *segmentAPI) Scan(ctx context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	n := f.calls.Add(1)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if f.failed.Load() && f.after.Add(1) <= dynamo.MaxScanWorkers {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Second): // a scan that did not stop goes on (the rest rush), counted
		}
	}
	if n == f.cancelAfter {
		f.cancel() // after this page: the next segment must not start
	}
	seg := aws.ToInt32(in.Segment)
	f.mu.Lock()
	f.inFlight++
	f.maxSeen = max(f.maxSeen, f.inFlight)
	f.pages[seg]++
	f.maxTotal = max(f.maxTotal, aws.ToInt32(in.TotalSegments))
	f.mu.Unlock()
	time.Sleep(50 * time.Microsecond)
	f.mu.Lock()
	f.inFlight--
	f.mu.Unlock()
	if int(seg) == f.failAt {
		f.failed.Store(true)
		return nil, errors.New("segment failed")
	}
	return &dynamodb.ScanOutput{}, nil
}

// TestScanWorkersAreBounded: --segments 20000 must not start 20,000 scans
// at once; every segment is still read exactly once.
func TestScanWorkersAreBounded(t *testing.T) {
	t.Parallel()
	const segments = 20_000
	api := &segmentAPI{failAt: -1, pages: map[int32]int{}}
	s := dynamo.NewStore(api, backend.Endpoint{}, model.DefaultSchema(model.LayoutSingle), clock.System())
	s.Segments = segments
	if _, err := s.Checker.Check(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if api.maxSeen > dynamo.MaxScanWorkers {
		t.Errorf("%d scans at once, want at most %d", api.maxSeen, dynamo.MaxScanWorkers)
	}
	if len(api.pages) != segments || api.maxTotal != segments {
		t.Errorf("%d segments scanned (TotalSegments %d), want %d", len(api.pages), api.maxTotal, segments)
	}
	for seg, n := range api.pages {
		if n != 1 {
			t.Errorf("segment %d scanned %d times", seg, n)
		}
	}
}

// TestScanStopsAtTheFirstError: a failed segment ends the scan; the
// segments not started yet are never sent.
func TestScanStopsAtTheFirstError(t *testing.T) {
	t.Parallel()
	const segments = 20_000
	api := &segmentAPI{failAt: 5, pages: map[int32]int{}}
	s := dynamo.NewStore(api, backend.Endpoint{}, model.DefaultSchema(model.LayoutSingle), clock.System())
	s.Segments = segments
	if _, err := s.Checker.Check(context.Background(), nil); err == nil {
		t.Fatal("check succeeded, want the segment's error")
	}
	// Each other worker may have started one scan before it saw the
	// failure (it waits in it until the scan is cancelled): no more.
	if n := api.after.Load(); n > dynamo.MaxScanWorkers-1 {
		t.Errorf("%d scans sent after segment 5 failed, want at most one per other worker (%d)", n, dynamo.MaxScanWorkers-1)
	}
}

// TestScanInterruptedIsAnError: a check cancelled between two segments
// fails; it never reports what it read so far as the whole table.
func TestScanInterruptedIsAnError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	api := &segmentAPI{failAt: -1, pages: map[int32]int{}, cancelAfter: 100, cancel: cancel}
	s := dynamo.NewStore(api, backend.Endpoint{}, model.DefaultSchema(model.LayoutSingle), clock.System())
	s.Segments = 1000
	if _, err := s.Checker.Check(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("check cancelled after 100 of 1000 segments: error %v, want context.Canceled", err)
	}
}
