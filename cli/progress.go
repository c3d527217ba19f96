package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/locktable/locktable/internal/clock"
	"golang.org/x/term"
)

// progress is one line on a terminal's stderr that a long command rewrites
// in place: what it does, the count, and with a known total the rate and
// the time left. On anything but a terminal it says nothing.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	took  func() time.Duration // since the line started (a clock.Stopwatch's)
	last  time.Duration        // took's reading when the line was last shown
	shown bool
}

// newProgress returns a progress line on w, or nil when w is not a
// terminal; a nil *progress ignores every call.
func newProgress(w io.Writer) *progress {
	if f, ok := w.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{w: w, took: clock.Start().Elapsed, last: -time.Hour}
}

// update shows n of total (0: unknown) things done, at most ten times a
// second.
func (p *progress) update(what string, n, total int64, unit string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	took := p.took()
	if took-p.last < 100*time.Millisecond {
		return
	}
	p.last = took
	line := fmt.Sprintf("%s: %d %s", what, n, unit)
	if elapsed := took.Seconds(); elapsed > 0.5 && n > 0 {
		rate := float64(n) / elapsed
		line = fmt.Sprintf("%s: %d", what, n)
		if total > 0 {
			line += fmt.Sprintf(" of ~%d", total)
		}
		line += fmt.Sprintf(" %s (%.0f/s", unit, rate)
		if total > n {
			line += fmt.Sprintf(", about %s left", (time.Duration(float64(total-n)/rate) * time.Second).Round(time.Second))
		}
		line += ")"
	} else if total > 0 {
		line = fmt.Sprintf("%s: %d of ~%d %s", what, n, total, unit)
	}
	fmt.Fprint(p.w, "\r\x1b[K"+line)
	p.shown = true
}

// done clears the line.
func (p *progress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// clearLine erases the current line of a terminal (a progress line left by
// a command cut short); on anything else it writes nothing.
func clearLine(w io.Writer) {
	if newProgress(w) != nil {
		fmt.Fprint(w, "\r\x1b[K")
	}
}
