// Package uitest is an in-memory Backend for the terminal UI's tests that
// only stores items and answers reads and writes: what the store decides,
// the store's own code decides over it (backend.ByKey, Judge and Find,
// model's census, model.Cond.Holds). It answers in microseconds, so Update
// and golden tests need no emulator; what only DynamoDB shows (ALL_OLD
// reasons, indexes) is tested on dynoxide.
package uitest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// Backend holds the tables of one schema in memory. It is safe for
// concurrent use, as the UI's commands run concurrently.
type Backend struct {
	// ByKey answers the reads by key and plans writes over ReadConsistent.
	backend.ByKey
	schema model.Schema
	prep   *dynamo.Store // builds requests (Prepare, Refuse) without DynamoDB
	// MinPage makes every page hold at least this many items (0: what the
	// UI asks for), so a benchmark can load a table in one page.
	MinPage int
	// Clock is the backend's time, which TTLs are judged and guarded by:
	// the machine's unless a test sets another.
	Clock clock.Clock

	mu          sync.Mutex
	tables      map[string]map[string]model.Item // table -> key text -> item
	writable    bool
	calls       map[string]int
	failures    map[string]error
	hold        chan struct{} // see HoldWrites
	arrive      func()
	lost, leaks int    // see LoseWrites, LeakCancelled
	race        string // the table and key text of ChangeAfterRead's item
	raced       model.Item
	tokens      []string          // of every write that arrived
	journal     []dynamo.Undoable // every transaction sent, as the store's undo journal
}

func (b *Backend) now() int64 { return model.Epoch(b.Clock.Now()) }

// New returns an empty, writable backend for schema sc, at the machine's
// time (Clock).
func New(sc model.Schema) *Backend {
	ep := backend.Endpoint{URL: "http://127.0.0.1:8000", Loopback: true}
	b := &Backend{schema: sc, tables: map[string]map[string]model.Item{},
		writable: true, calls: map[string]int{}, failures: map[string]error{}, Clock: clock.System()}
	b.ByKey = backend.ByKey{Schema: &b.schema, Src: b, Endpoint: ep, Now: b.now}
	b.prep = dynamo.NewStore(nil, ep, sc, clock.Func(func() time.Time { return b.Clock.Now() }))
	return b
}

// Holding returns a backend of the default layout-1 schema whose table
// holds items, as the widgets' own tests want one.
func Holding(items ...model.Item) *Backend {
	b := New(model.DefaultSchema(model.LayoutSingle))
	b.Put(b.schema.Table, items...)
	return b
}

// Schema returns the schema the backend was made for.
func (b *Backend) Schema() model.Schema { return b.schema }

// with runs f holding the backend's lock, which get, set and sorted need.
func (b *Backend) with(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f()
}

// Put stores items in table as they are, with no guard.
func (b *Backend) Put(table string, items ...model.Item) {
	b.with(func() {
		for _, it := range items {
			b.set(table, maps.Clone(it))
		}
	})
}

// Item returns the item of table at key, as stored now.
func (b *Backend) Item(table string, key map[string]string) (it model.Item, found bool) {
	b.with(func() { it = b.get(table, key) })
	return it, it != nil
}

// SetWritable allows or forbids writes.
func (b *Backend) SetWritable(ok bool) { b.with(func() { b.writable = ok }) }

// Writable reports whether writes are allowed.
func (b *Backend) Writable() (ok bool) {
	b.with(func() { ok = b.writable })
	return ok
}

// Calls returns how many times the UI called method.
func (b *Backend) Calls(method string) (n int) {
	b.with(func() { n = b.calls[method] })
	return n
}

// HoldWrites makes every later Execute wait, as a slow network would,
// until release is called; arrived is closed once one is waiting.
func (b *Backend) HoldWrites() (arrived <-chan struct{}, release func()) {
	hold, came := make(chan struct{}), make(chan struct{})
	b.with(func() { b.hold, b.arrive = hold, sync.OnceFunc(func() { close(came) }) })
	return came, sync.OnceFunc(func() { close(hold) })
}

// Fail makes every later call of method (AccountsPage, LocksPage, Check,
// or Execute: not sent) fail with err; nil makes them succeed again.
func (b *Backend) Fail(method string, err error) { b.with(func() { b.failures[method] = err }) }

// LoseWrites makes the next n writes get lost on the way: nothing is
// applied, and the outcome is unknown, as when no answer comes.
func (b *Backend) LoseWrites(n int) { b.with(func() { b.lost = n }) }

// LeakCancelled makes the next n cancelled transactions apply the actions
// whose own conditions held all the same, as a backend whose transactions
// are not isolated (moto's server under load) does. The outcome is still
// cancelled, slot by slot.
func (b *Backend) LeakCancelled(n int) { b.with(func() { b.leaks = n }) }

// ChangeAfterRead makes another writer store it in table right after the
// next read of its key, which still answers the item as it was: a write
// landing between two consistent reads of a caller.
func (b *Backend) ChangeAfterRead(table string, it model.Item) {
	b.with(func() { b.race, b.raced = table+"\x00"+b.keyText(table, textOf(it)), maps.Clone(it) })
}

// Tokens returns the ClientRequestToken of every write that arrived.
func (b *Backend) Tokens() (tokens []string) {
	b.with(func() { tokens = slices.Clone(b.tokens) })
	return tokens
}

// called counts a call of method, and returns the error it is to fail
// with, if any.
func (b *Backend) called(method string) (err error) {
	b.with(func() { b.calls[method]++; err = b.failures[method] })
	return err
}

// keyText is the key of table's item whose key attributes value reads,
// their values in key order: items sort by it as an emulator scans them.
func (b *Backend) keyText(table string, value func(attr string) string) string {
	names := b.schema.KeyAttrs(table)
	if names == nil { // a table of another schema (:table), keyed as this one's
		names = b.schema.KeyAttrs(b.schema.Table)
	}
	var parts []string
	for _, n := range names {
		parts = append(parts, value(n))
	}
	return strings.Join(parts, "\x00")
}

// get returns a copy of the item of table at key (nil: none), then stores
// a racing write to it (ChangeAfterRead).
func (b *Backend) get(table string, key map[string]string) model.Item {
	id := b.keyText(table, func(n string) string { return key[n] })
	it := maps.Clone(b.tables[table][id])
	if b.raced != nil && b.race == table+"\x00"+id {
		b.set(table, b.raced)
		b.raced = nil
	}
	return it
}

// textOf reads the string attributes of it.
func textOf(it model.Item) func(attr string) string { return func(n string) string { return it[n].S } }

func (b *Backend) set(table string, it model.Item) {
	if b.tables[table] == nil {
		b.tables[table] = map[string]model.Item{}
	}
	b.tables[table][b.keyText(table, textOf(it))] = it
}

// sorted returns copies of table's items in key order: those of the kinds
// given, or with none given every item.
func (b *Backend) sorted(table string, kinds ...model.EntryKind) []model.Item {
	var out []model.Item
	for _, k := range slices.Sorted(maps.Keys(b.tables[table])) {
		it := b.tables[table][k]
		if len(kinds) == 0 || slices.Contains(kinds, (model.Classifier{Schema: &b.schema}).Classify(table, it).Kind) {
			out = append(out, maps.Clone(it))
		}
	}
	return out
}

// pageOf counts a call of method, and cuts from what list returns a page
// of at least want from where from left off.
func pageOf[T any](ctx context.Context, b *Backend, method string, from backend.Cursor, want int, list func() []T) ([]T, backend.Cursor, error) {
	if err := b.called(method); err != nil {
		return nil, backend.Cursor{}, err
	}
	var items []T
	b.with(func() { items = list() })
	start := min(from.Pos(), len(items))
	end := min(start+max(want, b.MinPage, 1), len(items))
	return items[start:end], backend.At(end, end == len(items)), ctx.Err()
}

// Tables lists the tables the backend holds, the schema's among them,
// sorted (ListTables).
func (b *Backend) Tables(ctx context.Context) (names []string, err error) {
	if err := b.called("Tables"); err != nil {
		return nil, err
	}
	b.with(func() { names = append(slices.Collect(maps.Keys(b.tables)), b.schema.Table) })
	slices.Sort(names)
	return slices.Compact(names), nil
}

// ReadConsistent hands each item found at refs to visit, each key once.
func (b *Backend) ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error {
	b.called("ReadConsistent")
	var found []model.KeyRef
	var items []model.Item
	seen := map[string]bool{}
	b.with(func() {
		for _, r := range refs {
			if it := b.get(r.Table, r.Key); it != nil && !seen[r.ID()] {
				seen[r.ID()] = true
				found, items = append(found, r), append(items, it)
			}
		}
	})
	for i, r := range found { // visit may call back
		visit(r.Table, items[i])
	}
	return ctx.Err()
}

// AccountsPage returns the accounts from where from left off, in key
// order, judged by backend.Judge.
func (b *Backend) AccountsPage(ctx context.Context, from backend.Cursor, want int, consistent bool) (backend.AccountPage, error) {
	items, next, err := pageOf(ctx, b, "AccountsPage", from, want, func() []model.Item { return b.sorted(b.schema.Table, model.EntryAccount) })
	if err != nil {
		return backend.AccountPage{}, err
	}
	views, err := backend.Judge(ctx, &b.schema, b, items, b.now())
	return backend.AccountPage{Accounts: views, Next: next}, err
}

// LocksPage returns the lock items from where from left off: those of the
// account table, then each lock table's, in key order.
func (b *Backend) LocksPage(ctx context.Context, from backend.Cursor, want int) (backend.LockPage, error) {
	locks, next, err := pageOf(ctx, b, "LocksPage", from, want, func() (locks []model.Lock) {
		for _, table := range b.schema.Tables() {
			for _, it := range b.sorted(table, model.EntryLock) {
				l, _ := model.Classifier{Schema: &b.schema}.Lock(table, it)
				locks = append(locks, l)
			}
		}
		return locks
	})
	return backend.LockPage{Locks: locks, Next: next}, err
}

// PartitionPage returns the items of the account table under partition
// key value pk, in key order, from where from left off.
func (b *Backend) PartitionPage(ctx context.Context, pk string, from backend.Cursor, want int) (backend.ItemPage, error) {
	items, next, err := pageOf(ctx, b, "PartitionPage", from, want, func() []model.Item {
		return slices.DeleteFunc(b.sorted(b.schema.Table), func(it model.Item) bool {
			return it[b.schema.PK].Kind != model.KindS || it[b.schema.PK].S != pk
		})
	})
	return backend.ItemPage{Items: items, Next: next}, err
}

// OthersPage returns the items of the account table that are neither
// accounts nor locks, in key order, from where from left off.
func (b *Backend) OthersPage(ctx context.Context, from backend.Cursor, want int) (backend.ItemPage, error) {
	items, next, err := pageOf(ctx, b, "OthersPage", from, want, func() []model.Item { return b.sorted(b.schema.Table, model.EntryOther) })
	return backend.ItemPage{Items: items, Next: next}, err
}

// LookupHolders reads every account for the holders of the wanted
// values, as the store's consistent scan does, and then their locks.
func (b *Backend) LookupHolders(ctx context.Context, wanted []backend.Wanted) (backend.HolderLookup, error) {
	b.called("LookupHolders")
	found := backend.NewLookup(backend.ScanMethod)
	b.with(func() {
		for _, it := range b.sorted(b.schema.Table, model.EntryAccount) {
			found.AddHolder(&b.schema, wanted, it)
		}
		found.ItemsRead = int64(len(b.tables[b.schema.Table])) // every item, accounts or not
	})
	return found, found.ReadLocks(ctx, &b.schema, b, wanted)
}

// Holders finds, for each constraint of cis, the accounts that hold value
// v (LookupHolders), reporting the items read as the store's scan does.
func (b *Backend) Holders(ctx context.Context, cis []int, v string, progress func(scanned int64)) ([][]string, error) {
	wanted := make([]backend.Wanted, len(cis))
	for i, ci := range cis {
		wanted[i] = backend.Wanted{Constraint: ci, Value: b.schema.Constraints[ci].Normalize.Apply(v)}
	}
	found, err := b.LookupHolders(ctx, wanted)
	ids := make([][]string, len(cis))
	for i, w := range wanted {
		ids[i] = found.Holders[w]
	}
	if progress != nil && len(cis) > 0 {
		progress(found.ItemsRead)
	}
	return ids, err
}

// Find searches by the store's own rules (backend.Find).
func (b *Backend) Find(ctx context.Context, q string, o backend.FindOptions) (backend.Found, error) {
	if err := b.called("Find"); err != nil {
		return backend.Found{Query: q}, err
	}
	return backend.Find(ctx, &b.schema, b, q, b.now(), o)
}

// Check reconciles every item of every table into problems with model's
// census; the backend is consistent, so every candidate stands confirmed.
func (b *Backend) Check(ctx context.Context, progress func(model.CheckProgress)) (model.Report, error) {
	if err := b.called("Check"); err != nil {
		return model.Report{}, err
	}
	census := model.NewCensus(&b.schema, b.now())
	b.with(func() {
		for _, table := range b.schema.Tables() {
			for _, it := range b.sorted(table) {
				census.Add(table, it)
			}
		}
	})
	if progress != nil {
		progress(model.CheckProgress{Phase: model.PhaseDone, Scanned: int64(census.Scanned)})
	}
	return census.Report(census.Problems()), ctx.Err()
}

// Refuse reports plan p as cancelled because other accounts hold values it
// would lock, as the store does.
func (b *Backend) Refuse(p model.Plan, taken []backend.Taken) model.Result {
	return b.prep.Refuse(p, taken)
}

// Prepare builds the exact request of a plan, as the store does.
func (b *Backend) Prepare(p model.Plan, token string) (backend.Tx, error) {
	return b.prep.Prepare(p, token)
}

// Execute applies tx's actions if every condition holds, or none of them,
// with the failed ones explained slot by slot. An ownerless orphan's
// repair runs its three steps by the store's dynamo.Reclaim.
func (b *Backend) Execute(ctx context.Context, tx backend.Tx) (model.Result, error) {
	failure := b.called("Execute")
	send := func(_ context.Context, tx backend.Tx) (model.Result, error) { return b.send(tx, failure) }
	if tx.Plan.Reclaim != nil {
		return dynamo.Reclaim{Schema: &b.schema, Prepare: b.Prepare, Send: send, Lookup: b.LookupHolders}.Run(ctx, tx)
	}
	return send(ctx, tx)
}

// send is one transaction on its way: held (HoldWrites), then not sent
// (failure, as when no connection could be made), refused (not
// writable), lost (LoseWrites) or applied (transact). The journal keeps
// the items it changes as they were, and its outcome.
func (b *Backend) send(tx backend.Tx, failure error) (model.Result, error) {
	var hold chan struct{}
	var arrive func()
	b.with(func() { hold, arrive = b.hold, b.arrive })
	if hold != nil {
		arrive()
		<-hold
	}
	p := tx.Plan
	res := model.Result{Operation: p.Operation, Keys: p.Keys, Token: tx.Token, Reasons: []model.Reason{}}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case failure != nil:
		res.Outcome = model.NotSent
		return res, failure
	case !b.writable:
		res.Outcome = model.Refused
		return res, backend.ErrReadOnly
	}
	b.tokens = append(b.tokens, tx.Token)
	record := model.UndoRecord{Token: tx.Token, Operation: p.Operation, Table: b.schema.Table, Endpoint: b.prep.Endpoint.String(),
		Keys: append([]string{}, p.Keys...), Undoes: p.Undoes, Items: model.UndoItems(p, b.get)}
	if b.lost > 0 {
		b.lost--
		res.Outcome, res.Reasons = model.Unknown, []model.Reason{{Slot: -1, Code: "Unknown", Message: "no answer came (uitest.LoseWrites)"}}
	} else {
		b.transact(p, &res)
	}
	b.journal = append(b.journal, dynamo.Undoable{Record: record, Outcome: res.Outcome})
	return res, nil
}

// transact applies p's actions if every condition holds (model.AllHold):
// committed. Otherwise it applies none (but see LeakCancelled): skipped
// for a repair whose effect is there already, as the store says
// (model.Classifier.AlreadyRepaired), else cancelled, each failed
// condition put in words.
func (b *Backend) transact(p model.Plan, res *model.Result) {
	cl := model.Classifier{Schema: &b.schema}
	var failed []model.Failure
	var held []model.Action
	for i, a := range p.Actions {
		if now := b.get(a.Table, a.Key); !model.AllHold(a.Conds, now) {
			res.Reasons = append(res.Reasons, model.Reason{Slot: i, Action: a.Purpose(&b.schema), Code: "ConditionalCheckFailed", Message: cl.Explain(a, now)})
			failed = append(failed, model.Failure{Slot: i, Code: "ConditionalCheckFailed", Now: now})
		} else {
			held = append(held, a)
		}
	}
	switch note, repaired := cl.AlreadyRepaired(p, failed); {
	case repaired:
		res.Outcome, res.Reasons, res.Note = model.Skipped, []model.Reason{}, note
	case len(failed) > 0:
		if res.Outcome = model.Cancelled; b.leaks > 0 {
			b.leaks--
			b.apply(held)
		}
	default:
		res.Outcome = model.Committed
		b.apply(p.Actions)
	}
}

// apply writes what actions do to the items at their keys.
func (b *Backend) apply(actions []model.Action) {
	for _, a := range actions {
		switch after := model.After(a, b.get(a.Table, a.Key)); {
		case a.Kind == model.ActCheck:
		case after == nil:
			delete(b.tables[a.Table], b.keyText(a.Table, func(n string) string { return a.Key[n] }))
		default:
			b.set(a.Table, after)
		}
	}
}

// UndoFrom is UndoToken: the fake's journal is its own (path "").
func (b *Backend) UndoFrom(ctx context.Context, path, token string) (model.Plan, error) {
	if path != "" {
		return model.Plan{}, fmt.Errorf("uitest: no undo journal at %s: the fake keeps its own", path)
	}
	return b.UndoToken(ctx, token)
}

// UndoToken plans the undo of the write with token, or ("") of the last
// committed one, from the journal, as the store does from its own.
func (b *Backend) UndoToken(ctx context.Context, token string) (p model.Plan, err error) {
	if err := b.called("UndoToken"); err != nil {
		return p, err
	}
	b.with(func() {
		journal := slices.Clone(b.journal)
		dynamo.MarkUndone(journal)
		var u dynamo.Undoable
		if u, err = b.prep.FindUndoable(journal, token); err == nil {
			p, err = u.Plan(&b.schema, b.get)
		}
	})
	return p, err
}
