package live

import (
	"fmt"
	"testing"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/items"
)

// TestTouchedReadsTheHoldersOfALock: a lock written is read again with the
// accounts that hold its value; a lock keyed by the bare prefix (a
// signup's empty value) is no account's, though every account without a
// value shows "" for it: 20,000 of them were read again, in a quadratic
// walk on the Update loop.
func TestTouchedReadsTheHoldersOfALock(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	c := items.New(&sc)
	put := func(id, email string) {
		locks := make([]model.LockView, len(sc.Constraints))
		for ci := range locks {
			locks[ci] = model.LockView{Constraint: ci}
		}
		locks[0].Value = email
		c.Put(model.AccountView{ID: id, Item: dynamotest.Account(id, email, ""), Locks: locks})
	}
	put("ACCT#ada", "ada@x.io")
	for i := range 2000 {
		put(fmt.Sprintf("ACCT#%04d", i), "")
	}
	key := func(it model.Item) model.Item { return model.Item{"PK": it["PK"], "SK": it["SK"]} }
	for _, c2 := range []struct {
		lock model.Item
		want []string
	}{
		{dynamotest.Lock("UNIQ#EMAIL#ada@x.io", "ACCT#someone"), []string{"ACCT#ada"}},
		{dynamotest.Lock("UNIQ#EMAIL#", "ACCT#someone"), nil},
	} {
		ids, _ := Touched(&sc, c, []model.Change{{Event: model.ChangeInsert, Table: sc.Table, Keys: key(c2.lock), New: c2.lock}})
		if fmt.Sprint(ids) != fmt.Sprint(c2.want) {
			n := len(ids)
			if n > 3 {
				ids = ids[:3]
			}
			t.Errorf("a lock %s put: %d accounts read again (%v...), want %v", c2.lock["PK"].S, n, ids, c2.want)
		}
	}
}
