package dynamo_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// TestPartitionPageQueriesOneAccount: an account's partition is read by a
// Query on its partition key alone, page by page in sort key order,
// through the store's capacity meter; nothing of the next partition
// comes with it.
func TestPartitionPageQueriesOneAccount(t *testing.T) {
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	order := func(pk, sk string) model.Item {
		return model.Item{"PK": model.S(pk), "SK": model.S(sk), "total": model.N("12")}
	}
	dynamotest.Put(t, client, store.Schema.Table,
		dynamotest.Account("ACCT#a1", "ada@x.io", "ada"), order("ACCT#a1", "ORDER#1"), order("ACCT#a1", "ORDER#2"),
		dynamotest.Lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), dynamotest.Account("ACCT#b2", "bob@x.io", "bob"), order("ACCT#b2", "ORDER#9"))
	ctx := context.Background()
	before := store.ConsumedRCU()
	var sks []string
	pages := 0
	for cur := (backend.Cursor{}); !cur.Done(); pages++ {
		page, err := store.Pages.PartitionPage(ctx, "ACCT#a1", cur, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			if it["PK"].S != "ACCT#a1" {
				t.Errorf("item %v of another partition", it)
			}
			sks = append(sks, it["SK"].S)
		}
		cur = page.Next
		if pages > 5 {
			t.Fatal("the pages never end")
		}
	}
	if want := []string{"ORDER#1", "ORDER#2", "PROFILE"}; len(sks) != 3 || sks[0] != want[0] || sks[1] != want[1] || sks[2] != want[2] {
		t.Errorf("sort keys %v, want %v", sks, want)
	}
	if pages < 2 {
		t.Errorf("%d page(s) of 2 for 3 items", pages)
	}
	if store.ConsumedRCU() <= before {
		t.Errorf("consumed RCU %v -> %v: the Query is not metered", before, store.ConsumedRCU())
	}
}

// TestOthersPageKeepsWhatIsNeitherAccountNorLock: the items view's scan
// keeps only the items the check counts as others.
func TestOthersPageKeepsWhatIsNeitherAccountNorLock(t *testing.T) {
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	dynamotest.Put(t, client, store.Schema.Table,
		dynamotest.Account("ACCT#a1", "ada@x.io", "ada"), dynamotest.Lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"),
		model.Item{"PK": model.S("ACCT#a1"), "SK": model.S("ORDER#1")}, model.Item{"PK": model.S("CONFIG#site"), "SK": model.S("V1")})
	// More items than a scan call reads (backend.BrowseLimit), a page at a
	// time: the cursor carries the scan on, and the pages end.
	var filler []model.Item
	for i := range 2*backend.BrowseLimit + 20 {
		filler = append(filler, dynamotest.Account(fmt.Sprintf("ACCT#f%04d", i), fmt.Sprintf("f%d@x.io", i), fmt.Sprintf("f%d", i)))
	}
	dynamotest.Put(t, client, store.Schema.Table, filler...)
	got := map[string]bool{}
	pages := 0
	for page := (backend.ItemPage{}); pages == 0 || !page.Next.Done(); pages++ {
		var err error
		if page, err = store.Pages.OthersPage(context.Background(), page.Next, 1); err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			got[it["PK"].S+" "+it["SK"].S] = true
		}
		if pages > 20 {
			t.Fatal("the pages do not end")
		}
	}
	if len(got) != 2 || !got["ACCT#a1 ORDER#1"] || !got["CONFIG#site V1"] {
		t.Errorf("others %v in %d pages, want ACCT#a1 ORDER#1 and CONFIG#site V1", got, pages)
	}
}
