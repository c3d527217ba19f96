package accounts

import (
	"context"
	"testing"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// TestAnswersBeforeAReloadAreDropped: a page asked for before a reload
// arrives after it, and is dropped; the reload's own page is shown.
func TestAnswersBeforeAReloadAreDropped(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	b := uitest.New(sc)
	b.Put(sc.Table, dynamotest.Account("ACCT#a1", "ada@x.io", "ada"))
	st := styles.New(true)
	m := New(context.Background(), b, &rows.Renderer{Schema: &sc, Styles: &st}, DefaultKeyMap())
	m.SetSize(100, 26)

	stale := m.Init()
	b.Put(sc.Table, dynamotest.Account("ACCT#b2", "bob@x.io", "bob"))
	reload := m.Reload()
	m, _ = m.Update(stale())
	if m.Count() != 0 || !m.Loading() {
		t.Fatalf("a page asked for before the reload was shown: %d accounts, loading %v", m.Count(), m.Loading())
	}
	m, _ = m.Update(reload())
	if m.Count() != 2 || m.Loading() {
		t.Errorf("the reload's page: %d accounts, loading %v; want 2, done", m.Count(), m.Loading())
	}
}
