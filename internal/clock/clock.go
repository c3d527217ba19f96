// Package clock is locktable's one source of time. Every judgement of the
// time of day (a TTL's verdict, :now in a guard, "3 h ago", an audit
// line's stamp, an export's time) reads a Clock that the process builds
// once, where it starts (System, in main), and hands down; tests hand
// down a Fixed one instead. Elapsed time (progress, pacing, timeouts)
// reads a Stopwatch, which is monotonic whatever the Clock says. Waiting
// (a follower's polling interval) goes through the Clock's Sleep, which a
// test's Manual clock (clocktest) controls.
//
// Nothing else in locktable calls time.Now: a test (TestOneClock) fails
// when something does.
package clock

import (
	"context"
	"time"
)

// Clock tells the time of day. The zero Clock tells none: it panics, so
// that code handed no clock fails in its tests rather than falling back
// to the machine's time unseen.
type Clock struct {
	now func() time.Time
	// sleep waits; nil waits on the machine's timers.
	sleep func(ctx context.Context, d time.Duration) error
}

// System is the machine's clock, for main to build once.
func System() Clock { return Clock{now: wall} }

// Fixed is a clock that always says at.
func Fixed(at time.Time) Clock { return Clock{now: func() time.Time { return at }} }

// Func is a clock that reads now, for a test whose time moves.
func Func(now func() time.Time) Clock { return Clock{now: now} }

// Now is the clock's time.
func (c Clock) Now() time.Time {
	if c.now == nil {
		panic("clock: the zero Clock tells no time; hand down the process's (clock.System in main, clock.Fixed in tests)")
	}
	return c.now()
}

// WithSleep is c with its waiting done by sleep: a test's clock, whose
// time moves when the test says, wakes its sleepers then.
func (c Clock) WithSleep(sleep func(ctx context.Context, d time.Duration) error) Clock {
	c.sleep = sleep
	return c
}

// Sleep waits for d to pass, or for ctx to end (its error then). Every
// clock but a test's waits on the machine's timers, which run whatever
// time of day the clock tells.
func (c Clock) Sleep(ctx context.Context, d time.Duration) error {
	if c.sleep != nil {
		return c.sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Set reports whether c tells the time (is not the zero Clock).
func (c Clock) Set() bool { return c.now != nil }

// Stopwatch measures elapsed time on the machine's monotonic clock, which
// no change of the time of day (or a Fixed Clock) moves.
type Stopwatch struct {
	start time.Time
}

// Start starts a stopwatch.
func Start() Stopwatch { return Stopwatch{start: wall()} }

// Elapsed is the time since the stopwatch started.
func (s Stopwatch) Elapsed() time.Duration { return wall().Sub(s.start) }

// wall is the one reading of the machine's clock. time.Now carries a
// monotonic reading beside the time of day, which Stopwatch's Sub uses.
func wall() time.Time { return time.Now() }
