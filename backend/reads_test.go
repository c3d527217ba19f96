package backend

import (
	"context"
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
)

// items is a Reader over items held by key; after, when set, runs after
// each read of a key, as another writer's write may land between reads.
type items struct {
	sc    *model.Schema
	held  map[string]model.Item // KeyRef.ID -> item
	after func(r model.KeyRef)
}

func (t *items) put(table string, it model.Item) {
	key := map[string]string{}
	for _, n := range t.sc.KeyAttrs(table) {
		key[n] = it[n].S
	}
	t.held[model.KeyRef{Table: table, Key: key}.ID()] = it
}

func (t *items) ReadConsistent(_ context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error {
	for _, r := range refs {
		if it, ok := t.held[r.ID()]; ok {
			visit(r.Table, it)
		}
		if t.after != nil {
			t.after(r)
		}
	}
	return nil
}

// TestPlanRepairSkipsAHolderThatChangedItsValue: the repair of bob's
// missing username lock confirms the problem from its first reads, then
// reads bob again to guard on his value. When bob renamed himself in
// between, the repair is skipped, not planned for a value nobody holds;
// when he did not, the lock is put.
func TestPlanRepairSkipsAHolderThatChangedItsValue(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	account := func(username string) model.Item {
		return model.Item{"PK": model.S("ACCT#b2"), "SK": model.S("PROFILE"), "email": model.S("bob@x.io"), "username": model.S(username)}
	}
	for _, renamed := range []bool{false, true} {
		src := &items{sc: &sc, held: map[string]model.Item{}}
		src.put(sc.Table, account("bob"))
		src.put(sc.Table, model.Item{"PK": model.S("UNIQ#EMAIL#bob@x.io"), "SK": model.S("LOCK"), "owner": model.S("ACCT#b2")})
		census := model.NewCensus(&sc, 0)
		for _, it := range src.held {
			census.Add(sc.Table, it)
		}
		problems := census.Problems()
		if len(problems) != 1 || problems[0].Kind != model.MissingLock || problems[0].Value != "bob" {
			t.Fatalf("the check found %+v, want bob's missing username lock", problems)
		}
		if renamed {
			src.after = func(r model.KeyRef) {
				if r.Key[sc.PK] == "ACCT#b2" {
					src.put(sc.Table, account("bobby"))
					src.after = nil
				}
			}
		}
		r, err := PlanRepair(context.Background(), &sc, src, problems[0], 0)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case renamed && r.Skip != "the holder changed its value since the check: check again":
			t.Errorf("bob renamed between the reads: skip %q, plan %+v", r.Skip, r.Plan.Actions)
		case !renamed && (r.Skip != "" || len(r.Plan.Actions) == 0 || !strings.Contains(r.Plan.Actions[0].Purpose(&sc), "put lock UNIQ#HANDLE#bob")):
			t.Errorf("bob as checked: skip %q, plan %+v", r.Skip, r.Plan.Actions)
		}
	}
}
