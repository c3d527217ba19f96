package backend

import (
	"context"
	"errors"
)

// ErrStopped is why a write was not sent: the stop channel of its context
// (WithStop) closed before it left the process, while it waited for the
// --max-wcu write budget or before it began.
var ErrStopped = errors.New("stopped before it was sent")

// stopKey carries a write's stop channel (WithStop).
type stopKey struct{}

// WithStop returns ctx carrying stop: a write that has not left the
// process when stop closes, one waiting for the --max-wcu budget above
// all, is not sent (not_sent, ErrStopped), while one already sent is
// settled under ctx as ever. A bulk fix's esc closes it; cancelling ctx
// instead would abandon the outcome of the transaction in flight.
func WithStop(ctx context.Context, stop <-chan struct{}) context.Context {
	return context.WithValue(ctx, stopKey{}, stop)
}

// Stop is ctx's stop channel; nil, which never closes, when it has none.
func Stop(ctx context.Context) <-chan struct{} {
	stop, _ := ctx.Value(stopKey{}).(<-chan struct{})
	return stop
}

// Stopped reports whether ctx's stop channel has closed.
func Stopped(ctx context.Context) bool {
	select {
	case <-Stop(ctx):
		return true
	default:
		return false
	}
}
