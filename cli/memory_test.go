package cli

import (
	"math"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// gcSettings reads the collector's percent (GOGC; -1 when off) and soft
// memory limit.
func gcSettings() (percent int64, limit uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), s[1].Value.Uint64()
}

// TestHoldMemory: checks run with the collector paced by the limit (GOGC
// off) until the last one ends; a live heap past three quarters of the
// limit brings the usual pacing back at once.
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
	live := make([]byte, 7<<20) // past 3/4 of 8 MB
	for i := range live {
		live[i] = byte(i)
	}
	runtime.GC()
	deadline := time.Now().Add(2 * time.Second)
	for {
		if p, l := gcSettings(); p == percent && l == limit {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a live heap past the limit's three quarters: the usual pacing did not come back")
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
}

// TestHoldMemoryUnderABudget: --max-memory's budget bounds the hold (the
// lower of the two is the limit), and what the usual pacing comes back to
// once the live heap passes the soft limit is the budget, not no limit.
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

	release = holdMemory(8<<20, 64<<20)
	defer release()
	live := make([]byte, 7<<20) // past 3/4 of the soft 8 MB
	for i := range live {
		live[i] = byte(i)
	}
	runtime.GC()
	deadline := time.Now().Add(2 * time.Second)
	for {
		if p, l := gcSettings(); p == percent && l == 64<<20 {
			break
		}
		if time.Now().After(deadline) {
			p, l := gcSettings()
			t.Fatalf("past the soft limit: GOGC %d, limit %d; want %d and the budget's %d", p, l, percent, 64<<20)
		}
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
}
