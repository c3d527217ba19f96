package cli

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/locktable/locktable/dynamo"
)

// checkMemoryLimit is the least soft memory limit a check runs under: what
// a check of a small table needs (the process's own memory, a page being
// read per segment, the census), so that the collector does not run
// before it has to.
const checkMemoryLimit = 16 << 20

// checkHeadroom is the garbage a check may make between two collections
// once its census outgrows checkMemoryLimit: the limit then follows the
// live heap (the census, most of it) at this distance. The census holds no
// pointer (model.strtab), so a collection costs about the same whatever
// its size, and a fixed distance keeps the peak flat: the census's own
// growth and no more. At 2 MiB a check of 300k items collects about 100
// times (at 4 MiB, 35) for 2 MB less peak; see `make bench`.
const checkHeadroom = 2 << 20

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
	stop       chan struct{} // nil: the collector is not paced by the hold
	stopped    chan struct{}
}

// holdMemory sets the Go runtime's memory limit for checks, and returns
// the function that restores it (and GOGC) when the last check holding it
// ends.
//
// budget (--max-memory) is a hard bound, as GOMEMLIMIT would be (a lower
// limit already set stays): the garbage the census leaves is collected
// before the process passes it. Under it, the collector runs by a limit
// instead of by heap growth (GOGC off): soft at first, then the live heap
// plus checkHeadroom once that is more (see followLiveHeap). GOGC or
// GOMEMLIMIT in the environment are the user's choice for the pacing, left
// alone.
func holdMemory(soft, budget int64) (release func()) {
	h := &memoryHold
	h.Lock()
	defer h.Unlock()
	if h.holders++; h.holders == 1 {
		h.oldLimit = debug.SetMemoryLimit(-1) // -1 reads without setting
		hard := min(h.oldLimit, max(budget, minHeapLimit))
		// SetGCPercent has no read-only form: it turns GC off here, and
		// the user's pacing puts it back.
		h.oldPercent = debug.SetGCPercent(-1)
		if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
			debug.SetGCPercent(h.oldPercent)
			debug.SetMemoryLimit(hard)
		} else {
			debug.SetMemoryLimit(min(soft, hard))
			h.stop, h.stopped = make(chan struct{}), make(chan struct{})
			go followLiveHeap(soft, hard, h.stop, h.stopped)
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

// followLiveHeap keeps the memory limit at checkHeadroom above what the
// process must keep (its live heap and the runtime's own memory), never
// under soft nor over hard, until stop is closed. Under a limit the live
// heap nearly fills, the collector would run without pause; under one far
// above it, the peak would grow by the garbage allowed.
func followLiveHeap(soft, hard int64, stop <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		metrics.Read(s)
		var v [6]int64
		for i := range s {
			if s[i].Value.Kind() != metrics.KindUint64 {
				return // not this runtime's metrics: stay at soft
			}
			v[i] = int64(s[i].Value.Uint64())
		}
		live, total, released, free, objects, unused := v[0], v[1], v[2], v[3], v[4], v[5]
		own := total - released - free - objects - unused // the runtime's: stacks, metadata, buffers
		debug.SetMemoryLimit(min(hard, max(soft, own+live+checkHeadroom)))
	}
}

// defaultUIMemory is the terminal UI's --max-memory: what it holds
// resident in all, at any table size (the accounts view holds a window
// of accounts, the rest on disk).
const defaultUIMemory = 96 << 20

// uiCensusShare is the part of the UI's budget its check's census may
// take before it spills: the rest is the UI's window, its frames and the
// process (the binary, the runtime).
const uiCensusShare = 4

// uiOwnMemory is what the process holds resident beside the Go heap: the
// binary's code and data as it runs, the runtime's own structures.
const uiOwnMemory = 32 << 20

// holdUIMemory bounds the terminal UI's memory by --max-memory: its
// check's census spills past a share of it, and the Go runtime collects
// before the heap takes more than the budget leaves it. It returns what
// restores the runtime's limit. GOMEMLIMIT in the environment, lower,
// stays.
func (a *app) holdUIMemory(store *dynamo.Store) (release func()) {
	budget := int64(a.uiMemory)
	store.MaxMemory = budget / uiCensusShare
	old := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(old, max(budget-uiOwnMemory, minHeapLimit)))
	return func() { debug.SetMemoryLimit(old) }
}
