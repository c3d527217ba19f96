package dynamo

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// meter asks every read for the capacity it consumed (ReturnConsumedCapacity
// TOTAL), counts it, and, under a budget (--max-rcu), paces the reads so
// that the capacity consumed per second stays within it. A read reserves
// what it may cost before it is sent, and settles to what it consumed when
// its answer comes: charged only on its answer, every segment's page of a
// parallel scan (up to 128 RCU each) would be in flight at once, uncounted.
type meter struct {
	API
	sizes    *tableCache // the tables' average item sizes, for estimates
	mu       sync.Mutex
	consumed float64
	limit    *budget // nil: no budget
	// writes paces TransactWriteItems (--max-wcu), nil: no budget;
	// written is the write capacity they reserved.
	writes  *budget
	written float64
}

// setBudget paces reads to rcu read capacity units per second; 0 lifts
// the budget.
func (m *meter) setBudget(rcu float64) { m.pace(&m.limit, rcu) }

// pace sets the budget at b to rate units a second; 0 lifts it.
func (m *meter) pace(b **budget, rate float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	*b = nil
	if rate > 0 {
		*b = newBudget(rate)
	}
}

// Consumed is the read capacity consumed so far, as DynamoDB reported it.
func (m *meter) Consumed() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.consumed
}

// reservation is the capacity one read took from a budget before it was
// sent; the zero value is a read under no budget.
type reservation struct {
	b     *budget
	units float64
}

// reserve waits until the budget can pay for a read estimated at units,
// and takes them.
func (m *meter) reserve(ctx context.Context, units float64) (reservation, error) {
	m.mu.Lock()
	b := m.limit
	m.mu.Unlock()
	if b == nil {
		return reservation{}, nil
	}
	if err := b.take(ctx, nil, units); err != nil {
		return reservation{}, err
	}
	return reservation{b, units}, nil
}

// settle records the capacity a read reported and settles its
// reservation to it: what it reserved is given back and what it consumed
// is charged, so a failed read (which reports none) costs nothing.
func (m *meter) settle(r reservation, units float64) {
	m.mu.Lock()
	m.consumed += units
	m.mu.Unlock()
	if r.b != nil {
		r.b.settle(r.units, units)
	}
}

// capacityUnits is the capacity an answer reports, over its tables.
func capacityUnits(ccs ...types.ConsumedCapacity) float64 {
	units := 0.0
	for _, cc := range ccs {
		units += aws.ToFloat64(cc.CapacityUnits)
	}
	return units
}

// budget is a bucket of read capacity units that refills at rate a second
// up to burst (one second's worth: short reads go at once, a long run of
// them settles at the rate). A read takes its estimate, which may leave
// the bucket in debt; the reads after it wait while it is paid off, by
// time or by the read's own settling.
type budget struct {
	mu      sync.Mutex
	rate    float64
	burst   float64
	tokens  float64
	elapsed func() time.Duration // since the bucket was made (a clock.Stopwatch's)
	at      time.Duration        // elapsed's reading when tokens was last refilled
	settled chan struct{}        // closed (and replaced) when a read settles
}

func newBudget(rcu float64) *budget {
	burst := max(1, math.Ceil(rcu))
	return &budget{rate: rcu, burst: burst, tokens: burst, elapsed: clock.Start().Elapsed, settled: make(chan struct{})}
}

// refill adds what the time since the last refill earned; b.mu is held.
func (b *budget) refill() {
	now := b.elapsed()
	b.tokens = min(b.burst, b.tokens+(now-b.at).Seconds()*b.rate)
	b.at = now
}

// take waits until the bucket holds units, or is full for a read that
// costs more than a burst (which would otherwise never go), and takes
// them; it gives up when ctx ends or stop closes (nil: never), saying
// backend.ErrStopped for the latter.
func (b *budget) take(ctx context.Context, stop <-chan struct{}, units float64) error {
	for {
		wait, settled := b.owe(units)
		if wait == 0 {
			return nil
		}
		// Most of a debt is usually a reservation that its answer gives
		// back: wake then, not only when time would have paid it all.
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-stop:
			t.Stop()
			return backend.ErrStopped
		case <-settled:
		case <-t.C:
		}
		t.Stop()
	}
}

// owe takes units when the bucket holds them (or is full, for more than
// a burst), and says 0; otherwise it takes nothing and says how long
// the refill takes to pay what is missing, and the channel a settling
// closes meanwhile.
func (b *budget) owe(units float64) (time.Duration, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill()
	short := min(units, b.burst) - b.tokens
	if short <= 0 {
		b.tokens -= units
		return 0, nil
	}
	return max(time.Duration(short/b.rate*float64(time.Second)), 1), b.settled
}

// settle gives back what a read reserved and charges what it consumed.
func (b *budget) settle(reserved, consumed float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refill()
	b.tokens = min(b.burst, b.tokens+reserved-consumed)
	close(b.settled)
	b.settled = make(chan struct{})
}

const (
	// unitBytes is what one read capacity unit reads strongly consistent;
	// eventually consistent, it reads twice as much.
	unitBytes = 4 << 10
	// pageBytes is the most one Scan or Query page reads.
	pageBytes = 1 << 20
)

// readUnits is what reading bytes costs in one read: DynamoDB rounds the
// size up to whole 4 KB units, and charges half for an eventually
// consistent read.
func readUnits(bytes int64, consistent bool) float64 {
	u := math.Ceil(float64(max(bytes, 1)) / unitBytes)
	if !consistent {
		u /= 2
	}
	return u
}

// itemBytes is table's average item size, 0 when unknown.
func (m *meter) itemBytes(table string) int64 {
	if m.sizes == nil {
		return 0
	}
	return m.sizes.itemBytes(table)
}

// pageUnits estimates one Scan or Query page of table: limit items of the
// table's average size, a page reading at most 1 MB, which is also the
// estimate when either is unknown. A page is charged for the items it
// reads, before any filter or projection, so the table's size is what
// counts.
func (m *meter) pageUnits(table *string, limit *int32, consistent *bool) float64 {
	bytes := int64(pageBytes)
	if n, size := int64(aws.ToInt32(limit)), m.itemBytes(aws.ToString(table)); n > 0 && size > 0 {
		bytes = min(bytes, n*size)
	}
	return readUnits(bytes, aws.ToBool(consistent))
}

// getUnits estimates reading keys items of table one by one (BatchGetItem,
// TransactGetItems), each rounded up to whole units on its own. Items of
// an unknown size are estimated as a 1 MB page, and at least a unit each.
func (m *meter) getUnits(table string, keys int, consistent bool) float64 {
	if size := m.itemBytes(table); size > 0 {
		return float64(keys) * readUnits(size, consistent)
	}
	return max(readUnits(pageBytes, consistent), float64(keys)*readUnits(1, consistent))
}

// metered sends one read through call once the budget holds its
// estimate (units), asking for the capacity it consumes, and settles the
// reservation to what the answer reports (reported; none without one).
func metered[Out any](ctx context.Context, m *meter, units float64, call func() (*Out, error), reported func(*Out) float64) (*Out, error) {
	r, err := m.reserve(ctx, units)
	if err != nil {
		return nil, err
	}
	out, err := call()
	used := 0.0
	if out != nil {
		used = reported(out)
	}
	m.settle(r, used)
	tallied(ctx, used)
	return out, err
}

// tally counts the capacity consumed by the reads made under one context
// (withTally), so that a check reports its own reads' capacity and not
// that of the reads the store makes meanwhile for others (the terminal
// UI pages, searches and re-reads while its check runs).
type tally struct {
	mu    sync.Mutex
	units float64
}

type tallyKey struct{}

// withTally returns a context whose reads are counted in the tally
// returned (the check's two halves each have one, never nested).
func withTally(ctx context.Context) (context.Context, *tally) {
	t := &tally{}
	return context.WithValue(ctx, tallyKey{}, t), t
}

// tallied counts units in the tally of ctx, if it has one.
func tallied(ctx context.Context, units float64) {
	if t, _ := ctx.Value(tallyKey{}).(*tally); t != nil {
		t.mu.Lock()
		t.units += units
		t.mu.Unlock()
	}
}

// consumed is the capacity counted so far.
func (t *tally) consumed() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.units
}

func (m *meter) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	return metered(ctx, m, m.pageUnits(in.TableName, in.Limit, in.ConsistentRead),
		func() (*dynamodb.ScanOutput, error) { return m.API.Scan(ctx, in, o...) },
		func(out *dynamodb.ScanOutput) float64 { return capacityUnits(pageCapacity(out.ConsumedCapacity)...) })
}

func (m *meter) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	return metered(ctx, m, m.pageUnits(in.TableName, in.Limit, in.ConsistentRead),
		func() (*dynamodb.QueryOutput, error) { return m.API.Query(ctx, in, o...) },
		func(out *dynamodb.QueryOutput) float64 { return capacityUnits(pageCapacity(out.ConsumedCapacity)...) })
}

func (m *meter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	units := 0.0
	for table, ka := range in.RequestItems {
		units += m.getUnits(table, len(ka.Keys), aws.ToBool(ka.ConsistentRead))
	}
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	return metered(ctx, m, units,
		func() (*dynamodb.BatchGetItemOutput, error) { return m.API.BatchGetItem(ctx, in, o...) },
		func(out *dynamodb.BatchGetItemOutput) float64 { return capacityUnits(out.ConsumedCapacity...) })
}

func (m *meter) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	keys := map[string]int{}
	for _, ti := range in.TransactItems {
		if ti.Get != nil {
			keys[aws.ToString(ti.Get.TableName)]++
		}
	}
	units := 0.0
	for table, n := range keys {
		// A transactional read costs twice a strongly consistent one.
		units += 2 * m.getUnits(table, n, true)
	}
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	return metered(ctx, m, units,
		func() (*dynamodb.TransactGetItemsOutput, error) { return m.API.TransactGetItems(ctx, in, o...) },
		func(out *dynamodb.TransactGetItemsOutput) float64 { return capacityUnits(out.ConsumedCapacity...) })
}

// pageCapacity is the capacity a page reports, as the list a batch reports.
func pageCapacity(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
	if cc == nil {
		return nil
	}
	return []types.ConsumedCapacity{*cc}
}

// SetMaxRCU paces the store's reads to rcu read capacity units per second
// (--max-rcu): each reserves its estimated cost before it is sent and
// settles to the capacity DynamoDB reports for it; 0 lifts the budget.
func (s *Store) SetMaxRCU(rcu float64) { s.meter.setBudget(rcu) }

// SetMaxWCU paces the store's transactions to wcu write capacity units
// per second (--max-wcu): each takes, before it is sent, 2 units for
// every item it writes (a transactional write of up to 1 KB); 0 lifts
// the budget. The same bucket as --max-rcu's, on the same clock.
func (s *Store) SetMaxWCU(wcu float64) { s.meter.setWriteBudget(wcu) }

// PacedWCU is the write capacity the store's transactions took from the
// --max-wcu budget so far (0 without one).
func (s *Store) PacedWCU() float64 {
	s.meter.mu.Lock()
	defer s.meter.mu.Unlock()
	return s.meter.written
}

// setWriteBudget paces transactions to wcu units a second; 0 lifts it.
func (m *meter) setWriteBudget(wcu float64) { m.pace(&m.writes, wcu) }

// writeUnits is what a transaction costs in write capacity:
// model.WCUPerItem for each item it writes (a put, an update or a
// delete; a condition check writes nothing), as model.Plan.WriteUnits
// counts its plan.
func writeUnits(in *dynamodb.TransactWriteItemsInput) float64 {
	n := 0
	for _, ti := range in.TransactItems {
		if ti.Put != nil || ti.Update != nil || ti.Delete != nil {
			n++
		}
	}
	return float64(model.WCUPerItem * n)
}

// TransactWriteItems waits, under --max-wcu, until the budget can pay for
// the transaction's writes, and sends it; not if ctx's stop channel
// (backend.WithStop) closed first.
func (m *meter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if backend.Stopped(ctx) {
		return nil, pacedError{backend.ErrStopped}
	}
	m.mu.Lock()
	b := m.writes
	m.mu.Unlock()
	if b != nil {
		units := writeUnits(in)
		if err := b.take(ctx, backend.Stop(ctx), units); err != nil {
			return nil, pacedError{err} // interrupted waiting: nothing was sent
		}
		m.mu.Lock()
		m.written += units
		m.mu.Unlock()
	}
	return m.API.TransactWriteItems(ctx, in, o...)
}

// pacedError is a transaction interrupted while it waited for the
// --max-wcu budget: no request left the process.
type pacedError struct{ error }

func (e pacedError) Unwrap() error { return e.error }

// ConsumedRCU is the read capacity the store's reads have consumed so far,
// as DynamoDB reported it.
func (s *Store) ConsumedRCU() float64 { return s.meter.Consumed() }
