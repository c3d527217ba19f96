//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package tty

import (
	"os"

	"golang.org/x/sys/unix"
)

// Quiet stops the terminal f echoing what is typed until restore: while
// the UI starts (the table is described, the first page read) keys typed
// ahead are kept for it, not shown on the shell's screen. Signals (ctrl+c)
// and output work as before. restore puts the terminal back as it was and
// discards what was typed and not read, so that it does not reach the
// shell. On anything but a terminal both do nothing.
func Quiet(f *os.File) (restore func()) {
	fd := int(f.Fd())
	was, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return func() {}
	}
	quiet := *was
	quiet.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON
	quiet.Cc[unix.VMIN], quiet.Cc[unix.VTIME] = 1, 0
	if unix.IoctlSetTermios(fd, setTermios, &quiet) != nil {
		return func() {}
	}
	return func() { _ = unix.IoctlSetTermios(fd, setFlushTermios, was) }
}
