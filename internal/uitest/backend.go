// Package uitest is an in-memory Backend for the terminal UI's tests. It
// only stores: the items live in maps, reads are answered from them and
// pages are cut by position, and a transaction applies all its actions or
// none. What the store decides, the store's own code decides over it:
// package backend judges accounts, finds locks, plans repairs and confirms
// holders through its consistent reads, model's census checks, and each
// action's conditions are evaluated by model.Cond.Holds and a failed one
// explained by model.Classifier.Explain. It answers in microseconds, so
// Update and golden tests need no emulator; what only DynamoDB can show
// (a commit, ALL_OLD reasons, indexes) is tested against dynoxide.
package uitest

import (
	"context"
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
	// ByKey answers what is read by key (accounts, locks, the holders a
	// check names) and plans writes, over the backend's ReadConsistent.
	backend.ByKey
	schema model.Schema
	// prep builds requests: Prepare and Refuse never call DynamoDB.
	prep *dynamo.Store
	// MinPage makes every page hold at least this many items (0: what the
	// UI asks for), so a benchmark can load a table in one page.
	MinPage int

	mu       sync.Mutex
	tables   map[string]map[string]model.Item // table -> key -> item
	writable bool
	calls    map[string]int
	failures map[string]error
	hold     chan struct{} // see HoldWrites
	arrived  chan struct{}
	lost     int          // see LoseWrites
	leaks    int          // see LeakCancelled
	race     *racingWrite // see ChangeAfterRead
	tokens   []string     // of every write that arrived
	// journal is the undo journal as dynamo.ReadUndoJournal reads the
	// store's: every transaction sent, oldest first, with its outcome.
	journal []dynamo.Undoable
	// Clock is the backend's time, which its checks and searches judge
	// TTLs by and its conditions compare them with: the machine's unless
	// a test sets another.
	Clock clock.Clock
}

// racingWrite is an item another writer stores in table.
type racingWrite struct {
	table string
	item  model.Item
}

// now is the backend's time (Clock), in epoch seconds.
func (b *Backend) now() int64 { return model.Epoch(b.Clock.Now()) }

// New returns an empty, writable backend for schema sc, at the machine's
// time (Clock).
func New(sc model.Schema) *Backend {
	ep := backend.Endpoint{URL: "http://127.0.0.1:8000", Loopback: true}
	b := &Backend{schema: sc, tables: map[string]map[string]model.Item{},
		writable: true, calls: map[string]int{}, failures: map[string]error{}, Clock: clock.System()}
	b.ByKey = backend.ByKey{Schema: &b.schema, Src: b, Endpoint: ep, Now: b.now}
	// Requests are built at the backend's time.
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

// Put stores items in table as they are, with no guard.
func (b *Backend) Put(table string, items ...model.Item) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, it := range items {
		b.set(table, maps.Clone(it))
	}
}

// Item returns the item of table at key, as stored now.
func (b *Backend) Item(table string, key map[string]string) (model.Item, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	it := b.get(table, key)
	return it, it != nil
}

// SetWritable allows or forbids writes.
func (b *Backend) SetWritable(ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writable = ok
}

// Calls returns how many times the UI called method.
func (b *Backend) Calls(method string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.calls[method]
}

// HoldWrites makes every later Execute wait, as a slow network would,
// until release is called; arrived is closed once one is waiting.
func (b *Backend) HoldWrites() (arrived <-chan struct{}, release func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hold, b.arrived = make(chan struct{}), make(chan struct{})
	hold := b.hold
	return b.arrived, sync.OnceFunc(func() { close(hold) })
}

// Fail makes every later call of method (AccountsPage, LocksPage, Check,
// or Execute: not sent) fail with err; nil makes them succeed again.
func (b *Backend) Fail(method string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures[method] = err
}

// LoseWrites makes the next n writes get lost on the way: nothing is
// applied, and the outcome is unknown, as when no answer comes.
func (b *Backend) LoseWrites(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lost = n
}

// LeakCancelled makes the next n transactions that are cancelled apply
// the actions whose own conditions held all the same, as a backend whose
// transactions are not isolated (moto's server under load) does: a
// racer's account put, say, beside the lock put that cancelled it. The
// outcome is still cancelled, slot by slot.
func (b *Backend) LeakCancelled(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.leaks = n
}

// ChangeAfterRead makes another writer store it in table right after the
// next read of its key, which still answers the item as it was: a caller
// that reads the item again, as a repair reads its holder after
// confirming the problem, finds it changed, as when a write lands between
// two consistent reads.
func (b *Backend) ChangeAfterRead(table string, it model.Item) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.race = &racingWrite{table, maps.Clone(it)}
}

// Tokens returns the ClientRequestToken of every write that arrived.
func (b *Backend) Tokens() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.tokens)
}

// called counts a call of method, and returns the error it is to fail
// with, if any.
func (b *Backend) called(method string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls[method]++
	return b.failures[method]
}

// keyText joins the values of table's key attributes, in key order, as
// value reads them.
func (b *Backend) keyText(table string, value func(name string) string) string {
	names := []string{b.schema.PK, b.schema.SK}
	for _, c := range b.schema.Constraints {
		if !c.InAccountTable() && c.LockTable == table {
			names = []string{c.KeyAttr}
		}
	}
	var parts []string
	for _, n := range names {
		if n != "" {
			parts = append(parts, value(n))
		}
	}
	return strings.Join(parts, "\x00")
}

// get returns a copy of the item of table at key (nil: none), and stores
// a racing write to it (ChangeAfterRead). b.mu is held, as by every
// method below that does not take it.
func (b *Backend) get(table string, key map[string]string) model.Item {
	id := b.keyText(table, func(n string) string { return key[n] })
	it := b.tables[table][id]
	if r := b.race; r != nil && r.table == table && id == b.keyText(table, func(n string) string { return r.item[n].S }) {
		b.race = nil
		b.set(table, r.item)
	}
	return maps.Clone(it)
}

func (b *Backend) set(table string, it model.Item) {
	if b.tables[table] == nil {
		b.tables[table] = map[string]model.Item{}
	}
	b.tables[table][b.keyText(table, func(n string) string { return it[n].S })] = it
}

// sorted returns table's items in key order, as an emulator scans them:
// those of the kinds given, or with none given every item.
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

// page cuts items[from:] to at least want, and says where the next starts.
func page[T any](b *Backend, items []T, from backend.Cursor, want int) ([]T, backend.Cursor) {
	start := min(from.Pos(), len(items))
	end := min(start+max(want, b.MinPage, 1), len(items))
	return items[start:end], backend.At(end, end == len(items))
}

// Tables lists the tables the backend holds, the schema's among them,
// sorted (ListTables).
func (b *Backend) Tables(ctx context.Context) ([]string, error) {
	if err := b.called("Tables"); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Sorted(maps.Keys(maps.Collect(func(yield func(string, bool) bool) {
		yield(b.schema.Table, true)
		for name := range b.tables {
			yield(name, true)
		}
	}))), nil
}

// ReadConsistent hands each item found at refs to visit, each key once.
func (b *Backend) ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error {
	b.called("ReadConsistent")
	var found []model.KeyRef
	var items []model.Item
	seen := map[string]bool{}
	b.mu.Lock()
	for _, r := range refs {
		if it := b.get(r.Table, r.Key); it != nil && !seen[r.ID()] {
			seen[r.ID()] = true
			found, items = append(found, r), append(items, it)
		}
	}
	b.mu.Unlock() // visit may call back
	for i, r := range found {
		visit(r.Table, items[i])
	}
	return ctx.Err()
}

// AccountsPage returns the accounts from where from left off, in key
// order, judged by backend.Judge.
func (b *Backend) AccountsPage(ctx context.Context, from backend.Cursor, want int, consistent bool) (backend.AccountPage, error) {
	if err := b.called("AccountsPage"); err != nil {
		return backend.AccountPage{}, err
	}
	b.mu.Lock()
	items, next := page(b, b.sorted(b.schema.Table, model.EntryAccount), from, want)
	b.mu.Unlock()
	views, err := backend.Judge(ctx, &b.schema, b, items, b.now())
	return backend.AccountPage{Accounts: views, Next: next}, err
}

// LocksPage returns the lock items from where from left off: those of the
// account table, then each lock table's, in key order.
func (b *Backend) LocksPage(ctx context.Context, from backend.Cursor, want int) (backend.LockPage, error) {
	if err := b.called("LocksPage"); err != nil {
		return backend.LockPage{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	sc := &b.schema
	var locks []model.Lock
	for _, table := range sc.Tables() {
		for _, it := range b.sorted(table, model.EntryLock) {
			e := model.Classifier{Schema: sc}.Classify(table, it)
			lt, key := sc.LockKeyAs(e.Constraint, e.Value, e.Alt)
			locks = append(locks, model.Lock{Constraint: e.Constraint, Value: e.Value, Table: lt, Key: key, Item: it, Owner: e.Owner,
				ExpiresAt: sc.LockTTL(e.Constraint, it)})
		}
	}
	got, next := page(b, locks, from, want)
	return backend.LockPage{Locks: got, Next: next}, ctx.Err()
}

// itemsPage returns the account table's items of the kinds given (none:
// all) for which keep holds, in key order, from where from left off.
func (b *Backend) itemsPage(ctx context.Context, method string, keep func(model.Item) bool, from backend.Cursor, want int, kinds ...model.EntryKind) (backend.ItemPage, error) {
	if err := b.called(method); err != nil {
		return backend.ItemPage{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	got, next := page(b, slices.DeleteFunc(b.sorted(b.schema.Table, kinds...), func(it model.Item) bool { return !keep(it) }), from, want)
	return backend.ItemPage{Items: got, Next: next}, ctx.Err()
}

// PartitionPage returns the items of the account table under partition
// key value pk, in key order, from where from left off.
func (b *Backend) PartitionPage(ctx context.Context, pk string, from backend.Cursor, want int) (backend.ItemPage, error) {
	return b.itemsPage(ctx, "PartitionPage", func(it model.Item) bool {
		v := it[b.schema.PK]
		return v.Kind == model.KindS && v.S == pk
	}, from, want)
}

// OthersPage returns the items of the account table that are neither
// accounts nor locks, in key order, from where from left off.
func (b *Backend) OthersPage(ctx context.Context, from backend.Cursor, want int) (backend.ItemPage, error) {
	return b.itemsPage(ctx, "OthersPage", func(model.Item) bool { return true }, from, want, model.EntryOther)
}

// lookup finds the holders of the wanted values by reading every account,
// and reads their locks, as the store's consistent scan does.
func (b *Backend) lookup(wanted []backend.Wanted) backend.HolderLookup {
	sc := &b.schema
	found := backend.NewLookup(backend.ScanMethod)
	for _, it := range b.sorted(sc.Table, model.EntryAccount) {
		found.AddHolder(sc, wanted, it)
	}
	found.ItemsRead = int64(len(b.tables[sc.Table])) // every item, accounts or not
	for _, w := range wanted {
		lock, _, _ := model.Classifier{Schema: sc}.FindLock(w.Constraint, w.Value, func(r model.KeyRef) (model.Item, bool) {
			it := b.get(r.Table, r.Key)
			return it, it != nil
		})
		found.FoundLock(sc, w, lock)
	}
	return found
}

// Holders finds, for each constraint of cis, the accounts that hold value
// v, and reports the items read as the store's one scan does.
func (b *Backend) Holders(ctx context.Context, cis []int, v string, progress func(scanned int64)) ([][]string, error) {
	b.called("Holders")
	wanted := make([]backend.Wanted, len(cis))
	for i, ci := range cis {
		wanted[i] = backend.Wanted{Constraint: ci, Value: b.schema.Constraints[ci].Normalize.Apply(v)}
	}
	b.mu.Lock()
	found := b.lookup(wanted)
	b.mu.Unlock()
	ids := make([][]string, len(cis))
	for i, w := range wanted {
		ids[i] = found.Holders[w]
	}
	if progress != nil && len(cis) > 0 {
		progress(found.ItemsRead)
	}
	return ids, ctx.Err()
}

// LookupHolders reads every account for the holders of the wanted values.
func (b *Backend) LookupHolders(ctx context.Context, wanted []backend.Wanted) (backend.HolderLookup, error) {
	b.called("LookupHolders")
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lookup(wanted), ctx.Err()
}

// Check reconciles every item of every table into problems with model's
// census. The backend is consistent, so every candidate is confirmed as
// it is.
func (b *Backend) Check(ctx context.Context, progress func(model.CheckProgress)) (model.Report, error) {
	if err := b.called("Check"); err != nil {
		return model.Report{}, err
	}
	census := model.NewCensus(&b.schema, b.now())
	b.mu.Lock()
	for _, table := range b.schema.Tables() {
		for _, it := range b.sorted(table) {
			census.Add(table, it)
		}
	}
	b.mu.Unlock()
	if progress != nil {
		progress(model.CheckProgress{Phase: model.PhaseDone, Scanned: int64(census.Scanned)})
	}
	return census.Report(census.Problems()), ctx.Err()
}

// Writable reports whether writes are allowed.
func (b *Backend) Writable() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.writable
}
