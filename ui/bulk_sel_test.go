package ui

import (
	"fmt"
	"strings"
	"testing"
)

// TestABulkFixKeepsTheAccountsSelection (issue 38, 3, as a guard): the
// issue saw the accounts view's selection move from an account to its
// lock row after a bulk fix. On the in-memory table a bulk fix of orphan
// locks (the rows on top shrink under the selection) keeps it on the
// account, before this session's changes too; the model-based proof
// (TestTheScreenAgreesWithTheTable) holds every view's selection to its
// key across every bulk fix on dynoxide.
func TestABulkFixKeepsTheAccountsSelection(t *testing.T) {
	t.Parallel()
	b := orphans(6)
	want := orphanCount(t, b)
	d := newDriver(t, Options{Roles: roles(b)}, 120, 40)
	d.ready()
	d.selectRow("ACCT#c3")
	bulkPreview(t, d)
	d.typeText(fmt.Sprint(want))
	d.press("enter")
	d.until("the batch's report", func(m *Model) bool { return strings.Contains(d.screen(), "committed") && !m.layers.batch.Sending() })
	d.press("enter")
	d.until("the check after the batch", func(m *Model) bool { return m.check.Report() != nil && !m.check.Bar().Running })
	d.settle()
	d.press("1")
	if sel := d.selected(); !strings.HasPrefix(fields(strings.TrimPrefix(sel, "▸ ")), "ACCT#c3 ") {
		t.Errorf("after the bulk fix, the accounts' selection is %q, want ACCT#c3:\n%s", sel, d.screen())
	}
}
