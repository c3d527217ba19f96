package ui

import (
	"strings"
	"testing"

	"github.com/locktable/locktable/internal/clock"
)

// TestAPinnedAccountGoneUnderAFilter (found by
// TestTheScreenAgreesWithTheTable): with a filter kept, someone else
// deleting an account of the pinned group panicked: the rows read were
// replaced before the rows on top, and the filter, judging them all at
// once, read a pinned place that was gone. Both change at once now, and
// the selection stays on its row.
func TestAPinnedAccountGoneUnderAFilter(t *testing.T) {
	t.Parallel()
	b, f := fakePlanted(), make(feed, 4)
	d := liveDriver(t, b, f, clock.Clock{})
	d.search("ada@x.io")
	d.press("/")
	d.typeText("x.io")
	d.press("enter")
	d.selectRow("ACCT#b2")
	f.remove(b, acct("ACCT#a1", "ada@x.io", "ada"))
	d.until("the account gone", func(m *Model) bool { return d.rowIndex("ACCT#a1") < 0 })
	d.settle()
	if sel := d.selected(); !strings.Contains(sel, "ACCT#b2") {
		t.Errorf("the selection left ACCT#b2 for %q:\n%s", sel, d.screen())
	}
}
