package writelog

import (
	"fmt"
	"testing"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/styles"
	"github.com/locktable/locktable/ui/write"
)

// chained is a log of n writes, each an undo of the one before: the
// longest undo chains a session can build.
func chained(n int) Model {
	st := styles.New(true)
	m := New(DefaultKeyMap(), &st, "")
	m.SetSize(120, 40)
	undoes := ""
	for i := range n {
		token := fmt.Sprintf("tok-%d", i)
		m.Record(write.OutcomeMsg{Result: model.Result{Operation: "rename", Keys: []string{"ACCT#a1"}, Outcome: model.Committed, Token: token}, Undoes: undoes})
		undoes = token
	}
	m.Open()
	return m
}

// BenchmarkWriteLogView draws a log of 200 chained undos, as every frame
// does while the log is shown.
func BenchmarkWriteLogView(b *testing.B) {
	m := chained(200)
	for b.Loop() {
		_ = m.View()
	}
}
