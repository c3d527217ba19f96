package dynamo_test

import (
	"context"
	"testing"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/dynamo/seed"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestEnsureTablesDescribesOnce: creating the tables describes each until
// it is active, and the check of their keys that follows reuses that; a
// store opened on tables that exist describes each once, and asking again
// describes nothing.
func TestEnsureTablesDescribesOnce(t *testing.T) {
	ctx := context.Background()
	client, ep := dynamotest.Client(t)
	api := &countingAPI{api: client}
	sc := dynamotest.Rename(t, model.DefaultSchema(model.LayoutTables))
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, sc.Tables()...) })
	describes := func(what string, s *dynamo.Store, want int) {
		t.Helper()
		before := api.snapshot()["DescribeTable"]
		if _, err := s.EnsureTables(ctx, false); err != nil {
			t.Fatal(err)
		}
		if got := api.snapshot()["DescribeTable"] - before; got != want {
			t.Errorf("%s: %d DescribeTable calls for %d tables, want %d", what, got, len(sc.Tables()), want)
		}
	}
	creator := dynamo.NewStore(api, ep, sc, clock.System())
	creator.SetWritable(true)
	// Each table: not found, then active once created (dynoxide creates at once).
	describes("creating the tables", creator, 2*len(sc.Tables()))
	describes("again, on the same store", creator, 0)
	describes("a new store on the tables", dynamo.NewStore(api, ep, sc, clock.System()), len(sc.Tables()))
}

// TestPresetDescribesOnce: --preset reads the key names from the table's
// description, and the check of the keys that opens the store reuses it.
func TestPresetDescribesOnce(t *testing.T) {
	ctx := context.Background()
	base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	dynamotest.Put(t, client, base.Schema.Table,
		model.Item{"PK": model.S("user#ada"), "SK": model.S("user#"), "_type": model.S("User"), "email": model.S("ada@x.io")},
		model.Item{"PK": model.S("_unique#User#email#ada@x.io"), "SK": model.S("_unique#"), "_type": model.S("_Unique")})
	sc := model.DefaultSchema(model.LayoutSingle)
	if err := sc.ApplyPreset("onetable:User"); err != nil {
		t.Fatal(err)
	}
	sc.Table = base.Schema.Table
	api := &countingAPI{api: client}
	s := dynamo.NewStore(api, base.Endpoint, sc, clock.System())
	if _, err := s.ResolvePreset(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	if s.Schema.PK != "PK" || s.Schema.SK != "SK" || len(s.Schema.Constraints) != 1 || s.Schema.Constraints[0].Attr != "email" {
		t.Fatalf("preset resolved to key %s, %s and constraints %+v; want PK, SK and email", s.Schema.PK, s.Schema.SK, s.Schema.Constraints)
	}
	if got := api.snapshot()["DescribeTable"]; got != 1 {
		t.Errorf("%d DescribeTable calls for the preset and the key check, want 1", got)
	}
}

// TestCensusSizesFromAnyDescription: the average item size a census
// decides projection by comes from whatever description the store cached,
// not only Verify's: a store that only read the table's item count (the
// table picker's call) projects large items, and one that described
// nothing reads whole items.
func TestCensusSizesFromAnyDescription(t *testing.T) {
	ctx := context.Background()
	base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	if _, err := seed.Run(ctx, base, seed.Options{Accounts: 20}); err != nil {
		t.Fatal(err)
	}
	for _, described := range []bool{true, false} {
		hook := &sizeHook{API: client, size: 1000}
		s := dynamo.NewStore(hook, base.Endpoint, base.Schema, clock.System())
		s.Segments = base.Segments
		if described {
			if _, err := s.ItemCount(ctx, s.Schema.Table); err != nil {
				t.Fatal(err)
			}
		}
		census, err := s.Checker.Census(ctx, 0, s.Segments, nil)
		if err != nil {
			t.Fatal(err)
		}
		census.Close()
		if got := hook.projected.Load() > 0; got != described || hook.projected.Load()*hook.whole.Load() != 0 {
			t.Errorf("described %v: %d pages projected, %d whole; want projected %v", described, hook.projected.Load(), hook.whole.Load(), described)
		}
	}
}
