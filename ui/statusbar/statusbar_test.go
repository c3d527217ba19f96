package statusbar

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/styles"
)

// TestRunningCheckShowsRate: a running check shows its progress and how
// fast it reads, once it has run long enough to say.
func TestRunningCheckShowsRate(t *testing.T) {
	st := styles.New(true)
	for _, tc := range []struct {
		elapsed time.Duration
		want    string
	}{
		{0, "checking: 2,400 / ~10,000 items scanned"},
		{2 * time.Second, "checking: 2,400 / ~10,000 items scanned (1,200 items/s)"},
	} {
		h := Header{Table: "t", Where: "w", Views: []string{"A"}, Check: Check{Running: true,
			Progress: model.CheckProgress{Phase: model.PhaseScan, Scanned: 2400, Approx: 10000}, Elapsed: tc.elapsed}}
		line := strings.Split(ansi.Strip(h.Render(&st, 200)), "\n")[1]
		if !strings.HasSuffix(strings.TrimSpace(line), tc.want) {
			t.Errorf("after %v the header says %q, want it to end %q", tc.elapsed, line, tc.want)
		}
	}
}

// TestHeaderSaysMissingAndRCU: the header names what the backend lacks,
// and after a check the read capacity it consumed.
func TestHeaderSaysMissingAndRCU(t *testing.T) {
	st := styles.New(true)
	h := Header{Table: "t", Where: "w", Views: []string{"A"},
		Missing: []string{"no idempotency tokens (ClientRequestToken is ignored): a write whose answer is lost …",
			"no ALL_OLD items on a failed condition: each failed slot …"},
		Check: Check{Report: &model.Report{ConsumedRCU: 2193.4}}}
	lines := strings.Split(ansi.Strip(h.Render(&st, 300)), "\n")
	if want := "backend: no idempotency tokens (ClientRequestToken is ignored), no ALL_OLD items on a failed condition"; !strings.Contains(lines[0], want) {
		t.Errorf("header line 1 %q does not say %q", lines[0], want)
	}
	if want := "check: 2,193 RCU"; !strings.Contains(lines[1], want) {
		t.Errorf("header line 2 %q does not say %q", lines[1], want)
	}
}
