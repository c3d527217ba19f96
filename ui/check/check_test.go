package check

import (
	"context"
	"testing"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/events"
)

// TestReportMsgCarriesTheDuplicates: the duplicates are built once, when
// the report arrives, and handed to the views with it.
func TestReportMsgCarriesTheDuplicates(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	m := New(context.Background(), nil, events.NewPump(), &sc, 0, nil)
	m.run = 1
	report := model.Report{Accounts: 2, Problems: []model.Problem{
		model.Classifier{Schema: &sc}.HolderProblem(model.DuplicateValue, 0, "dup@x.io", "ACCT#d4", []string{"ACCT#d4", "ACCT#e5"}),
	}}
	_, cmd := m.Update(DoneMsg{run: 1, report: report})
	if cmd == nil {
		t.Fatal("a finished check hands no report to the views")
	}
	msg, ok := cmd().(ReportMsg)
	if !ok {
		t.Fatalf("a finished check emits %T, not a ReportMsg", cmd())
	}
	if msg.Duplicates == nil || !msg.Duplicates(0, "dup@x.io") || msg.Duplicates(0, "ada@x.io") || msg.Duplicates(1, "dup@x.io") {
		t.Fatal("the ReportMsg's duplicates are not the report's")
	}
}
