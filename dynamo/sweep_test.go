package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestSweepReadsEveryAccountInOneScan: reading every account of a table
// whose one problem is at its end costs one parallel scan and one
// BatchGetItem (for the account that looks wrong), not one per page; every
// account comes once, judged as a page would judge it, and the progress
// counts every item read.
func TestSweepReadsEveryAccountInOneScan(t *testing.T) {
	base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	const n = 300
	var items []model.Item
	for i := range n {
		id, v := fmt.Sprintf("ACCT#%04d", i), fmt.Sprintf("u%04d", i)
		items = append(items, acct(id, v+"@x.io", v), lock("UNIQ#EMAIL#"+v+"@x.io", id), lock("UNIQ#HANDLE#"+v, id))
	}
	items = append(items, acct("ACCT#zz", "zz@x.io", "zz"), lock("UNIQ#EMAIL#zz@x.io", "ACCT#zz")) // its username lock is missing
	dynamotest.Put(t, client, base.Schema.Table, items...)
	api := &countingAPI{api: client}
	store := dynamo.NewStore(api, base.Endpoint, base.Schema, clock.System())
	store.Segments, store.PageSize = 4, 100 // several pages in each segment
	defer dynamo.SetSweepChunk(64)()        // several chunks, judged at once
	var got []model.AccountView
	var last backend.SweepProgress
	err := store.Sweeper.AccountsSweep(context.Background(), false,
		func(p backend.SweepProgress) { last = p },
		func(views []model.AccountView) { got = append(got, views...) })
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range got {
		if seen[a.ID] {
			t.Errorf("%s came twice", a.ID)
		}
		seen[a.ID] = true
		for ci, l := range a.Locks {
			want := model.LockOK
			if a.ID == "ACCT#zz" && ci == 1 {
				want = model.LockMissing
			}
			if l.Status != want {
				t.Errorf("%s lock %d: %v, want %v", a.ID, ci, l.Status, want)
			}
		}
	}
	if len(got) != n+1 {
		t.Errorf("%d accounts, want %d", len(got), n+1)
	}
	// Browse order: segment 0's accounts as its scan returns them, then
	// segment 1's, and so on.
	var order, want []string
	for _, a := range got {
		order = append(order, a.ID)
	}
	for seg := range 4 {
		out, err := client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(base.Schema.Table),
			Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(4)})
		if err != nil || len(out.LastEvaluatedKey) > 0 {
			t.Fatalf("segment %d: %v (a page short of it: %v)", seg, err, len(out.LastEvaluatedKey) > 0)
		}
		for _, it := range out.Items {
			if sk := it["SK"].(*types.AttributeValueMemberS).Value; sk == "PROFILE" {
				want = append(want, it["PK"].(*types.AttributeValueMemberS).Value)
			}
		}
	}
	if !slices.Equal(order, want) {
		t.Errorf("accounts in the order %v…, want segment by segment: %v…", order[:8], want[:8])
	}
	calls := api.snapshot()
	if calls["BatchGetItem"] != 1 {
		t.Errorf("%d BatchGetItem calls, want 1 (the account that looks wrong)", calls["BatchGetItem"])
	}
	if last.Items != int64(len(items)) || last.Pages < 4 || last.Pages != calls["Scan"] {
		t.Errorf("progress %+v after %d scans; want %d items, a page per scan", last, calls["Scan"], len(items))
	}
}

// TestSweepStops: a sweep whose context ends returns its error and hands
// on nothing.
func TestSweepStops(t *testing.T) {
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	dynamotest.Put(t, client, store.Schema.Table, acct("ACCT#a", "a@x.io", "a"))
	store.PageSize = 1
	ctx, cancel := context.WithCancel(context.Background())
	handed := 0
	err := store.Sweeper.AccountsSweep(ctx, false, func(backend.SweepProgress) { cancel() },
		func(views []model.AccountView) { handed += len(views) })
	if err == nil || handed != 0 {
		t.Errorf("stopped sweep: err %v, %d accounts handed on; want an error and none", err, handed)
	}
}
