// Package tty keeps what is typed at the terminal UI off the shell: keys
// typed while it starts are not echoed, keys left unread when it ends do
// not reach the shell, and an esc the input reader would merge with the
// next one stays an esc.
package tty

import (
	"bytes"
	"os"
)

// Input is a terminal's input as the UI reads it: esc esc within one read
// is sent as the escape key's CSI u form and then esc, so that the input
// reader does not merge them into alt+esc (nor esc esc 2 into alt+2).
// It is still the terminal (Fd, Name), so that Bubble Tea puts it in raw
// mode and waits on it as on the file.
type Input struct {
	*os.File
	pending []byte
}

// NewInput wraps the terminal f.
func NewInput(f *os.File) *Input { return &Input{File: f} }

// escKey is the escape key as the kitty keyboard protocol sends it, which
// every input reader of Bubble Tea reads as esc whatever follows it.
var escKey = []byte("\x1b[27u")

// Read reads from the terminal, each esc followed by another esc in the
// same read rewritten as escKey.
func (in *Input) Read(p []byte) (int, error) {
	if len(in.pending) == 0 {
		buf := make([]byte, len(p))
		n, err := in.File.Read(buf)
		if n == 0 {
			return 0, err
		}
		in.pending = splitEsc(buf[:n])
	}
	n := copy(p, in.pending)
	in.pending = in.pending[n:]
	return n, nil
}

// splitEsc rewrites each esc directly followed by another esc in b.
func splitEsc(b []byte) []byte {
	if !bytes.Contains(b, []byte{0x1b, 0x1b}) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for i, c := range b {
		if c == 0x1b && i+1 < len(b) && b[i+1] == 0x1b {
			out = append(out, escKey...)
			continue
		}
		out = append(out, c)
	}
	return out
}
