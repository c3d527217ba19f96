package cli

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// checkMemoryLimit is the soft memory limit a check runs under. The
// census of 100k accounts holds about 25 MB and a page being read 1-2 MB;
// the garbage collector runs when the heap reaches this limit rather than
// each time it doubles, so the peak stays flat whatever the table's size
// until the census itself approaches the limit.
const checkMemoryLimit = 40 << 20

// minHeapLimit is the least memory limit given to the Go runtime: below
// it the runtime's own memory would keep the collector running, and the
// budget bounds the census alone.
const minHeapLimit = 16 << 20

// memoryHold is the collector's setting while checks run: the number of
// them, and what to restore when the last one ends.
var memoryHold struct {
	sync.Mutex
	holders    int
	oldLimit   int64
	oldPercent int
	stop       chan struct{} // nil: the collector is not paced by soft
	stopped    chan struct{}
}

// holdMemory sets the Go runtime's memory limit for checks, and returns
// the function that restores it (and GOGC) when the last check holding it
// ends.
//
// budget (--max-memory) is a hard bound, as GOMEMLIMIT would be (a lower
// limit already set stays): the garbage the census leaves is collected
// before the process passes it. Under it, the collector runs by the soft
// limit instead of by heap growth (GOGC off), so the peak stays flat;
// once the live heap passes three quarters of soft, which a census of a
// large enough table does, GOGC comes back and the limit goes back to the
// budget: under a limit the live heap nearly fills, the collector would
// run without pause. GOGC or GOMEMLIMIT in the environment are the user's
// choice for the pacing, left alone.
func holdMemory(soft, budget int64) (release func()) {
	h := &memoryHold
	h.Lock()
	defer h.Unlock()
	if h.holders++; h.holders == 1 {
		h.oldLimit = debug.SetMemoryLimit(-1)
		h.oldPercent = debug.SetGCPercent(-1)
		debug.SetGCPercent(h.oldPercent)
		hard := min(h.oldLimit, max(budget, minHeapLimit))
		debug.SetMemoryLimit(hard)
		if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
			limit := min(soft, hard)
			debug.SetMemoryLimit(limit)
			debug.SetGCPercent(-1)
			h.stop, h.stopped = make(chan struct{}), make(chan struct{})
			go watchLiveHeap(uint64(limit/4*3), h.oldPercent, hard, h.stop, h.stopped)
		}
	}
	return func() {
		h.Lock()
		defer h.Unlock()
		if h.holders--; h.holders == 0 {
			if h.stop != nil {
				close(h.stop)
				<-h.stopped
				h.stop = nil
			}
			debug.SetGCPercent(h.oldPercent)
			debug.SetMemoryLimit(h.oldLimit)
		}
	}
}

// watchLiveHeap restores the collector's settings (percent and limit)
// once the live heap passes max, until stop is closed.
func watchLiveHeap(max uint64, percent int, limit int64, stop <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		metrics.Read(live)
		if live[0].Value.Kind() == metrics.KindUint64 && live[0].Value.Uint64() > max {
			debug.SetGCPercent(percent)
			debug.SetMemoryLimit(limit)
			return
		}
	}
}
