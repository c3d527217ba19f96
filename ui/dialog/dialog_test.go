package dialog_test

import (
	"testing"

	"charm.land/bubbles/v2/spinner"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/styles"
)

// TestWaitingTurns: "working…" stood still for seconds; the wait says
// what it waits for and its spinner turns.
func TestWaitingTurns(t *testing.T) {
	st := styles.New(true)
	sc := model.DefaultSchema(model.LayoutSingle)
	m := dialog.New(dialog.DefaultKeyMap(), &st, &sc, "delete ACCT#a1", nil)
	m.SetSize(80, 20)
	before := m.View()
	cmd := m.Init()
	if cmd == nil {
		t.Fatal("a dialog that opens waiting starts no spinner")
	}
	tick, ok := cmd().(spinner.TickMsg)
	if !ok {
		t.Fatalf("Init's command says %T, want a spinner tick", cmd())
	}
	m, next := m.Update(tick)
	if next == nil || m.View() == before {
		t.Fatalf("the spinner does not turn:\n%s", m.View())
	}
	m.SetSkipped("nothing to send")
	if _, next := m.Update(tick); next != nil {
		t.Error("the spinner turns on after the wait")
	}
}
