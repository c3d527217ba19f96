//go:build windows

package model

import "os"

// processGone reports whether no process has id pid: on Windows,
// FindProcess opens the process and fails when there is none.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	p.Release()
	return false
}
