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

// Backend holds the tables of one schema in memory, and plays each role
// the UI takes (ui.Roles) over them. It is safe for concurrent use.
type Backend struct {
	backend.ByKey // the reads by key, and plans, over ReadConsistent
	// Control is what a test sets of the backend and reads of its calls.
	Control *Control
	// Clock is the backend's time, which TTLs are judged and guarded by.
	Clock clock.Clock

	schema  model.Schema
	prep    *dynamo.Store // builds requests (Prepare, Refuse) without DynamoDB
	mu      sync.Mutex
	tables  map[string]map[string]model.Item // table -> key text -> item
	journal []dynamo.Undoable                // every transaction sent, as the store's undo journal
}

func (b *Backend) now() int64 { return model.Epoch(b.Clock.Now()) }

// New returns an empty, writable backend for schema sc, at the machine's time.
func New(sc model.Schema) *Backend {
	ep := backend.Endpoint{URL: "http://127.0.0.1:8000", Loopback: true}
	b := &Backend{schema: sc, tables: map[string]map[string]model.Item{}, Clock: clock.System(),
		Control: &Control{writable: true, calls: map[string]int{}, failures: map[string]error{}}}
	b.ByKey = backend.ByKey{Schema: &b.schema, Src: b, Endpoint: ep, Now: b.now}
	b.prep = dynamo.NewStore(nil, ep, sc, clock.Func(func() time.Time { return b.Clock.Now() }))
	return b
}

// Holding returns a backend of the default layout-1 schema holding items.
func Holding(items ...model.Item) *Backend {
	b := New(model.DefaultSchema(model.LayoutSingle))
	b.Put(b.schema.Table, items...)
	return b
}

// Schema returns the schema the backend was made for.
func (b *Backend) Schema() model.Schema { return b.schema }

func (b *Backend) lock() (unlock func()) { b.mu.Lock(); return b.mu.Unlock }

// Put stores items in table as they are, with no guard.
func (b *Backend) Put(table string, items ...model.Item) {
	defer b.lock()()
	for _, it := range items {
		b.set(table, maps.Clone(it))
	}
}

// Delete removes the item of table at key, with no guard.
func (b *Backend) Delete(table string, key map[string]string) {
	defer b.lock()()
	delete(b.tables[table], b.keyText(table, func(n string) string { return key[n] }))
}

// Item returns the item of table at key, as stored now.
func (b *Backend) Item(table string, key map[string]string) (model.Item, bool) {
	defer b.lock()()
	it := b.get(table, key)
	return it, it != nil
}

// keyText is the key of table's item whose key attributes value reads,
// in key order: items sort by it as an emulator scans them. A table of
// another schema (:table) is keyed as this one's.
func (b *Backend) keyText(table string, value func(attr string) string) string {
	names := b.schema.KeyAttrs(table)
	if names == nil {
		names = b.schema.KeyAttrs(b.schema.Table)
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = value(n)
	}
	return strings.Join(parts, "\x00")
}

func textOf(it model.Item) func(attr string) string { return func(n string) string { return it[n].S } }

// get returns a copy of the item of table at key (nil: none), then stores
// a racing write to it (ChangeAfterRead).
func (b *Backend) get(table string, key map[string]string) model.Item {
	id := b.keyText(table, func(n string) string { return key[n] })
	it := maps.Clone(b.tables[table][id])
	if raced := b.Control.raceAt(table, func(r model.Item) bool { return b.keyText(table, textOf(r)) == id }); raced != nil {
		b.set(table, raced)
	}
	return it
}

func (b *Backend) set(table string, it model.Item) {
	if b.tables[table] == nil {
		b.tables[table] = map[string]model.Item{}
	}
	b.tables[table][b.keyText(table, textOf(it))] = it
}

// sorted returns copies of table's items in key order, those of the kinds
// given (none: every item).
func (b *Backend) sorted(table string, kinds ...model.EntryKind) (out []model.Item) {
	for _, k := range slices.Sorted(maps.Keys(b.tables[table])) {
		it := b.tables[table][k]
		if len(kinds) == 0 || slices.Contains(kinds, (model.Classifier{Schema: &b.schema}).Classify(table, it).Kind) {
			out = append(out, maps.Clone(it))
		}
	}
	return out
}

// pageOf counts a call of method, and cuts from what list returns a page
// of want (at least one) from where from left off.
func pageOf[T any](ctx context.Context, b *Backend, method string, from backend.Cursor, want int, list func() []T) ([]T, backend.Cursor, error) {
	if err := b.Control.called(method); err != nil {
		return nil, backend.Cursor{}, err
	}
	unlock := b.lock()
	items := list()
	unlock()
	start := min(from.Pos(), len(items))
	end := min(start+max(want, 1), len(items))
	return items[start:end], backend.At(end, end == len(items)), ctx.Err()
}

// Tables lists the tables the backend holds and the schema's, sorted.
func (b *Backend) Tables(context.Context) ([]string, error) {
	defer b.lock()()
	return slices.Compact(slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(b.tables)), b.schema.Table)))), nil
}

// ReadConsistent hands each item found at refs to visit, each key once.
func (b *Backend) ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error {
	found, unlock := map[string]model.Item{}, b.lock()
	for _, r := range refs {
		if it := b.get(r.Table, r.Key); it != nil && found[r.ID()] == nil {
			found[r.ID()] = it
		}
	}
	unlock()
	for _, r := range refs { // visit may call back
		if it := found[r.ID()]; it != nil {
			visit(r.Table, it)
			delete(found, r.ID())
		}
	}
	return ctx.Err()
}

// AccountsPage returns the accounts in key order from where from left
// off, judged by backend.Judge.
func (b *Backend) AccountsPage(ctx context.Context, from backend.Cursor, want int, consistent bool) (backend.AccountPage, error) {
	items, next, err := pageOf(ctx, b, "AccountsPage", from, want, func() []model.Item { return b.sorted(b.schema.Table, model.EntryAccount) })
	if err != nil {
		return backend.AccountPage{}, err
	}
	views, err := backend.Judge(ctx, &b.schema, b, items, b.now())
	return backend.AccountPage{Accounts: views, Next: next}, err
}

// First reads a backend's first page in two, as ui.Open does: its
// accounts, then their locks (the store's Pages do the same).
type First struct{ b *Backend }

// NewFirst reads b's first page in two.
func NewFirst(b *Backend) First { return First{b: b} }

// FirstAccounts returns the first want accounts (at least) in key order,
// their locks not read (backend.Unread).
func (f First) FirstAccounts(ctx context.Context, want int) (backend.AccountPage, error) {
	b := f.b
	items, next, err := pageOf(ctx, b, "FirstAccounts", backend.Cursor{}, want, func() []model.Item { return b.sorted(b.schema.Table, model.EntryAccount) })
	if err != nil {
		return backend.AccountPage{}, err
	}
	return backend.AccountPage{Accounts: backend.Unread(&b.schema, items, b.now()), Next: next}, nil
}

// JudgeAccounts reads the locks of accounts and judges them, as
// AccountsPage does.
func (f First) JudgeAccounts(ctx context.Context, accounts []model.Item) ([]model.AccountView, error) {
	b := f.b
	if err := b.Control.called("JudgeAccounts"); err != nil {
		return nil, err
	}
	return backend.Judge(ctx, &b.schema, b, accounts, b.now())
}

// LocksPage returns the locks from where from left off: the account
// table's, then each lock table's, in key order.
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
// key value pk, in key order from where from left off.
func (b *Backend) PartitionPage(ctx context.Context, pk string, from backend.Cursor, want int) (backend.ItemPage, error) {
	items, next, err := pageOf(ctx, b, "PartitionPage", from, want, func() []model.Item {
		return slices.DeleteFunc(b.sorted(b.schema.Table), func(it model.Item) bool {
			return it[b.schema.PK].Kind != model.KindS || it[b.schema.PK].S != pk
		})
	})
	return backend.ItemPage{Items: items, Next: next}, err
}

// OthersPage returns the items of the account table that are neither
// accounts nor locks, in key order from where from left off.
func (b *Backend) OthersPage(ctx context.Context, from backend.Cursor, want int) (backend.ItemPage, error) {
	items, next, err := pageOf(ctx, b, "OthersPage", from, want, func() []model.Item { return b.sorted(b.schema.Table, model.EntryOther) })
	return backend.ItemPage{Items: items, Next: next}, err
}

// LookupHolders reads every account for the holders of the wanted
// values, as the store's consistent scan does, and then their locks.
func (b *Backend) LookupHolders(ctx context.Context, wanted []backend.Wanted) (backend.HolderLookup, error) {
	found, unlock := backend.NewLookup(backend.ScanMethod), b.lock()
	for _, it := range b.sorted(b.schema.Table, model.EntryAccount) {
		found.AddHolder(&b.schema, wanted, it)
	}
	found.ItemsRead = int64(len(b.tables[b.schema.Table])) // every item, accounts or not
	unlock()
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
	if err := b.Control.called("Find"); err != nil {
		return backend.Found{Query: q}, err
	}
	return backend.Find(ctx, &b.schema, b, q, b.now(), o)
}

// Check reconciles every item of every table into problems with model's
// census; the backend is consistent, so every candidate stands confirmed.
func (b *Backend) Check(ctx context.Context, progress func(model.CheckProgress)) (model.Report, error) {
	if err := b.Control.called("Check"); err != nil {
		return model.Report{}, err
	}
	census, unlock := model.NewCensus(&b.schema, b.now()), b.lock()
	for _, table := range b.schema.Tables() {
		for _, it := range b.sorted(table) {
			census.Add(table, it)
		}
	}
	unlock()
	if progress != nil {
		progress(model.CheckProgress{Phase: model.PhaseDone, Scanned: int64(census.Scanned)})
	}
	return census.Report(census.Problems()), ctx.Err()
}

// Refuse reports p cancelled because other accounts hold values it would
// lock, as the store does.
func (b *Backend) Refuse(p model.Plan, taken []backend.Taken) model.Result {
	return b.prep.Writer.Refuse(p, taken)
}

// Prepare builds the exact request of p, as the store does.
func (b *Backend) Prepare(p model.Plan, token string) (backend.Tx, error) {
	return b.prep.Writer.Prepare(p, token)
}

// Execute sends tx (send); an ownerless orphan's repair runs its three
// steps by the store's dynamo.Reclaim. A step whose stop channel
// (backend.WithStop) has closed is not sent, as the store sends none.
func (b *Backend) Execute(ctx context.Context, tx backend.Tx) (model.Result, error) {
	failure := b.Control.called("Execute")
	send := func(ctx context.Context, tx backend.Tx) (model.Result, error) {
		if backend.Stopped(ctx) {
			return model.Result{Operation: tx.Plan.Operation, Keys: tx.Plan.Keys, Token: tx.Token, Reasons: []model.Reason{}, Outcome: model.NotSent}, backend.ErrStopped
		}
		return b.send(tx, failure)
	}
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
	b.Control.wait()
	p := tx.Plan
	res := model.Result{Operation: p.Operation, Keys: p.Keys, Token: tx.Token, Reasons: []model.Reason{}}
	defer b.lock()()
	switch {
	case failure != nil:
		res.Outcome = model.NotSent
		return res, failure
	case !b.Control.Writable():
		res.Outcome = model.Refused
		return res, backend.ErrReadOnly
	}
	record := model.UndoRecord{Token: tx.Token, Operation: p.Operation, Table: b.schema.Table, Endpoint: b.prep.Endpoint.String(),
		Keys: append([]string{}, p.Keys...), Undoes: p.Undoes, Items: model.UndoItems(p, b.get)}
	if b.Control.sent(tx.Token) {
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
		if res.Outcome = model.Cancelled; b.Control.leak() {
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

// UndoFrom plans the undo of the write with token ("": the last
// committed) from the fake's own journal (path ""), as the store does
// from its own; it counts as a call of the store's UndoToken.
func (b *Backend) UndoFrom(ctx context.Context, path, token string) (model.Plan, error) {
	if path != "" {
		return model.Plan{}, fmt.Errorf("uitest: no undo journal at %s: the fake keeps its own", path)
	}
	if err := b.Control.called("UndoToken"); err != nil {
		return model.Plan{}, err
	}
	defer b.lock()()
	journal := slices.Clone(b.journal)
	dynamo.MarkUndone(journal)
	u, err := b.prep.Journal.FindUndoable(journal, token)
	if err != nil {
		return model.Plan{}, err
	}
	return u.Plan(&b.schema, b.get)
}

// Sweeper reads every account of a backend at once, as the store's
// Sweeper does (the UI's G and n).
type Sweeper struct{ b *Backend }

// NewSweeper reads every account of b at once.
func NewSweeper(b *Backend) Sweeper { return Sweeper{b: b} }

// AccountsSweep tells its progress as the store's does while it scans,
// then hands on every account in key order (the order of its pages), as
// one segment, judged by backend.Judge, in chunks of 50; stopped by ctx,
// it hands on nothing more.
func (w Sweeper) AccountsSweep(ctx context.Context, _ bool, progress func(backend.SweepProgress), page func(int, []model.AccountView)) error {
	b := w.b
	if err := b.Control.called("AccountsSweep"); err != nil {
		return err
	}
	unlock := b.lock()
	items := b.sorted(b.schema.Table, model.EntryAccount)
	unlock()
	const n = 50
	for start := 0; start < len(items); start += n {
		progress(backend.SweepProgress{Items: int64(min(start+n, len(items))), Pages: start/n + 1, Approx: int64(len(items))})
	}
	for start := 0; start < len(items); start += n {
		if err := ctx.Err(); err != nil {
			return err
		}
		views, err := backend.Judge(ctx, &b.schema, b, items[start:min(start+n, len(items))], b.now())
		if err != nil {
			return err
		}
		page(0, views)
	}
	return ctx.Err()
}
