//go:build !windows

package spill

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has id pid: signal 0 checks
// without sending anything.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
