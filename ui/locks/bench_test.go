package locks

import (
	"context"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// endless serves as many email locks as asked for, numbered on from the
// cursor, without end.
type endless struct{ sc *model.Schema }

func (e endless) LocksPage(_ context.Context, from backend.Cursor, want int) (backend.LockPage, error) {
	locks := make([]model.Lock, want)
	for k := range locks {
		v := fmt.Sprintf("user%d@example.org", from.Pos()+k)
		table, key := e.sc.LockKey(0, v)
		locks[k] = model.Lock{Constraint: 0, Value: v, Table: table, Key: key, Owner: fmt.Sprintf("ACCT#%08x", from.Pos()+k)}
	}
	return backend.LockPage{Locks: locks, Next: backend.At(from.Pos()+want, false)}, nil
}

func (endless) ReadConsistent(context.Context, []model.KeyRef, func(string, model.Item)) error {
	return nil
}

// BenchmarkPageUnderFilter is the CPU of a page of locks arriving (Update)
// with 100k locks loaded and a filter kept: the rows the page adds are
// judged, not the 100k before them.
func BenchmarkPageUnderFilter(b *testing.B) {
	sc := model.DefaultSchema(model.LayoutSingle)
	st := styles.New(true)
	m := New(context.Background(), endless{sc: &sc}, &rows.Renderer{Schema: &sc, Styles: &st}, items.New(&sc), DefaultKeyMap())
	m.SetSize(120, 100_000/3+1) // the first page: 100k locks
	m, _ = m.Update(m.Show()())
	m.SetSize(120, 38)
	m.SetFilter("9")
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"}) // following the end, each page asks for the next
	if m.Count() < 100_000 || cmd == nil {
		b.Fatalf("%d locks loaded, next page asked %v", m.Count(), cmd != nil)
	}
	for b.Loop() {
		m, cmd = m.Update(cmd())
	}
	if kept, of := m.Matched(); of <= 100_000 || kept == 0 {
		b.Fatalf("the filter kept %d of %d", kept, of)
	}
}
