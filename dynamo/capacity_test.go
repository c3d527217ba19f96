package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo/seed"
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
