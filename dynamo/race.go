package dynamo

import (
	"context"
	"sync"
)

// Race sends every transaction at once, each through Execute (settled,
// audited), after all of them are ready, and returns their results in
// order: the guarded puts decide which one takes a contested value, and
// the others are cancelled, slot by slot. Errors (not sent, refused,
// rejected) come back beside their results.
func (s *Store) Race(ctx context.Context, txs []Tx) ([]Result, []error) {
	results := make([]Result, len(txs))
	errs := make([]error, len(txs))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, tx := range txs {
		wg.Go(func() {
			<-start // every racer leaves at once
			results[i], errs[i] = s.Execute(ctx, tx)
		})
	}
	close(start)
	wg.Wait()
	return results, errs
}
