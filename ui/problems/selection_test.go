package problems

import (
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
)

// TestTheSelectionIsAProblem (issue 38, 3; found by
// TestTheScreenAgreesWithTheTable): a new report kept the selection's line
// number, so a problem that appeared above it (a missing lock, listed
// first) moved the selection to another problem. It stays on its problem;
// when that problem leaves, it goes to the next one and the status says so.
func TestTheSelectionIsAProblem(t *testing.T) {
	m, r := marking(t)
	m = hit(m, tea.KeyPressMsg{Code: tea.KeyDown}) // the first orphan, under the missing lock
	was, _ := m.Selected()
	if was.Kind != model.OrphanLock {
		t.Fatalf("selected %v, want an orphan", was)
	}

	more := *r
	more.Problems = append(slices.Clone(r.Problems), model.Problem{Kind: model.MissingLock, Constraint: "username", Value: "zed", Accounts: []string{"ACCT#z"}})
	m.SetReport(&more, "")
	if now, _ := m.Selected(); now.Value != was.Value || now.Kind != was.Kind {
		t.Fatalf("a problem listed above it moved the selection from %s to %s", was.Value, now.Value)
	}

	var without []model.Problem
	for _, p := range more.Problems {
		if p.Value != was.Value {
			without = append(without, p)
		}
	}
	fewer := more
	fewer.Problems = without
	m.SetReport(&fewer, "")
	next, _ := m.Selected()
	if next.Kind != model.OrphanLock || next.Value == was.Value {
		t.Fatalf("its problem gone, the selection is on %v; want the next orphan", next)
	}
	if s := m.Status(); !strings.Contains(s, "orphan_lock "+was.Value+" is no longer found: the nearest problem is selected") {
		t.Errorf("the status does not say where the selection went: %q", s)
	}
	if m = hit(m, tea.KeyPressMsg{Code: tea.KeyDown}); strings.Contains(m.Status(), "no longer found") {
		t.Errorf("the note outlives the next key: %q", m.Status())
	}
}

// TestAFilterJudgesANewReport (found by TestTheScreenAgreesWithTheTable):
// a kept filter judged the lines again only when their number changed,
// so a new report of as many lines showed, under "filter v1", problems
// that do not match it.
func TestAFilterJudgesANewReport(t *testing.T) {
	m, r := marking(t)
	m.SetFilter("gone1")
	if v := m.View(); !strings.Contains(v, "gone1") || strings.Contains(v, "gone2") {
		t.Fatalf("the filter gone1 shows:\n%s", v)
	}
	other := *r
	other.Problems = slices.Clone(r.Problems)
	for i, p := range other.Problems {
		if p.Value == "gone1" {
			other.Problems[i].Value, other.Problems[i].Lock = "ghost9", map[string]string{"PK": "UNIQ#HANDLE#ghost9"}
		}
	}
	m.SetReport(&other, "")
	if v := m.View(); strings.Contains(v, "UNIQ#HANDLE#ghost9") {
		t.Errorf("a problem the filter gone1 does not match is shown:\n%s", v)
	}
}
