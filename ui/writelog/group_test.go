package writelog

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/batch"
	"github.com/locktable/locktable/ui/write"
)

// TestABatchIsOneGroup: the writes of a batch are listed each naming it,
// and u on any of them asks to take back every write of the batch that
// can still be taken back, newest first (claim steps and what wrote
// nothing left out, the latter said why); a write outside the batch is
// undone alone, as before.
func TestABatchIsOneGroup(t *testing.T) {
	m := newLog(t)
	m.Record(committed("rename", "alone", "", "ACCT#a1"))
	in := func(o write.OutcomeMsg) write.OutcomeMsg {
		o.Group, o.GroupTitle = "g1", "fix 3 marked problems"
		return o
	}
	m.Record(in(committed("repair", "f1", "", "UNIQ#HANDLE#x")))
	claimed := in(committed("repair", "f2", "", "UNIQ#HANDLE#y"))
	claimed.Claimed = "c2"
	m.Record(claimed)
	m.Record(in(write.OutcomeMsg{Result: model.Result{Operation: "repair", Outcome: model.Skipped, Token: "f3", Note: "already repaired"}}))
	if v := ansi.Strip(m.View()); strings.Count(v, "· batch: fix 3 marked problems") != 4 {
		t.Errorf("the batch's rows do not name it:\n%s", v)
	}
	u, ok := press(t, &m, "u").(batch.UndoMsg)
	if !ok || !reflect.DeepEqual(u.Tokens, []string{"f2", "f1"}) || len(u.Skipped) != 1 || !strings.Contains(u.Skipped[0], "skipped") ||
		u.Title != "undo the batch: fix 3 marked problems" {
		t.Fatalf("u on the batch asks %+v", u)
	}
	m.cursor = m.Len() - 1 // the rename, outside the batch
	if one, ok := press(t, &m, "u").(write.UndoMsg); !ok || one.Token != "alone" {
		t.Errorf("u outside the batch asks %+v", one)
	}
}
