package e2e

import (
	"testing"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// TestTUIPicksATable: with no --table and no table of the default name,
// the UI lists the endpoint's tables; typing filters them, enter opens one.
func TestTUIPicksATable(t *testing.T) {
	t.Parallel()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table := store.Schema.Table
	dynamotest.Put(t, client, table, dynamotest.Account("ACCT#p1", "p@x.io", "pick"),
		dynamotest.Lock("UNIQ#EMAIL#p@x.io", "ACCT#p1"), dynamotest.Lock("UNIQ#HANDLE#pick", "ACCT#p1"))
	tm := startTUISized(t, 80, 24, "--endpoint-url", dynamotest.Endpoint(t))
	tm.start()
	tm.waitText("the picker", "choose a table at")
	tm.text(table)
	tm.waitText("the table, filtered", "▸ "+table)
	tm.keys("Enter")
	tm.waitText("the table opened", "1 accounts loaded")
	tm.quit()
}
