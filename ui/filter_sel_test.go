package ui

import (
	"strings"
	"testing"
)

// TestAFixElsewhereKeepsTheAccountsSelection (found by
// TestTheScreenAgreesWithTheTable at full scale): a fix sent from the
// problems view pins the accounts it wrote that no page lists on top of
// the accounts view ("written"), and the pin took the accounts view's
// selection, so the user came back to another row. The pin shows on top,
// the selection stays on its row.
func TestAFixElsewhereKeepsTheAccountsSelection(t *testing.T) {
	t.Parallel()
	b := fakeMany(300)
	b.Put(tablePlaceholder, acct("ACCT#zzzz", "zed@x.io", "zed"), lock("UNIQ#EMAIL#zed@x.io", "ACCT#zzzz")) // its username lock missing
	d := newDriver(t, Options{Roles: roles(b)}, 120, 40)
	d.ready()
	d.selectRow("ACCT#0003")
	before := d.selected()
	d.press("3")
	d.selectRow("zed")
	fixSelected(d, "zed")
	d.press("1")
	if d.rowIndex("written") < 0 {
		t.Fatalf("the account the fix wrote is not pinned:\n%s", d.screen())
	}
	if sel := d.selected(); fields(sel) != fields(before) {
		t.Errorf("after a fix in the problems view, the accounts' selection is %q, was %q:\n%s", sel, before, d.screen())
	}
	if !strings.Contains(before, "ACCT#0003") {
		t.Fatalf("selected %q", before)
	}
}
