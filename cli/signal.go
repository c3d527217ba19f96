package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/locktable/locktable/dynamo"
)

// Interrupted is why a command's context ended: SIGINT (Ctrl-C) or SIGTERM.
type Interrupted struct{ Signal os.Signal }

func (i Interrupted) Error() string { return "interrupted" }

// code is the exit status of a command cut short by the signal: 128+N.
func (i Interrupted) code() int {
	if i.Signal == syscall.SIGTERM {
		return 143
	}
	return 130
}

// SignalContext returns the context a command runs under. The first SIGINT
// or SIGTERM ends it, with Interrupted as its cause; a write in flight then
// settles its outcome under the context it carries
// (dynamo.WithSettleContext), which the second signal ends: abandon
// settling, the outcome stays unknown and its token is printed. stop
// releases the signals.
func SignalContext(parent context.Context) (ctx context.Context, stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	work, interrupt := context.WithCancelCause(parent)
	settle, abandon := context.WithCancelCause(context.WithoutCancel(parent))
	done := make(chan struct{})
	go func() {
		for _, cancel := range []context.CancelCauseFunc{interrupt, abandon} {
			select {
			case s := <-sigs:
				cancel(Interrupted{s})
			case <-done:
				return
			}
		}
	}()
	return dynamo.WithSettleContext(work, settle), func() {
		signal.Stop(sigs)
		close(done)
		interrupt(nil)
		abandon(nil)
	}
}
