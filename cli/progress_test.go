package cli

import (
	"bytes"
	"regexp"
	"testing"
	"time"
)

// TestProgressLine: count, total, rate and time left, redrawn in place and
// cleared at the end.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, took: func() time.Duration { return 2 * time.Second }, last: -time.Hour}
	p.update("seed", 1000, 4000, "accounts written")
	p.update("seed", 1001, 4000, "accounts written") // within 100 ms: not drawn
	p.done()
	// 1000 in 2 s: 500 a second, 3000 left: 6 s.
	want := regexp.MustCompile(`^\r\x1b\[Kseed: 1000 of ~4000 accounts written \(500/s, about 6s left\)\r\x1b\[K$`)
	if got := b.String(); !want.MatchString(got) {
		t.Fatalf("line %q, want it to match %s", got, want)
	}
	var nothing bytes.Buffer
	if q := newProgress(&nothing); q != nil {
		t.Fatal("a progress line on something that is not a terminal")
	}
	var nilp *progress
	nilp.update("x", 1, 2, "y") // a nil progress ignores calls
	nilp.done()
}
