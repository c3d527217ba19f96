package cli

import (
	"io"
	"math"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// gcSettings reads the collector's percent (GOGC; -1 when off) and soft
// memory limit.
func gcSettings() (percent int64, limit uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), s[1].Value.Uint64()
}

// TestHoldMemory: checks run with the collector paced by the limit (GOGC
// off) until the last one ends; once the live heap is more than the soft
// limit leaves room for, the limit follows it at checkHeadroom above,
// still with GOGC off.
func TestHoldMemory(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	percent, limit := gcSettings()
	first := holdMemory(64<<20, math.MaxInt64)
	second := holdMemory(64<<20, math.MaxInt64)
	if p, l := gcSettings(); int32(p) != -1 || l != 64<<20 {
		t.Fatalf("while held: GOGC %d, limit %d; want off and %d", int32(p), l, 64<<20)
	}
	first()
	if p, l := gcSettings(); int32(p) != -1 || l != 64<<20 {
		t.Fatalf("one of two released: GOGC %d, limit %d; want them held", int32(p), l)
	}
	second()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Fatalf("released: GOGC %d, limit %d; want %d and %d back", p, l, percent, limit)
	}

	release := holdMemory(8<<20, math.MaxInt64)
	defer release()
	live := liveHeap(t, 24<<20)
	waitForLimit(t, func(p int64, l uint64) bool {
		return int32(p) == -1 && l >= 24<<20+checkHeadroom && l < 64<<20
	}, "a live heap of 24 MB under a soft 8 MB: want GOGC off and the limit at the heap plus the headroom")
	runtime.KeepAlive(live)
}

// TestHoldMemoryUnderABudget: --max-memory's budget bounds the hold (the
// lower of the two is the limit), and the limit that follows the live heap
// never passes it.
func TestHoldMemoryUnderABudget(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	percent, limit := gcSettings()
	release := holdMemory(64<<20, 32<<20)
	if p, l := gcSettings(); int32(p) != -1 || l != 32<<20 {
		t.Errorf("held under a 32 MB budget: GOGC %d, limit %d; want off and %d", int32(p), l, 32<<20)
	}
	release()
	if p, l := gcSettings(); p != percent || l != limit {
		t.Errorf("released: GOGC %d, limit %d; want %d and %d back", p, l, percent, limit)
	}

	release = holdMemory(8<<20, 40<<20)
	defer release()
	live := liveHeap(t, 48<<20)
	waitForLimit(t, func(p int64, l uint64) bool { return int32(p) == -1 && l == 40<<20 },
		"a live heap of 48 MB under a 40 MB budget: want GOGC off and the budget as the limit")
	runtime.KeepAlive(live)
}

// liveHeap makes n bytes of live heap, touched, and collects the rest.
func liveHeap(t *testing.T, n int) []byte {
	t.Helper()
	live := make([]byte, n)
	for i := range live {
		live[i] = byte(i)
	}
	runtime.GC()
	return live
}

// waitForLimit waits up to 2 s for the collector's settings to satisfy ok.
func waitForLimit(t *testing.T, ok func(percent int64, limit uint64) bool, want string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		p, l := gcSettings()
		if ok(p, l) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s; have GOGC %d, limit %d", want, int32(p), l)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEveryStoreIsBounded: the store every command gets (the TUI's, whose
// checks run in the same process, and repair's) has --max-memory's
// default budget, not none.
func TestEveryStoreIsBounded(t *testing.T) {
	a := &app{clock: clock.System(), demo: true, stdout: io.Discard, stderr: io.Discard}
	defer func() {
		for _, c := range a.closers {
			c()
		}
	}()
	store, err := a.backend(t.Context(), model.DefaultSchema(model.LayoutSingle))
	if err != nil {
		t.Fatal(err)
	}
	if store.MaxMemory != defaultMaxMemory {
		t.Errorf("the store's budget is %d bytes, want --max-memory's default %d", store.MaxMemory, int64(defaultMaxMemory))
	}
}
