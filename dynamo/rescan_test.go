package dynamo_test

import (
	"fmt"
	"testing"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// TestRescanFindsScopedHolders: a scoped constraint's value carries the
// scope ("acme#gone@x.io") while the account stores only "gone@x.io", so
// the rescan cannot name the value in its filter. An account that takes
// the value of an ownerless orphan between the two scans must be found
// (before, the filter named the scoped value and found nobody: a false
// orphan_lock).
func TestRescanFindsScopedHolders(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.Constraints[0].Scope, sc.Constraints[0].Tail = "org", "#"
	base, client := dynamotest.Store(t, sc)
	scoped := func(id, org, email, username string) model.Item {
		it := acct(id, email, username)
		it["org"] = model.S(org)
		return it
	}
	for i := range 5 {
		id, v := fmt.Sprintf("ACCT#%02d", i), fmt.Sprintf("u%02d", i)
		dynamotest.Put(t, client, base.Schema.Table,
			scoped(id, "acme", v+"@x.io", v), lock("UNIQ#EMAIL#acme#"+v+"@x.io", id), lock("UNIQ#HANDLE#"+v, id))
	}
	dynamotest.Put(t, client, base.Schema.Table, lock("UNIQ#EMAIL#acme#gone@x.io", ""))
	hook := &rescanHook{API: client, before: func() {
		dynamotest.Put(t, client, base.Schema.Table, scoped("ACCT#late", "acme", "gone@x.io", ""))
	}}
	r := check(t, dynamo.NewStore(hook, base.Endpoint, base.Schema))
	if len(r.Problems) != 0 {
		t.Fatalf("problems = %+v, want none: ACCT#late holds acme#gone@x.io", r.Problems)
	}
	if hook.examined.Load() == 0 {
		t.Fatal("no rescan: the test did not test it")
	}
}
