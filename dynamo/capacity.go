package dynamo

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/time/rate"
)

// meter asks every read for the capacity it consumed (ReturnConsumedCapacity
// TOTAL), counts it, and, under a budget (--max-rcu), paces the reads so
// that the capacity consumed per second stays within it: a read that spent
// more than its share makes the next ones wait.
type meter struct {
	API
	mu       sync.Mutex
	consumed float64
	owed     float64       // a fraction of a unit not charged yet
	limit    *rate.Limiter // nil: no budget
}

// setBudget paces reads to rcu read capacity units per second; 0 lifts
// the budget.
func (m *meter) setBudget(rcu float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.limit = nil
	if rcu > 0 {
		// A burst of one second's budget: short reads go at once, a long
		// run of them settles at the rate.
		m.limit = rate.NewLimiter(rate.Limit(rcu), max(1, int(math.Ceil(rcu))))
	}
}

// Consumed is the read capacity consumed so far, as DynamoDB reported it.
func (m *meter) Consumed() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.consumed
}

// wait blocks while the budget is overspent.
func (m *meter) wait(ctx context.Context) error {
	m.mu.Lock()
	lim := m.limit
	m.mu.Unlock()
	if lim == nil {
		return nil
	}
	// Waiting takes no token: only what reads report is charged.
	for {
		debt := -lim.Tokens()
		if debt <= 0 {
			return nil
		}
		if err := sleep(ctx, time.Duration(debt/float64(lim.Limit())*float64(time.Second))); err != nil {
			return err
		}
	}
}

// spend records the capacity a read reported, and charges it to the
// budget: the tokens go into debt, which the next wait pays off.
func (m *meter) spend(ccs ...*types.ConsumedCapacity) {
	units := 0.0
	for _, cc := range ccs {
		if cc != nil {
			units += aws.ToFloat64(cc.CapacityUnits)
		}
	}
	m.mu.Lock()
	m.consumed += units
	lim := m.limit
	// Whole units are charged; the fraction waits for the next read (half
	// a unit a read, rounded up each time, would halve the rate).
	m.owed += units
	n := int(m.owed)
	m.owed -= float64(n)
	m.mu.Unlock()
	if lim == nil {
		return
	}
	// ReserveN refuses more than the burst at once: charge it in pieces.
	now := time.Now()
	for ; n > 0; n -= lim.Burst() {
		lim.ReserveN(now, min(n, lim.Burst()))
	}
}

func (m *meter) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if err := m.wait(ctx); err != nil {
		return nil, err
	}
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.API.Scan(ctx, in, o...)
	if out != nil {
		m.spend(out.ConsumedCapacity)
	}
	return out, err
}

func (m *meter) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := m.wait(ctx); err != nil {
		return nil, err
	}
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.API.Query(ctx, in, o...)
	if out != nil {
		m.spend(out.ConsumedCapacity)
	}
	return out, err
}

func (m *meter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if err := m.wait(ctx); err != nil {
		return nil, err
	}
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.API.BatchGetItem(ctx, in, o...)
	if out != nil {
		for i := range out.ConsumedCapacity {
			m.spend(&out.ConsumedCapacity[i])
		}
	}
	return out, err
}

func (m *meter) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	if err := m.wait(ctx); err != nil {
		return nil, err
	}
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := m.API.TransactGetItems(ctx, in, o...)
	if out != nil {
		for i := range out.ConsumedCapacity {
			m.spend(&out.ConsumedCapacity[i])
		}
	}
	return out, err
}

// SetMaxRCU paces the store's reads to rcu read capacity units per second
// (--max-rcu), by the capacity DynamoDB reports for each; 0 lifts the
// budget.
func (s *Store) SetMaxRCU(rcu float64) { s.meter.setBudget(rcu) }

// ConsumedRCU is the read capacity the store's reads have consumed so far.
func (s *Store) ConsumedRCU() float64 { return s.meter.Consumed() }
