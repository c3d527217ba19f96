package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTUIGShowsProgressAndEscStops: at 80x24, G on a table paced by
// --max-rcu says on the status line how far it has read (items of the
// table's approximate count, pages, RCU) and that esc stops it; esc
// stops it, and the rows listed stay.
func TestTUIGShowsProgressAndEscStops(t *testing.T) {
	common := anomalousTable(t, 1500)
	tm := startTUISized(t, 80, 24, append(common, "--max-rcu", "20", "--page-size", "100")...)
	tm.start()
	tm.waitFor("the first rows", func(s string) bool { return strings.Contains(s, "accounts loaded") })
	progress := regexp.MustCompile(`reading every account: [1-9][0-9,]* of ~[1-9][0-9,]* items in [1-9][0-9,]* pages, [0-9.]+ RCU`)
	tm.keys("G")
	screen := tm.waitWithin("G's progress", 30*time.Second, func(s string) bool {
		return progress.MatchString(s) && strings.Contains(s, "esc stops")
	})
	if !strings.Contains(screen, "└ UNIQ#") {
		t.Errorf("while G reads, the rows listed are gone:\n%s", screen)
	}
	tm.keys("Escape")
	screen = tm.waitFor("G stopped", func(s string) bool { return strings.Contains(s, "stopped reading every account after ") })
	if !strings.Contains(screen, "└ UNIQ#") || !strings.Contains(screen, "ACCT#") {
		t.Errorf("after esc the rows are gone:\n%s", screen)
	}
	tm.keys("j")
	tm.waitFor("the rows listed, more below", func(s string) bool { return strings.Contains(s, "accounts loaded, more below") })
}
