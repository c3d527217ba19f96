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

// memoryHold is the collector's setting while checks run: the number of
// them, and what to restore when the last one ends.
var memoryHold struct {
	sync.Mutex
	holders    int
	oldLimit   int64
	oldPercent int
	stop       chan struct{}
	stopped    chan struct{}
}

// holdMemory makes the garbage collector run by the soft memory limit
// (runtime/debug.SetMemoryLimit) instead of by heap growth (GOGC), and
// returns the function that restores both when the last check holding
// them ends. Once the live heap passes three quarters of the limit, which
// a census of a large enough table does, the collector goes back to its
// settings: under a limit the live heap nearly fills, it would run without
// pause. GOGC or GOMEMLIMIT in the environment are the user's choice, left
// alone.
func holdMemory(limit int64) (release func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	h := &memoryHold
	h.Lock()
	defer h.Unlock()
	if h.holders++; h.holders == 1 {
		// A lower limit already set (--max-memory's, or the caller's) stays,
		// and is what the usual pacing comes back to.
		h.oldLimit = debug.SetMemoryLimit(-1)
		limit = min(limit, h.oldLimit)
		debug.SetMemoryLimit(limit)
		h.oldPercent = debug.SetGCPercent(-1)
		h.stop, h.stopped = make(chan struct{}), make(chan struct{})
		go watchLiveHeap(uint64(limit/4*3), h.oldPercent, h.oldLimit, h.stop, h.stopped)
	}
	return func() {
		h.Lock()
		defer h.Unlock()
		if h.holders--; h.holders == 0 {
			close(h.stop)
			<-h.stopped
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
