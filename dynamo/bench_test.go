package dynamo_test

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// BenchTableEnv names the seeded layout-1 table the benchmarks read;
// `make bench` (bench/run) seeds it and sets it.
const BenchTableEnv = "LOCKTABLE_BENCH_TABLE"

// benchClient returns a client for the emulator and the table to read, or
// skips the benchmark when either is not set.
func benchClient(b *testing.B) (*dynamodb.Client, backend.Endpoint, string) {
	b.Helper()
	table := os.Getenv(BenchTableEnv)
	if table == "" || os.Getenv(dynamotest.EndpointEnv) == "" {
		b.Skipf("%s and %s must both be set: run `make bench`, which seeds a table in dynoxide and runs this benchmark against it",
			dynamotest.EndpointEnv, BenchTableEnv)
	}
	client, ep := dynamotest.Client(b)
	return client, ep, table
}

// BenchmarkCheck runs the whole check (scan, confirmation reads, rescan for
// ownerless orphans) as `locktable check` does, with the default segments,
// and reports the time of each phase (the scan phase includes Open).
func BenchmarkCheck(b *testing.B) {
	client, ep, table := benchClient(b)
	schema := model.DefaultSchema(model.LayoutSingle)
	schema.Table = table
	if os.Getenv("LOCKTABLE_BENCH_INDEXED") != "" {
		// The table was seeded with --indexes: confirm ownerless orphans
		// through the GSIs, as --index does.
		for i := range schema.Constraints {
			schema.Constraints[i].Index = dynamo.IndexName(schema.Constraints[i].Attr)
		}
	}
	ctx := context.Background()
	var items, problems int
	// Time spent in each phase, summed over the iterations: the phase
	// changes are seen through the progress callback.
	spent := map[model.CheckPhase]time.Duration{}
	for b.Loop() {
		start := time.Now()
		store, err := dynamo.Open(ctx, client, ep, schema, clock.System())
		if err != nil {
			b.Fatal(err)
		}
		phase, since := model.PhaseScan, start
		r, err := store.Checker.Check(ctx, func(p model.CheckProgress) {
			if p.Phase != phase {
				now := time.Now()
				spent[phase] += now.Sub(since)
				phase, since = p.Phase, now
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		items, problems = r.ScannedItems, len(r.Problems)
	}
	b.ReportMetric(float64(items), "items/op")
	b.ReportMetric(float64(problems), "problems/op")
	for _, ph := range []model.CheckPhase{model.PhaseScan, model.PhaseConfirm, model.PhaseRescan} {
		b.ReportMetric(float64(spent[ph].Milliseconds())/float64(b.N), string(ph)+"-ms/op")
	}
}

// BenchmarkBareScan is the baseline: a parallel SDK Scan of the same table
// with the same number of segments, whole items (no projection), counting
// the items and doing nothing else.
func BenchmarkBareScan(b *testing.B) {
	client, _, table := benchClient(b)
	ctx := context.Background()
	segments := dynamo.DefaultSegments
	var items int64
	heap := sampleHeap()
	for b.Loop() {
		var err error
		if items, err = dynamo.BareScan(ctx, client, table, segments); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(heap.peakMB(), "peak-heap-MB")
	b.ReportMetric(float64(items), "items/op")
}

// BenchmarkSweep reads every account with its locks as the terminal UI's
// G does (Sweeper.AccountsSweep, the default segments), handing the views
// on to nothing: compare its time with BenchmarkBareScan's of the same
// table, and its peak heap with its own on a table ten times the size
// (it should not grow). bench/sweep runs the two in turn.
func BenchmarkSweep(b *testing.B) {
	client, ep, table := benchClient(b)
	schema := model.DefaultSchema(model.LayoutSingle)
	schema.Table = table
	ctx := context.Background()
	store, err := dynamo.Open(ctx, client, ep, schema, clock.System())
	if err != nil {
		b.Fatal(err)
	}
	var accounts, problems int
	var last backend.SweepProgress
	heap := sampleHeap()
	for b.Loop() {
		accounts, problems = 0, 0
		err := store.Sweeper.AccountsSweep(ctx, false, func(p backend.SweepProgress) { last = p },
			func(_ int, views []model.AccountView) {
				accounts += len(views)
				for _, v := range views {
					if v.Problematic() {
						problems++
					}
				}
			})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(heap.peakMB(), "peak-heap-MB")
	b.ReportMetric(float64(accounts), "accounts/op")
	b.ReportMetric(float64(problems), "problematic/op")
	b.ReportMetric(last.RCU, "RCU/op")
}

// heapSampler reads the heap in use every few milliseconds, from its
// start (after a collection, so that what earlier benchmarks left is not
// counted) until peakMB.
type heapSampler struct {
	stop chan struct{}
	peak chan uint64
}

func sampleHeap() heapSampler {
	runtime.GC()
	h := heapSampler{stop: make(chan struct{}), peak: make(chan uint64, 1)}
	go func() {
		var peak uint64
		var m runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-h.stop:
				h.peak <- peak
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// peakMB stops the sampling and returns the most heap in use it saw, in MB.
func (h heapSampler) peakMB() float64 {
	close(h.stop)
	return float64(<-h.peak) / (1 << 20)
}
