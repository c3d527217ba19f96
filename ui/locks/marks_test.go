package locks

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/batch"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

var (
	space = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	ctrlA = tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl}
	bigF  = tea.KeyPressMsg{Code: 'f', ShiftedCode: 'F', Mod: tea.ModShift, Text: "F"}
)

// TestMarksSurvivePaging: ctrl+a marks every lock with a problem that
// the view shows (the orphans; ada's sound lock is not), the marks stay
// as further pages come and under a filter, space on a sound lock says
// there is nothing to mark, and F asks for every marked lock's fix.
func TestMarksSurvivePaging(t *testing.T) {
	held := []model.Item{dynamotest.Account("ACCT#a1", "ada@x.io", "ada"), dynamotest.Lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1")}
	for i := range 40 {
		held = append(held, dynamotest.Lock(fmt.Sprintf("UNIQ#HANDLE#lost%02d", i), ""))
	}
	b := uitest.Holding(held...)
	sc, st := b.Schema(), styles.New(true)
	c := items.New(&sc)
	m := New(context.Background(), b, &rows.Renderer{Schema: &sc, Styles: &st}, c, DefaultKeyMap())
	m.SetSize(100, 5) // pages of a few screens: 15 locks
	m, _ = m.Update(m.Show()())
	r, err := b.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReport(&r, r.Duplicates())
	first := m.Count()
	if first >= 41 {
		t.Fatalf("%d locks on the first page: the test needs more pages", first)
	}
	m, _ = m.Update(space) // ada's email lock: sound
	if !strings.Contains(m.Status(), "nothing to mark") {
		t.Errorf("space on a sound lock: %q", m.Status())
	}
	m, _ = m.Update(ctrlA)
	if !strings.Contains(m.Status(), fmt.Sprintf("%d marked", first-1)) || !strings.Contains(ansi.Strip(m.View()), " "+rows.MarkGlyph) {
		t.Fatalf("ctrl+a: status %q\n%s", m.Status(), ansi.Strip(m.View()))
	}
	for !m.pager.Paging().Done() {
		cmd := m.Prefetch()
		if cmd == nil {
			m.SetSize(100, 100)
			cmd = m.Prefetch()
		}
		m, _ = m.Update(cmd())
	}
	m.SetFilter("lost1")
	if m.Count() != 41 || !strings.Contains(m.Status(), fmt.Sprintf("%d marked", first-1)) {
		t.Fatalf("after paging to %d locks and filtering: %q", m.Count(), m.Status())
	}
	m.SetFilter("")
	m, _ = m.Update(bigF)
	fix, ok := m.Asked().(batch.FixMsg)
	if !ok || len(fix.Problems) != first-1 || fix.Problems[0].Kind != model.OrphanLock {
		t.Fatalf("F asks %+v", m.Asked())
	}
	m, _ = m.Update(batch.SettledMsg{Sent: fix.Problems[:3]})
	if !strings.Contains(m.Status(), fmt.Sprintf("%d marked", first-4)) {
		t.Errorf("after three were sent: %q", m.Status())
	}
}
