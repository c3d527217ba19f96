package clocktest

import (
	"context"
	"sync"
	"time"

	"github.com/locktable/locktable/internal/clock"
)

// Manual is a clock whose time moves only when the test advances it: a
// sleeper on it wakes when the time passes its deadline, never on the
// machine's timers, so a test of polling does not depend on speed.
type Manual struct {
	mu       sync.Mutex
	now      time.Time
	sleepers []sleeper
	changed  chan struct{} // closed (and replaced) when a sleeper comes or goes
}

type sleeper struct {
	until time.Time
	wake  chan struct{}
}

// NewManual is a Manual clock at at.
func NewManual(at time.Time) *Manual { return &Manual{now: at, changed: make(chan struct{})} }

// Clock is the clock.Clock that m drives: its Now is m's time, and its
// Sleep waits for m to be advanced.
func (m *Manual) Clock() clock.Clock { return clock.Func(m.Now).WithSleep(m.sleep) }

// Now is m's time.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Advance moves m's time on by d and wakes the sleepers whose time has come.
func (m *Manual) Advance(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = m.now.Add(d)
	kept := m.sleepers[:0]
	for _, s := range m.sleepers {
		if s.until.After(m.now) {
			kept = append(kept, s)
			continue
		}
		close(s.wake)
	}
	m.sleepers = kept
	m.signal()
}

// Sleepers is how many sleep on m now.
func (m *Manual) Sleepers() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sleepers)
}

// WaitForSleepers waits until at least n sleep on m, or ctx ends: a test
// advances the clock once what it drives is waiting.
func (m *Manual) WaitForSleepers(ctx context.Context, n int) error {
	for {
		m.mu.Lock()
		have, changed := len(m.sleepers), m.changed
		m.mu.Unlock()
		if have >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// signal tells WaitForSleepers that the sleepers changed; m.mu is held.
func (m *Manual) signal() {
	close(m.changed)
	m.changed = make(chan struct{})
}

func (m *Manual) sleep(ctx context.Context, d time.Duration) error {
	m.mu.Lock()
	if d <= 0 {
		m.mu.Unlock()
		return ctx.Err()
	}
	s := sleeper{until: m.now.Add(d), wake: make(chan struct{})}
	m.sleepers = append(m.sleepers, s)
	m.signal()
	m.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		m.mu.Lock()
		for i, o := range m.sleepers {
			if o.wake == s.wake {
				m.sleepers = append(m.sleepers[:i], m.sleepers[i+1:]...)
				break
			}
		}
		m.signal()
		m.mu.Unlock()
		return ctx.Err()
	}
}
