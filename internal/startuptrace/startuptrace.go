// Package startuptrace records when the process passes the phases of its
// start (its main, the AWS configuration loaded, the first page read, the
// first frame drawn...), for bench/firstrows to print where the time to
// the first rows goes. It records only when LOCKTABLE_TRACE_STARTUP names
// a file, and only there: never on stdout or stderr, which the terminal
// UI owns.
package startuptrace

import (
	"fmt"
	"os"
	"sync"

	"github.com/locktable/locktable/internal/clock"
)

// Env names the file the phases are appended to.
const Env = "LOCKTABLE_TRACE_STARTUP"

var (
	path = os.Getenv(Env)
	mu   sync.Mutex
	seen = map[string]bool{}
	clk  = clock.System()
)

// Mark records that the process has reached phase, the first time only:
// a line "phase unix-nanoseconds" appended to the file Env names. With
// Env unset it does nothing.
func Mark(phase string) {
	if path == "" {
		return
	}
	at := clk.Now().UnixNano()
	mu.Lock()
	defer mu.Unlock()
	if seen[phase] {
		return
	}
	seen[phase] = true
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return // a trace is not worth failing for
	}
	defer f.Close()
	_, _ = fmt.Fprintf(f, "%s %d\n", phase, at)
}

// On reports whether the phases are recorded.
func On() bool { return path != "" }
