//go:build windows

package spill

import (
	"errors"
	"os"
	"syscall"
)

// processGone reports whether no process has id pid: on Windows,
// FindProcess opens the process, and ERROR_INVALID_PARAMETER says there is
// none (access denied, for one, says there is one).
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err == nil {
		p.Release()
		return false
	}
	return errors.Is(err, syscall.Errno(87)) // ERROR_INVALID_PARAMETER
}
