package dynamo_test

import (
	"context"
	"maps"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// An ElectroDB table's agents share a partition key and have sort keys of
// their own: the accounts view lists each, named by its whole key, with
// its constraint judged (the mixed-case agent's is its lock), and the
// preset reads the constraint's keys from the constraint item.
func TestElectroDBAccountsPage(t *testing.T) {
	t.Parallel()
	s := model.DefaultSchema(model.LayoutSingle)
	if err := (model.Preset{Schema: &s}).Apply("electrodb:agent"); err != nil {
		t.Fatal(err)
	}
	s.Table, s.PK, s.SK, s.KeysFromTable = "edb", "pk", "sk", false
	s.Constraints = []model.Constraint{{Attr: "email", Prefix: "$mi6#value_", LockSK: "$constraint_1#name_email#entity_agent", Normalize: model.NormalizeLower}}
	store, client := dynamotest.Store(t, s)
	item := func(kv ...string) model.Item {
		it := model.Item{}
		for i := 0; i+1 < len(kv); i += 2 {
			it[kv[i]] = model.S(kv[i+1])
		}
		return it
	}
	dynamotest.Put(t, client, store.Schema.Table,
		item("pk", "$mi6#designation_00", "sk", "$agent_1#id_a1", "__edb_e__", "agent", "__edb_v__", "1", "email", "Bond@MI6.uk"),
		item("pk", "$mi6#designation_00", "sk", "$agent_1#id_a2", "__edb_e__", "agent", "__edb_v__", "1", "email", "m@mi6.uk"),
		item("pk", "$mi6#value_bond@mi6.uk", "sk", "$constraint_1#name_email#entity_agent", "__edb_e__", "constraint", "__edb_v__", "1",
			"name", "email", "value", "Bond@MI6.uk", "entity", "agent"))
	store.Schema.Constraints = nil // read from the constraint item
	if _, err := store.ResolvePreset(context.Background()); err != nil {
		t.Fatal(err)
	}
	page, err := store.Pages.AccountsPage(context.Background(), backend.Cursor{}, 10, true)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]model.LockStatus{}
	for _, a := range page.Accounts {
		got[a.ID] = a.Locks[0].Status
	}
	want := map[string]model.LockStatus{"$mi6#designation_00|$agent_1#id_a1": model.LockOK, "$mi6#designation_00|$agent_1#id_a2": model.LockMissing}
	if !maps.Equal(got, want) {
		t.Errorf("accounts %v, want %v", got, want)
	}
}

// The casing of a constraint's key is read from the constraint items
// (an index set to keep case: $mi6#value_Bond@MI6.uk), and a flag that
// says it overrides what they say, lower as well as none.
func TestElectroDBCasingFlagOverridesTheItems(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		given, want model.Normalization
	}{
		{"", model.NormalizeNone}, // --unique email alone: as the items say
		{model.NormalizeLower, model.NormalizeLower},
		{model.NormalizeNone, model.NormalizeNone},
	} {
		s := model.DefaultSchema(model.LayoutSingle)
		preset := model.Preset{Schema: &s}
		if err := preset.Apply("electrodb:agent"); err != nil {
			t.Fatal(err)
		}
		s.PK, s.SK, s.KeysFromTable = "pk", "sk", false
		store, client := dynamotest.Store(t, s)
		dynamotest.Put(t, client, store.Schema.Table,
			model.Item{"pk": model.S("$mi6#designation_00"), "sk": model.S("$agent_1#id_a1"), "__edb_e__": model.S("agent"), "__edb_v__": model.S("1"), "email": model.S("Bond@MI6.uk")},
			model.Item{"pk": model.S("$mi6#value_Bond@MI6.uk"), "sk": model.S("$constraint_1#name_email#entity_agent"), "__edb_e__": model.S("constraint"), "__edb_v__": model.S("1"),
				"name": model.S("email"), "value": model.S("Bond@MI6.uk"), "entity": model.S("agent")})
		c := (model.Preset{Schema: &store.Schema}).Unique("email") // --unique email
		if tt.given != "" {
			c.Normalize = tt.given // --normalize email=...
		}
		store.Schema.Constraints = []model.Constraint{c}
		if _, err := store.ResolvePreset(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := store.Schema.Constraints[0]; got.Normalize != tt.want || got.Prefix != "$mi6#value_" {
			t.Errorf("given %q: constraint %s keyed %s<value> (%s), want (%s)", tt.given, got.Attr, got.Prefix, got.Normalize, tt.want)
		}
	}
}
