package dynamo_test

import (
	"context"
	"os"
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
	for b.Loop() {
		var err error
		if items, err = dynamo.BareScan(ctx, client, table, segments); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(items), "items/op")
}

// BenchmarkSweep reads every account with its locks as the terminal UI's
// G does (Sweeper.AccountsSweep), with the default segments: compare it
// with BenchmarkBareScan of the same table.
func BenchmarkSweep(b *testing.B) {
	client, ep, table := benchClient(b)
	schema := model.DefaultSchema(model.LayoutSingle)
	schema.Table = table
	ctx := context.Background()
	store, err := dynamo.Open(ctx, client, ep, schema, clock.System())
	if err != nil {
		b.Fatal(err)
	}
	var accounts int
	for b.Loop() {
		accounts = 0
		err := store.Sweeper.AccountsSweep(ctx, false, func(backend.SweepProgress) {},
			func(views []model.AccountView) { accounts += len(views) })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(accounts), "accounts/op")
}
