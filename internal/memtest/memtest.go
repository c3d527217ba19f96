// Package memtest measures what a test holds in memory: the heap's peak
// while it runs, sampled, as the tests of flat memory (the check's spill,
// the terminal UI's window) assert it.
package memtest

import (
	"runtime/metrics"
	"sync"
	"time"
)

// HeapPeak samples the heap's objects (live and not yet collected) every
// millisecond until stopped, and returns the most seen.
func HeapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}
