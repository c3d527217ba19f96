package ui

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/uitest"
)

// TestFakeAnswersAsTheStore: the in-memory backend the Update tests run on
// answers what the store answers on dynoxide, for the planted table: the
// pages, the check, lookups, repair plans, and a cancelled write's reasons
// and a committed one's effect. Tests on the fake stand for tests on the
// store only while this holds.
func TestFakeAnswersAsTheStore(t *testing.T) {
	t.Parallel()
	store, _ := planted(t)
	f := uitest.New(store.Schema) // the same table name: texts compare equal
	f.Put(store.Schema.Table, plantedItems()...)
	ctx := context.Background()
	same := func(what string, get func(Backend) any) {
		t.Helper()
		want, got := get(store), get(f)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s:\nstore %#v\nfake  %#v", what, want, got)
		}
	}

	same("accounts", func(b Backend) any {
		var all []model.AccountView
		for next := (dynamo.Cursor{}); !next.Done(); {
			page, err := b.AccountsPage(ctx, next, 3, false)
			if err != nil {
				t.Fatal(err)
			}
			all, next = append(all, page.Accounts...), page.Next
		}
		return all
	})
	same("locks", func(b Backend) any {
		page, err := b.LocksPage(ctx, dynamo.Cursor{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return page.Locks
	})
	report, err := store.Check(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	same("check", func(b Backend) any {
		r, err := b.Check(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.ConsumedRCU = 0 // the fake consumes no capacity
		return r
	})
	same("holders of carol", func(b Backend) any {
		ids, err := b.(dynamo.Finder).Holders(ctx, []int{0, 1}, "carol", nil) // what Find builds on
		if err != nil {
			t.Fatal(err)
		}
		return ids
	})
	known := func(ci int, v string) []string {
		if ci == 0 && v == "dup@x.io" {
			return []string{"ACCT#d4", "ACCT#e5"}
		}
		return nil
	}
	for _, q := range []string{"a1", "ACCT#f6", "UNIQ#EMAIL#ada@x.io", "UNIQ#HANDLE#ghost", "ADA", "carol", "carol@x.io", "old@x.io", "dup@x.io", "Nobody"} {
		for _, o := range []dynamo.FindOptions{{}, {Known: known}} {
			same(fmt.Sprintf("find %s (known %v)", q, o.Known != nil), func(b Backend) any {
				f, err := b.Find(ctx, q, o)
				if err != nil {
					t.Fatal(err)
				}
				return f
			})
		}
	}
	wanted := []dynamo.Wanted{{Constraint: 0, Value: "dup@x.io"}, {Constraint: 1, Value: "bob"}, {Constraint: 1, Value: "nobody"}}
	same("holder lookup", func(b Backend) any {
		l, err := b.LookupHolders(ctx, wanted)
		if err != nil {
			t.Fatal(err)
		}
		return []any{l.Holders, l.Locked}
	})
	for _, p := range report.Problems {
		same("repair of "+string(p.Kind)+" "+p.Value, func(b Backend) any {
			r, err := b.PlanRepair(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if r.Plan.Reclaim != nil { // a fresh claim token each time
				r.Plan.Reclaim.Claim, r.Plan.Actions, r.Plan.Keys = "", nil, nil
			}
			return r
		})
	}

	// A rename of ACCT#a1 to bob@x.io is cancelled: the lock is taken.
	write := func(b Backend, changes map[string]string) dynamo.Result {
		p, err := b.PlanRename(ctx, "ACCT#a1", changes, nil)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := b.Prepare(p, "token-"+changes["email"])
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Execute(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	same("a cancelled rename", func(b Backend) any { return write(b, map[string]string{"email": "bob@x.io"}) })
	same("a committed rename", func(b Backend) any { return write(b, map[string]string{"email": "ada@analytical.engine"}) })
	same("the account after it", func(b Backend) any {
		a, _, err := b.Account(ctx, "ACCT#a1")
		if err != nil {
			t.Fatal(err)
		}
		return a
	})
}
