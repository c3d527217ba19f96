package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressLine: count, total, rate and time left, redrawn in place and
// cleared at the end.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, start: time.Now().Add(-2 * time.Second)}
	p.update("seed", 1000, 4000, "accounts written")
	p.done()
	got := b.String()
	if !strings.HasPrefix(got, "\r\x1b[Kseed: 1000 of ~4000 accounts written (") || !strings.Contains(got, "/s, about ") || !strings.HasSuffix(got, " left)\r\x1b[K") {
		t.Fatalf("line %q", got)
	}
	var nothing bytes.Buffer
	if q := newProgress(&nothing); q != nil {
		t.Fatal("a progress line on something that is not a terminal")
	}
	var nilp *progress
	nilp.update("x", 1, 2, "y") // a nil progress ignores calls
	nilp.done()
}
