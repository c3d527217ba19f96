package tty

import "golang.org/x/sys/unix"

// The termios requests: read, set now, and set after discarding the input
// not read.
const (
	getTermios      = unix.TCGETS
	setTermios      = unix.TCSETS
	setFlushTermios = unix.TCSETSF
)
