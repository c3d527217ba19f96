//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package tty

import "os"

// Quiet does nothing here: the console does not echo keys typed ahead of
// the UI the way a Unix terminal does.
func Quiet(*os.File) (restore func()) { return func() {} }
