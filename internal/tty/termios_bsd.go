//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package tty

import "golang.org/x/sys/unix"

// The termios requests: read, set now, and set after discarding the input
// not read.
const (
	getTermios      = unix.TIOCGETA
	setTermios      = unix.TIOCSETA
	setFlushTermios = unix.TIOCSETAF
)
