package backend

import "errors"

// SweepProgress is how far a read of every account (dynamo's
// Sweeper.AccountsSweep) has gone: the items of the tables read, the
// scan pages they came in, the read capacity consumed, the tables'
// approximate item count (0: unknown), and how long it has run, in
// milliseconds.
type SweepProgress struct {
	Items  int64
	Pages  int
	RCU    float64
	Approx int64
	Millis int64
}

// Left estimates how many milliseconds the read has left from the share
// of the approximate item count read so far; false when it cannot tell
// (no count, nothing read yet, or the count passed).
func (p SweepProgress) Left() (int64, bool) {
	if p.Approx <= 0 || p.Items <= 0 || p.Items >= p.Approx {
		return 0, false
	}
	return p.Millis * (p.Approx - p.Items) / p.Items, true
}

// ErrNoSweep says the accounts cannot be read in one sweep of the table:
// they are listed through an index (--accounts-index), which a parallel
// scan of the table would not follow. Whoever wanted the sweep pages
// through the accounts instead.
var ErrNoSweep = errors.New("the accounts are listed through an index: page through them instead of sweeping the table")
