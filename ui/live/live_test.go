package live

import (
	"context"
	"slices"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/items"
)

// TestTouched: a change is read again where the cache holds what it
// touched: the account written, the owner of a lock written (before and
// after), and the lock item itself when a page of locks listed it; an
// account nobody shows is not read.
func TestTouched(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	c := items.New(&sc)
	for _, id := range []string{"ACCT#a", "ACCT#b", "ACCT#c"} {
		c.Put(model.AccountView{ID: id, Item: dynamotest.Account(id, "", "")})
	}
	held := model.Lock{Table: sc.Table, Key: map[string]string{"PK": "UNIQ#EMAIL#held@x", "SK": "LOCK"}, Value: "held@x"}
	c.PutLock(held)
	key := func(it model.Item) model.Item { return model.Item{"PK": it["PK"], "SK": it["SK"]} }
	change := func(old, new model.Item) model.Change {
		img := new
		if img == nil {
			img = old
		}
		return model.Change{Event: model.ChangeModify, Table: sc.Table, Keys: key(img), Old: old, New: new}
	}
	ids, locks := Touched(&sc, c, []model.Change{
		change(dynamotest.Account("ACCT#a", "a@x", ""), dynamotest.Account("ACCT#a", "a2@x", "")),
		change(dynamotest.Account("ACCT#z", "z@x", ""), nil), // not held
		change(dynamotest.Lock("UNIQ#EMAIL#b@x", "ACCT#b"), dynamotest.Lock("UNIQ#EMAIL#b@x", "ACCT#c")),
		change(dynamotest.Lock("UNIQ#EMAIL#held@x", "ACCT#y"), nil),
	})
	if want := []string{"ACCT#a", "ACCT#b", "ACCT#c"}; !slices.Equal(ids, want) {
		t.Errorf("accounts read again: %v, want %v", ids, want)
	}
	if len(locks) != 1 || locks[0].Key["PK"] != "UNIQ#EMAIL#held@x" {
		t.Errorf("locks read again: %v, want the lock held", locks)
	}
}

// TestTouchedInLockTables: in layout 2 each lock table's stream names
// its own key; its owner is read again, and the lock item when held.
func TestTouchedInLockTables(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutTables)
	c := items.New(&sc)
	c.Put(model.AccountView{ID: "dev1", Item: model.Item{"id": model.S("dev1")}})
	held := model.Lock{Table: "unique_mac_addresses", Key: map[string]string{"MacAddress": "aa:bb"}, Value: "aa:bb"}
	c.PutLock(held)
	lock := model.Item{"MacAddress": model.S("aa:bb"), "owner": model.S("dev1")}
	ids, locks := Touched(&sc, c, []model.Change{{Event: model.ChangeRemove, Table: "unique_mac_addresses",
		Keys: model.Item{"MacAddress": model.S("aa:bb")}, Old: lock}})
	if !slices.Equal(ids, []string{"dev1"}) || len(locks) != 1 || locks[0].Table != "unique_mac_addresses" {
		t.Errorf("read again: %v and %v, want dev1 and its lock", ids, locks)
	}
}

// held is a backend.Reader over items in memory.
type held map[string]model.Item

func (h held) ReadConsistent(_ context.Context, refs []model.KeyRef, visit func(string, model.Item)) error {
	for _, r := range refs {
		if it, ok := h[r.ID()]; ok {
			visit(r.Table, it)
		}
	}
	return nil
}

// TestAProblemThereBeforeIsShown: a write that brings to light a problem
// older than it (the tracker's "existing") adds the problem to the views,
// as one that appeared does; it is not taken for one resolved.
func TestAProblemThereBeforeIsShown(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	a := dynamotest.Account("ACCT#a", "a@x.io", "")
	renamed := dynamotest.Account("ACCT#a", "a@x.io", "")
	renamed["name"] = model.S("Ada")
	src := held{model.KeyRef{Table: sc.Table, Key: sc.KeyOf(sc.Table, renamed)}.ID(): renamed}
	tr := backend.NewTracker(&sc, src, nil, func() int64 { return 0 })
	msg := judge(context.Background(), tr, []model.Change{{Event: model.ChangeModify, Table: sc.Table,
		Keys: model.KeyItem(sc.KeyOf(sc.Table, a)), Sequence: "1", Old: a, New: renamed}})
	if msg.Err != nil || len(msg.Appeared) != 1 || msg.Appeared[0].Kind != model.MissingLock || len(msg.Resolved) != 0 {
		t.Fatalf("appeared %+v, resolved %+v (%v): want the missing email lock shown", msg.Appeared, msg.Resolved, msg.Err)
	}
}
