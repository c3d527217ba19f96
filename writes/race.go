package writes

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// A race, for the CLI (`locktable race`) and the TUI (R) alike: racers
// planned here (Racers, RenameRacers), all sent at the same instant
// (Race), and the cancelled ones read back (RaceViolations). Neither
// caller builds a racer or a start gate of its own.

// Racers plans n signups of new accounts, each keyed like ids (keys of
// the table; none: the schema's own keys), that all claim attrs: the
// guarded transactions a race sends at once, with no holder lookup (the
// guards alone decide).
func (f Flow) Racers(attrs map[string]string, n int, ids []string) ([]Write, error) {
	taken := map[string]bool{}
	for _, id := range ids {
		taken[id] = true
	}
	var out []Write
	accounts := model.AccountIDs{Schema: f.Schema}
	for range n {
		id := accounts.NewLike(ids)
		for taken[id] {
			id = accounts.NewLike(ids)
		}
		taken[id] = true
		p, err := model.Planner{Schema: f.Schema}.Signup(id, attrs)
		if err != nil {
			return nil, err
		}
		w, err := f.prepare(p)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// RenameRacers creates n accounts, each holding a value of its own for
// attr, and plans each one's rename to value: a race of renames. It
// returns the accounts' keys (on an error too: every account that may
// exist, for the caller to delete), the renames, and the signups' results.
func (f Flow) RenameRacers(ctx context.Context, attr, value string, n int) (ids []string, racers []Write, setup []model.Result, err error) {
	none := Holders{Skip: true}
	for i := range n {
		id := model.AccountIDs{Schema: f.Schema}.New()
		ids = append(ids, id) // from here on it may exist
		own := fmt.Sprintf("race-%d-%s", i, strings.TrimPrefix(id, f.Schema.AccountPrefix))
		sw, err := f.Signup(ctx, id, map[string]string{attr: own}, none)
		if err != nil {
			return ids, nil, setup, err
		}
		res, err := f.Send(ctx, sw)
		if res.Operation != "" {
			setup = append(setup, res)
		}
		switch {
		case err != nil:
			return ids, nil, setup, fmt.Errorf("create racer %s: %w", model.Printable(id), err)
		case res.Outcome != model.Committed:
			return ids, nil, setup, fmt.Errorf("could not create racer %s: %s", model.Printable(id), res.Outcome)
		}
		w, err := f.Rename(ctx, id, map[string]string{attr: value}, nil, nil, none)
		if err != nil {
			return ids, nil, setup, err
		}
		racers = append(racers, w)
	}
	return ids, racers, setup, nil
}

// Race sends every write at the same instant, each with Send, once all
// are ready to leave; answered (if not nil) hears each outcome as it
// comes, from the racer's goroutine. It returns the outcomes in order
// once every racer has answered.
func (f Flow) Race(ctx context.Context, ws []Write, answered func(i int, res model.Result, err error)) ([]model.Result, []error) {
	results := make([]model.Result, len(ws))
	errs := make([]error, len(ws))
	var ready, done sync.WaitGroup
	ready.Add(len(ws))
	start := make(chan struct{})
	for i, w := range ws {
		done.Go(func() {
			ready.Done()
			<-start // every write leaves at once
			results[i], errs[i] = f.Send(ctx, w)
			if answered != nil {
				answered(i, results[i], errs[i])
			}
		})
	}
	ready.Wait()
	close(start)
	done.Wait()
	return results, errs
}

// Violation is a racer reported cancelled whose writes consistent reads
// find in the table all the same: a guard that did not hold, on a backend
// whose transactions are not isolated (moto's server under load).
type Violation struct {
	Racer int      `json:"racer"` // its place among the racers, from 1
	Key   string   `json:"key"`   // its account
	Found []string `json:"found"` // what the reads found, in words
}

// ConsistentReader reads items by key with strongly consistent reads, as
// Store.ReadConsistent does.
type ConsistentReader interface {
	ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error
}

// RaceViolations reads back, with consistent reads through r, what each
// cancelled racer's transaction would have written, and returns the
// racers whose writes are there (none: an empty slice). txs and results
// are a race's, in order. A cancelled transaction wrote nothing, and a
// racer is judged only by writes no other racer makes: its new account,
// a lock naming it, its own account holding the values its update sets.
// A reported cancellation is otherwise taken at its word, and the winner
// is not read: so it must run before the racers are cleaned up.
func RaceViolations(ctx context.Context, r ConsistentReader, sc *model.Schema, txs []backend.Tx, results []model.Result) ([]Violation, error) {
	var refs []model.KeyRef
	for i, tx := range txs {
		if i >= len(results) || results[i].Outcome != model.Cancelled {
			continue
		}
		for _, a := range tx.Plan.Actions {
			if a.Kind == model.ActPut || a.Kind == model.ActUpdate {
				refs = append(refs, model.KeyRef{Table: a.Table, Key: a.Key})
			}
		}
	}
	out := []Violation{}
	if len(refs) == 0 {
		return out, nil
	}
	found := map[string]model.Item{}
	err := r.ReadConsistent(ctx, refs, func(table string, it model.Item) {
		found[refText(table, sc.KeyOf(table, it))] = it
	})
	if err != nil {
		return nil, fmt.Errorf("read the cancelled racers' keys back: %w", err)
	}
	for i, tx := range txs {
		if i >= len(results) || results[i].Outcome != model.Cancelled {
			continue
		}
		var what []string
		for _, a := range tx.Plan.Actions {
			if w := raceWrite(sc, a, found[refText(a.Table, a.Key)]); w != "" {
				what = append(what, w)
			}
		}
		if len(what) > 0 {
			out = append(out, Violation{Racer: i + 1, Key: racerKey(tx), Found: what})
		}
	}
	return out, nil
}

// refText identifies an item by its table and key.
func refText(table string, key map[string]string) string { return fmt.Sprint(table, key) } // fmt sorts map keys

// racerKey is the account a racer's transaction is about.
func racerKey(tx backend.Tx) string {
	if len(tx.Plan.Keys) > 0 {
		return tx.Plan.Keys[0]
	}
	return ""
}

// raceWrite says what now, the item at action a's key, shows of a's write
// by a cancelled racer; "" when nothing.
func raceWrite(sc *model.Schema, a model.Action, now model.Item) string {
	if now == nil {
		return ""
	}
	switch {
	case a.Role == model.RoleCreateAccount:
		// A new account's key is the racer's alone.
		return "account " + a.KeyText(sc) + " exists"
	case a.Role == model.RoleTakeLock:
		if o, ok := now[sc.OwnerAttr]; ok && o.Kind == model.KindS && o.S == a.Account {
			return "lock " + a.KeyText(sc) + " names " + a.Account
		}
	case a.Kind == model.ActUpdate && a.Role == model.RoleAccount && len(a.Set) > 0 && model.Applied(a, now):
		var set []string
		for _, n := range model.Item(a.Set).SortedNames() {
			set = append(set, n+"="+a.Set[n].S)
		}
		return "account " + a.KeyText(sc) + " holds " + strings.Join(set, ", ")
	}
	return ""
}

// RaceVerdict says how a race ended, given how many racers committed and
// the violations RaceViolations found; held is false when the guards did
// not hold.
func RaceVerdict(committed int, violations []Violation) (verdict string, held bool) {
	var not []string
	if committed > 1 {
		not = append(not, "MORE THAN ONE COMMITTED")
	}
	if n := len(violations); n == 1 {
		not = append(not, "A CANCELLED RACER WAS WRITTEN")
	} else if n > 1 {
		not = append(not, fmt.Sprintf("%d CANCELLED RACERS WERE WRITTEN", n))
	}
	if len(not) == 0 {
		return "the guards held", true
	}
	return strings.Join(not, " AND ") + ": the guards did NOT hold", false
}
