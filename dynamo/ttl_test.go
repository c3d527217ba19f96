package dynamo_test

import (
	"context"
	"testing"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// TestVerifyReadsTheTablesTTL: tables created with TTL attributes have
// TTL enabled on them, and a store opened without --ttl-attr takes each
// table's attribute from DescribeTimeToLive, in both layouts; given
// attributes are not asked.
func TestVerifyReadsTheTablesTTL(t *testing.T) {
	ctx := context.Background()
	for _, l := range []model.Layout{model.LayoutSingle, model.LayoutTables} {
		t.Run(string(l), func(t *testing.T) {
			client, ep := dynamotest.Client(t)
			sc := dynamotest.Rename(t, model.DefaultSchema(l))
			for i, table := range sc.Tables() {
				if err := sc.SetTTLAttr(table, []string{"expires", "ttl_a", "ttl_b"}[i]); err != nil {
					t.Fatal(err)
				}
			}
			sc.TTLGiven = true
			t.Cleanup(func() { dynamotest.DeleteTables(t, client, sc.Tables()...) })
			creator := dynamo.NewStore(client, ep, sc)
			creator.SetWritable(true)
			if _, err := creator.EnsureTables(ctx, false); err != nil {
				t.Fatal(err)
			}
			bare := sc
			bare.TTLGiven, bare.TTLAttr = false, ""
			bare.Constraints = append([]model.Constraint{}, sc.Constraints...)
			for i := range bare.Constraints {
				bare.Constraints[i].TTLAttr = ""
			}
			api := &countingAPI{api: client}
			opened, err := dynamo.Open(ctx, api, ep, bare)
			if err != nil {
				t.Fatal(err)
			}
			for _, table := range sc.Tables() {
				if got, want := opened.Schema.TTLAttrOf(table), sc.TTLAttrOf(table); got != want {
					t.Errorf("%s: TTL attribute %q, want %q (DescribeTimeToLive)", table, got, want)
				}
			}
			if len(opened.TTLUnasked) > 0 {
				t.Errorf("unasked: %v", opened.TTLUnasked)
			}
			before := api.snapshot()["DescribeTimeToLive"]
			if _, err := dynamo.Open(ctx, api, ep, sc); err != nil {
				t.Fatal(err)
			}
			if n := api.snapshot()["DescribeTimeToLive"] - before; n != 0 {
				t.Errorf("given TTL attributes: %d DescribeTimeToLive calls, want 0", n)
			}
		})
	}
}
