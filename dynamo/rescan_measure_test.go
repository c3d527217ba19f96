package dynamo

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestMeasureRescanShapes times shapes of the second scan for ownerless
// orphans against a bare scan (BenchmarkBareScan's) of a seeded table, in
// alternating rounds, and logs the median of each and its share of the
// bare scan; the figures behind maxFilterValues and rescanSegments. It
// runs only when asked, on a table seeded as bench/run seeds bench-indexed:
//
//	.ci/with-dynoxide bash -c 'go run . --endpoint-url $LOCKTABLE_TEST_ENDPOINT \
//	  --table bench-indexed seed --accounts 30000 --anomalies --indexes >/dev/null &&
//	  LOCKTABLE_MEASURE_RESCAN=1 LOCKTABLE_BENCH_TABLE=bench-indexed \
//	  go test ./dynamo/ -run TestMeasureRescanShapes -v'
//
// LOCKTABLE_MEASURE_SEGMENTS (default 8) sets the rescan's
// segments, LOCKTABLE_MEASURE_PAGESIZE (default none: 1 MB pages) its
// Limit, LOCKTABLE_MEASURE_VALUES (default: the table's own ownerless
// orphans) how many values per constraint the filters name (made-up ones
// past the real), LOCKTABLE_MEASURE_ROUNDS (default 5) the rounds.
func TestMeasureRescanShapes(t *testing.T) {
	table, ep := os.Getenv("LOCKTABLE_BENCH_TABLE"), os.Getenv("LOCKTABLE_TEST_ENDPOINT")
	if os.Getenv("LOCKTABLE_MEASURE_RESCAN") == "" || table == "" || ep == "" {
		t.Skip("set LOCKTABLE_MEASURE_RESCAN, LOCKTABLE_BENCH_TABLE and LOCKTABLE_TEST_ENDPOINT")
	}
	envInt := func(name string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
			return n
		}
		return def
	}
	ctx := context.Background()
	client, endpoint, err := NewClient(ctx, ClientOptions{EndpointURL: ep})
	if err != nil {
		t.Fatal(err)
	}
	schema := model.DefaultSchema(model.LayoutSingle)
	schema.Table = table
	s, err := Open(ctx, client, endpoint, schema, clock.System())
	if err != nil {
		t.Fatal(err)
	}
	census, err := s.Checker.Census(ctx, 0, s.Segments, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer census.Close()
	candidates, err := census.Reconcile()
	if err != nil {
		t.Fatal(err)
	}
	wanted := make([]map[string]bool, len(schema.Constraints))
	for ci := range wanted {
		wanted[ci] = map[string]bool{}
	}
	for _, p := range candidates {
		if model.NeedsRescan(p) {
			wanted[p.ConstraintIndex()][p.Value] = true
		}
	}
	if k := envInt("LOCKTABLE_MEASURE_VALUES", 0); k > 0 {
		for ci, vals := range wanted {
			real := slices.Sorted(maps.Keys(vals))
			wanted[ci] = map[string]bool{}
			for i := range k {
				v := fmt.Sprintf("nobody-%d@x.io", i)
				if i < len(real) {
					v = real[i]
				}
				wanted[ci][v] = true
			}
		}
	}
	n := 0
	for _, vals := range wanted {
		n += len(vals)
	}
	segments := envInt("LOCKTABLE_MEASURE_SEGMENTS", 8)
	s.PageSize = int32(envInt("LOCKTABLE_MEASURE_PAGESIZE", 0)) // the rescans' Limit; the bare scan sets none
	t.Logf("ownerless orphan values named: %d; rescan segments: %d, Limit %d (0: 1 MB pages)", n, segments, s.PageSize)

	var ins, exists []expression.ConditionBuilder
	for ci, vals := range wanted {
		attr := expression.Name(schema.Constraints[ci].Attr)
		var ops []expression.OperandBuilder
		for _, v := range slices.Sorted(maps.Keys(vals)) {
			ops = append(ops, expression.Value(v))
		}
		ins = append(ins, attr.In(ops[0], ops[1:]...))
		exists = append(exists, expression.AttributeExists(attr))
	}
	or := func(c []expression.ConditionBuilder) *expression.ConditionBuilder {
		o := expression.Or(c[0], c[1], c[2:]...)
		return &o
	}
	one := expression.Name(schema.Constraints[0].Attr).Equal(expression.Value("nobody@x.io"))
	rescan := func(filter *expression.ConditionBuilder) func() int {
		return func() int {
			r := scanRequest{table: table, names: schema.ReadNames(table), filter: filter, segments: segments, consistent: true, raw: true}
			var items atomic.Int64
			err := s.scanPages(ctx, r, func(p scanPage) error {
				var d itemDecoder
				return p.each(&d, func(model.Item) { items.Add(1) })
			})
			if err != nil {
				t.Fatal(err)
			}
			return int(items.Load())
		}
	}
	shapes := []struct {
		name string
		run  func() int
	}{
		{"bare scan (BenchmarkBareScan's)", func() int {
			items, err := BareScan(ctx, client, table, DefaultSegments)
			if err != nil {
				t.Fatal(err)
			}
			return int(items)
		}},
		{"floor: attr = one value", rescan(&one)},
		{"attr IN (..) OR ..", rescan(or(ins))},
		{"account AND (attr IN (..) OR ..)", rescan(s.accountFilter(*or(ins)))},
		{"attribute_exists(attr) OR ..", rescan(or(exists))},
		{"account filter alone", rescan(s.accountFilter())},
		{"holderFilter (what the check sends)", rescan(s.holderFilter(wanted, true))},
	}
	took := map[string][]float64{}
	back := map[string]int{}
	for round := range envInt("LOCKTABLE_MEASURE_ROUNDS", 5) {
		order := slices.Clone(shapes)
		if round%2 == 1 {
			slices.Reverse(order)
		}
		for _, sh := range order {
			start := time.Now()
			back[sh.name] = sh.run()
			took[sh.name] = append(took[sh.name], float64(time.Since(start).Microseconds())/1000)
		}
	}
	median := func(a []float64) float64 { b := slices.Clone(a); slices.Sort(b); return b[len(b)/2] }
	bare := median(took[shapes[0].name])
	for _, sh := range shapes {
		m := median(took[sh.name])
		t.Logf("%-38s %6.0f ms  %.2f of the bare scan  %6d items back", sh.name, m, m/bare, back[sh.name])
	}
}
