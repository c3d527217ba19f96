package problems

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/batch"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// marking is the view over a report of three orphans and a missing lock.
func marking(t *testing.T) (Model, *model.Report) {
	t.Helper()
	b := uitest.Holding(
		dynamotest.Account("ACCT#a1", "ada@x.io", "ada"), dynamotest.Lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"),
		dynamotest.Lock("UNIQ#HANDLE#gone1", ""), dynamotest.Lock("UNIQ#HANDLE#gone2", "ACCT#x"), dynamotest.Lock("UNIQ#HANDLE#gone3", ""),
	)
	r, err := b.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, st := b.Schema(), styles.New(true)
	m := New(&rows.Renderer{Schema: &sc, Styles: &st}, DefaultKeyMap())
	m.SetSize(100, 20)
	m.SetReport(&r, "")
	return m, &r
}

func hit(m Model, k tea.KeyPressMsg) Model {
	m, _ = m.Update(k)
	return m
}

var (
	space = tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	ctrlA = tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl}
	bigF  = tea.KeyPressMsg{Code: 'f', ShiftedCode: 'F', Mod: tea.ModShift, Text: "F"}
)

// TestMarksSurviveTheFilter: space marks the selected problem and says
// so in the row and the status; ctrl+a under a filter marks only what it
// keeps; the marks outlive the filter; F asks for the fixes of all of
// them, in the view's order; F is offered only with marks.
func TestMarksSurviveTheFilter(t *testing.T) {
	m, _ := marking(t)
	if m.keys().FixMarked.Enabled() {
		t.Error("F offered with nothing marked")
	}
	m = hit(m, space) // the missing lock, first
	if !strings.Contains(m.Status(), "1 marked") || !strings.Contains(ansi.Strip(m.View()), "▸"+rows.MarkGlyph) {
		t.Fatalf("space: status %q, view\n%s", m.Status(), ansi.Strip(m.View()))
	}
	m.SetFilter("gone")
	m = hit(m, ctrlA)
	m.SetFilter("")
	if !strings.Contains(m.Status(), "4 marked") || !m.keys().FixMarked.Enabled() {
		t.Fatalf("ctrl+a under /gone, then no filter: status %q", m.Status())
	}
	m = hit(m, bigF)
	fix, ok := m.Asked().(batch.FixMsg)
	if !ok || len(fix.Problems) != 4 || fix.Problems[0].Kind != model.MissingLock || fix.Problems[1].Value != "gone1" {
		t.Fatalf("F asks %+v; want the four marked, in the view's order", fix)
	}
	m.SetFilter("gone")
	m = hit(m, ctrlA) // all shown are marked: ctrl+a unmarks them
	if m.SetFilter(""); !strings.Contains(m.Status(), "1 marked") {
		t.Errorf("ctrl+a over marked rows: status %q; want them unmarked", m.Status())
	}
	if m = hit(m, space); !strings.Contains(m.Status(), "2 marked") {
		t.Fatalf("space: status %q", m.Status())
	}
	if m = hit(m, space); !strings.Contains(m.Status(), "1 marked") {
		t.Errorf("space on a marked row: status %q; want it unmarked", m.Status())
	}
}

// TestSentUnmarkedUnsentKept: a batch's end unmarks what it sent and
// leaves the rest marked; a new report drops the marks of problems it no
// longer finds.
func TestSentUnmarkedUnsentKept(t *testing.T) {
	m, r := marking(t)
	m = hit(m, ctrlA)
	m, _ = m.Update(batch.SettledMsg{Sent: r.Problems[:1]})
	if !strings.Contains(m.Status(), "3 marked") {
		t.Fatalf("after one was sent: %q", m.Status())
	}
	fewer := *r
	fewer.Problems = r.Problems[2:]
	m.SetReport(&fewer, "")
	if !strings.Contains(m.Status(), "2 marked") {
		t.Errorf("a report without one of them: %q; want its mark gone", m.Status())
	}
}

// TestFixMarkedOffWhereWritesAre: F is never offered on a store that
// may not write.
func TestFixMarkedOffWhereWritesAre(t *testing.T) {
	m, _ := marking(t)
	m.DisableWrites()
	m = hit(m, space)
	if m.keys().FixMarked.Enabled() {
		t.Error("F offered on a read-only store")
	}
	if m = hit(m, bigF); m.Asked() != nil {
		t.Error("F asked for fixes on a read-only store")
	}
}
