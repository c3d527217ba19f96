package writes_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/writes"
)

// itemsAt is a ConsistentReader over items held by table and key.
type itemsAt map[string]model.Item

func refID(table string, key map[string]string) string { return fmt.Sprint(table, key) }

func (m itemsAt) put(table string, it model.Item, keyNames ...string) {
	key := map[string]string{}
	for _, n := range keyNames {
		key[n] = it[n].S
	}
	m[refID(table, key)] = it
}

func (m itemsAt) ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(string, model.Item)) error {
	for _, r := range refs {
		if it, ok := m[refID(r.Table, r.Key)]; ok {
			visit(r.Table, it)
		}
	}
	return ctx.Err()
}

// TestRaceViolations: only cancelled racers are judged, each by its own
// writes: its new account, a lock naming it, its account holding the
// value its rename sets; a lock naming another racer and a racer's own
// old value are no violation.
func TestRaceViolations(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	store := dynamo.NewStore(nil, backend.Endpoint{URL: "http://127.0.0.1:8000", Loopback: true}, sc, clock.System())
	tx := func(p model.Plan, err error) backend.Tx {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		tx, err := store.Writer.Prepare(p, backend.NewToken())
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	account := func(id, email string) model.Item {
		it := model.KeyItem(sc.AccountKey(id))
		it["email"] = model.S(email)
		return it
	}
	lock := func(v, owner string) model.Item {
		_, key := sc.LockKey(0, v)
		it := model.KeyItem(key)
		it[sc.OwnerAttr] = model.S(owner)
		return it
	}
	renameOf := func(id, own string) model.AccountView {
		return model.AccountView{ID: id, Item: account(id, own), Locks: make([]model.LockView, len(sc.Constraints))}
	}
	const v = "race@x.io"
	signup := func(id string) backend.Tx { return tx(sc.Signup(id, map[string]string{"email": v})) }
	rename := func(id string) backend.Tx {
		return tx(model.Planner{Schema: &sc}.Rename(renameOf(id, "own-"+id), map[string]string{"email": v}, nil, nil))
	}
	txs := []backend.Tx{
		signup("ACCT#win"),     // 1 committed: written, not judged
		signup("ACCT#clean"),   // 2 cancelled, nothing written
		signup("ACCT#account"), // 3 cancelled, its account written
		signup("ACCT#lock"),    // 4 cancelled, a lock naming it
		rename("ACCT#own"),     // 5 cancelled, still its own value
		rename("ACCT#holds"),   // 6 cancelled, holding the value
		signup("ACCT#unknown"), // 7 unknown: not judged
	}
	outcomes := []model.Outcome{model.Committed, model.Cancelled, model.Cancelled, model.Cancelled, model.Cancelled, model.Cancelled, model.Unknown}
	results := make([]model.Result, len(txs))
	for i := range results {
		results[i].Outcome = outcomes[i]
	}
	items := itemsAt{}
	items.put(sc.Table, account("ACCT#win", v), sc.PK, sc.SK)
	items.put(sc.Table, lock(v, "ACCT#lock"), sc.PK, sc.SK)
	items.put(sc.Table, account("ACCT#account", v), sc.PK, sc.SK)
	items.put(sc.Table, account("ACCT#own", "own-ACCT#own"), sc.PK, sc.SK)
	items.put(sc.Table, account("ACCT#holds", v), sc.PK, sc.SK)
	items.put(sc.Table, account("ACCT#unknown", v), sc.PK, sc.SK)
	got, err := writes.RaceViolations(context.Background(), items, &sc, txs, results)
	if err != nil {
		t.Fatal(err)
	}
	want := "[{3 ACCT#account [account ACCT#account exists]} {4 ACCT#lock [lock UNIQ#EMAIL#race@x.io names ACCT#lock]}" +
		" {6 ACCT#holds [account ACCT#holds holds email=race@x.io]}]"
	if fmt.Sprint(got) != want {
		t.Fatalf("violations %v\nwant       %s", got, want)
	}
	if got, err := writes.RaceViolations(context.Background(), itemsAt{}, &sc, txs, results); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("nothing written: %#v, %v; want an empty slice", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := writes.RaceViolations(ctx, items, &sc, txs, results); !errors.Is(err, context.Canceled) {
		t.Fatalf("a read that fails: %v; want its error", err)
	}
}

// barrier is a store whose Execute answers only once n calls are in
// flight together: a race that sent its racers one after another would
// never finish.
type barrier struct {
	writes.Store
	arrived chan struct{}
	all     chan struct{}
	n       int
}

func (b *barrier) Execute(ctx context.Context, tx backend.Tx) (model.Result, error) {
	b.arrived <- struct{}{}
	select {
	case <-b.all:
	case <-ctx.Done():
		return model.Result{}, ctx.Err()
	}
	return model.Result{Operation: "signup", Keys: tx.Plan.Keys, Outcome: model.Committed}, nil
}

// TestRaceSendsAtOnceAndTellsEachAnswer (issue 27): the CLI and the TUI
// race through one Flow.Race, which sends every racer together and tells
// each answer as it comes, for the TUI's board.
func TestRaceSendsAtOnceAndTellsEachAnswer(t *testing.T) {
	const n = 8
	sc := model.DefaultSchema(model.LayoutSingle)
	b := &barrier{arrived: make(chan struct{}), all: make(chan struct{}), n: n}
	go func() {
		for range n {
			<-b.arrived
		}
		close(b.all)
	}()
	ws := make([]writes.Write, n)
	for i := range ws {
		ws[i] = writes.Write{Tx: backend.Tx{Plan: model.Plan{Operation: "signup", Keys: []string{fmt.Sprint("ACCT#r", i)}}}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var mu sync.Mutex
	told := map[int]model.Result{}
	results, errs := writes.Flow{Store: b, Schema: &sc}.Race(ctx, ws, func(i int, res model.Result, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			t.Errorf("racer %d: %v", i, err)
		}
		told[i] = res
	})
	for i := range ws {
		if errs[i] != nil || results[i].Outcome != model.Committed || results[i].Keys[0] != ws[i].Tx.Plan.Keys[0] {
			t.Errorf("racer %d: %+v, %v (the racers were not all in flight at once?)", i, results[i], errs[i])
		}
		if told[i].Keys == nil || told[i].Keys[0] != ws[i].Tx.Plan.Keys[0] {
			t.Errorf("racer %d's answer was not told: %+v", i, told[i])
		}
	}
}
