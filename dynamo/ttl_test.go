package dynamo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
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
			creator := dynamo.NewStore(client, ep, sc, clock.System())
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
			opened, err := dynamo.Open(ctx, api, ep, bare, clock.System())
			if err != nil {
				t.Fatal(err)
			}
			// Asked once per store: not again by another Verify, nor by
			// the pages that wait for the answer.
			if err := opened.Verify(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := opened.Pages.AccountsPage(ctx, backend.Cursor{}, 10, false); err != nil {
				t.Fatal(err)
			}
			if n := api.snapshot()["DescribeTimeToLive"]; n != len(sc.Tables()) {
				t.Errorf("%d DescribeTimeToLive calls for %d tables, want one each", n, len(sc.Tables()))
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
			if _, err := dynamo.Open(ctx, api, ep, sc, clock.System()); err != nil {
				t.Fatal(err)
			}
			if n := api.snapshot()["DescribeTimeToLive"] - before; n != 0 {
				t.Errorf("given TTL attributes: %d DescribeTimeToLive calls, want 0", n)
			}
		})
	}
}

// refusedTTL is a client whose role may not read TTL settings.
type refusedTTL struct{ dynamo.API }

func (refusedTTL) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	return nil, &smithy.GenericAPIError{Code: "AccessDeniedException", Message: "not authorized to perform dynamodb:DescribeTimeToLive"}
}

// TestUnaskedTTLIsAWarning: a table whose TTL setting cannot be read is
// judged without TTL, and the check says so in its warnings; a backend
// that does not know the operation at all is not warned of.
func TestUnaskedTTLIsAWarning(t *testing.T) {
	ctx := context.Background()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	_, ep := dynamotest.Client(t)
	refused, err := dynamo.Open(ctx, refusedTTL{client}, ep, store.Schema, clock.System())
	if err != nil {
		t.Fatal(err)
	}
	r, err := refused.Checker.Check(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "its TTL setting could not be read") || !strings.Contains(r.Warnings[0], "AccessDeniedException") {
		t.Errorf("warnings %q, want the refused DescribeTimeToLive", r.Warnings)
	}
}
