package problems

import (
	"strings"
	"testing"

	"github.com/locktable/locktable/cli/flagname"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// TestHintIsTheReports: the view shows the hint the check handed over
// with its report, and builds none of its own.
func TestHintIsTheReports(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	st := styles.New(true)
	m := New(&rows.Renderer{Schema: &sc, Styles: &st}, DefaultKeyMap())
	m.SetSize(80, 20)
	// A report that would give a hint of its own: no account, other keys.
	r := &model.Report{ScannedItems: 2, Others: map[string]int{"USER#": 2}}
	if r.SchemaHint(&sc, flagname.Say) == "" {
		t.Fatal("the report gives no hint: the test needs one that does")
	}
	m.SetReport(r, "")
	if s := m.View(); strings.Contains(s, "hint:") {
		t.Errorf("a hint shown where the check handed none:\n%s", s)
	}
	m.SetReport(r, "the check's own words")
	if s := m.View(); !strings.Contains(s, "hint: the check's own words") {
		t.Errorf("the check's hint is not shown:\n%s", s)
	}
}
