package tty

import (
	"os"
	"testing"
)

// TestSplitEsc: esc esc in one read reached the input reader as alt+esc
// (and esc esc 2 as alt+2); each esc before another is sent as the
// escape key's own sequence, and nothing else changes.
func TestSplitEsc(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b\x1b":     "\x1b[27u\x1b",
		"\x1b\x1b2G":   "\x1b[27u\x1b2G",
		"\x1b\x1b\x1b": "\x1b[27u\x1b[27u\x1b",
		"\x1b[A\x1b":   "\x1b[A\x1b",
		"ab\x1bc":      "ab\x1bc",
	} {
		if got := string(splitEsc([]byte(in))); got != want {
			t.Errorf("splitEsc(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestInputReadsInPieces: a read into a small buffer gets the rewritten
// bytes in order, none lost.
func TestInputReadsInPieces(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := w.WriteString("\x1b\x1bq"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	in := NewInput(r)
	var got []byte
	buf := make([]byte, 2)
	for len(got) < len("\x1b[27u\x1bq") {
		n, err := in.Read(buf)
		if err != nil {
			t.Fatalf("read: %v after %q", err, got)
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != "\x1b[27u\x1bq" {
		t.Fatalf("read %q", got)
	}
}
