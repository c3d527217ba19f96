package dynamo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestProbeDynoxide: dynoxide has every feature, in an empty table and in
// one with items, and the probe writes nothing.
func TestProbeDynoxide(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	for _, fill := range []bool{false, true} {
		if fill {
			f.put(f.healthy("ACCT#a", "a@x", "ada")...)
		}
		before := f.state()
		c, err := f.store.Probe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := backend.Every()
		want.Probed = true
		if c != want || len(c.Missing()) != 0 {
			t.Errorf("items %v: capabilities %+v, want %+v", fill, c, want)
		}
		if after := f.state(); !slices.Equal(after, before) {
			t.Fatalf("the probe changed the table: %v -> %v", before, after)
		}
	}
}

// TestProbeReadOnlySendsNothing: a read-only store is not probed.
func TestProbeReadOnlySendsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	api := &countingAPI{api: f.client}
	s := dynamo.NewStore(api, f.store.Endpoint, f.store.Schema, clock.System())
	c, err := s.Probe(context.Background())
	if err != nil || c.Probed || len(api.snapshot()) != 0 {
		t.Fatalf("capabilities %+v, err %v, calls %v; want nothing asked", c, err, api.snapshot())
	}
}
