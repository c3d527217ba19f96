// Package uitest is an in-memory Backend for the terminal UI's tests: the
// items live in maps, pages are cut by position, and accounts, locks and
// problems are judged with model's own functions. Writes evaluate each
// action's conditions and apply all of them or none, explaining a failed
// condition as model.Classifier.Explain does. It answers in microseconds, so
// Update and golden tests need no emulator; what only DynamoDB can show
// (a commit, ALL_OLD reasons, indexes) is tested against dynoxide.
package uitest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
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
	lost     int      // see LoseWrites
	leaks    int      // see LeakCancelled
	tokens   []string // of every write that arrived
	// journal is the undo journal as dynamo.ReadUndoJournal reads the
	// store's: every transaction sent, oldest first, with its outcome.
	journal []dynamo.Undoable
	// Clock is the backend's time, which its checks and searches judge
	// TTLs by and its conditions compare them with: the machine's unless
	// a test sets another.
	Clock clock.Clock
}

// now is the backend's time (Clock).
func (b *Backend) now() time.Time { return b.Clock.Now() }

// New returns an empty, writable backend for schema sc, at the machine's
// time (Clock).
func New(sc model.Schema) *Backend {
	ep := backend.Endpoint{URL: "http://127.0.0.1:8000", Loopback: true}
	b := &Backend{schema: sc, tables: map[string]map[string]model.Item{},
		writable: true, calls: map[string]int{}, failures: map[string]error{}, Clock: clock.System()}
	b.prep = dynamo.NewStore(nil, ep, sc, clock.Func(b.now)) // requests are built at the backend's time
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

// Tables lists the tables the backend holds, the schema's among them,
// sorted (ListTables).
func (b *Backend) Tables(ctx context.Context) ([]string, error) {
	err := b.called("Tables")
	defer b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	names := []string{b.schema.Table}
	for name := range b.tables {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
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

// Tokens returns the ClientRequestToken of every write that arrived.
func (b *Backend) Tokens() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.tokens)
}

// called counts a call and takes the lock; the caller unlocks. It returns
// the error the call is to fail with, if any.
func (b *Backend) called(method string) error {
	b.mu.Lock()
	b.calls[method]++
	return b.failures[method]
}

// keyNames are the key attributes of table, in key order.
func (b *Backend) keyNames(table string) []string {
	sc := &b.schema
	for _, c := range sc.Constraints {
		if !c.InAccountTable() && c.LockTable == table {
			return []string{c.KeyAttr}
		}
	}
	if sc.SK == "" {
		return []string{sc.PK}
	}
	return []string{sc.PK, sc.SK}
}

// keyText joins the key values of table's key map in key order.
func (b *Backend) keyText(table string, key func(name string) string) string {
	var parts []string
	for _, n := range b.keyNames(table) {
		parts = append(parts, key(n))
	}
	return strings.Join(parts, "\x00")
}

func (b *Backend) get(table string, key map[string]string) model.Item {
	it := b.tables[table][b.keyText(table, func(n string) string { return key[n] })]
	if it == nil {
		return nil
	}
	return maps.Clone(it)
}

func (b *Backend) set(table string, it model.Item) {
	if b.tables[table] == nil {
		b.tables[table] = map[string]model.Item{}
	}
	b.tables[table][b.keyText(table, func(n string) string { return it[n].S })] = it
}

func (b *Backend) del(table string, key map[string]string) {
	delete(b.tables[table], b.keyText(table, func(n string) string { return key[n] }))
}

// sorted returns table's items in key order, as an emulator scans them.
func (b *Backend) sorted(table string) []model.Item {
	keys := slices.Sorted(maps.Keys(b.tables[table]))
	items := make([]model.Item, len(keys))
	for i, k := range keys {
		items[i] = b.tables[table][k]
	}
	return items
}

// accounts returns the account items in key order.
func (b *Backend) accounts() []model.Item {
	var out []model.Item
	for _, it := range b.sorted(b.schema.Table) {
		if (model.Classifier{Schema: &b.schema}).Classify(b.schema.Table, it).Kind == model.EntryAccount {
			out = append(out, it)
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

// judge builds the views of account items, as dynamo.Store.Judge does:
// each lock read by its key, a lock's owner read to tell foreign from
// duplicate, TTLs judged at the backend's time (Clock), and accounts of
// one page that share a value marked.
func (b *Backend) judge(items []model.Item) []model.AccountView {
	sc := &b.schema
	lockAt := func(r model.KeyRef) (model.Item, bool) {
		it := b.get(r.Table, r.Key)
		return it, it != nil
	}
	holds := func(owner string, ci int, v string) bool {
		it := b.get(sc.Table, sc.AccountKey(owner))
		h, ov := sc.Held(ci, it)
		return it != nil && h == model.HoldsValue && ov == v
	}
	views := make([]model.AccountView, len(items))
	held := map[string]int{}
	now := model.Epoch(b.now())
	for i, it := range items {
		views[i] = model.Classifier{Schema: sc}.Judge(it, lockAt, holds, now)
		for _, l := range views[i].Locks {
			if l.Value != "" {
				held[fmt.Sprint(l.Constraint, l.Value)]++
			}
		}
	}
	for i := range views {
		views[i].MarkDuplicates(func(ci int, v string) bool { return held[fmt.Sprint(ci, v)] > 1 })
	}
	return views
}

// AccountsPage returns the accounts from where from left off, in key order.
func (b *Backend) AccountsPage(ctx context.Context, from backend.Cursor, want int, consistent bool) (backend.AccountPage, error) {
	err := b.called("AccountsPage")
	defer b.mu.Unlock()
	if err != nil {
		return backend.AccountPage{}, err
	}
	items, next := page(b, b.accounts(), from, want)
	return backend.AccountPage{Accounts: b.judge(items), Next: next}, ctx.Err()
}

// LocksPage returns the lock items from where from left off: those of the
// account table, then each lock table's, in key order.
func (b *Backend) LocksPage(ctx context.Context, from backend.Cursor, want int) (backend.LockPage, error) {
	err := b.called("LocksPage")
	defer b.mu.Unlock()
	if err != nil {
		return backend.LockPage{}, err
	}
	sc := &b.schema
	var locks []model.Lock
	for _, table := range sc.Tables() {
		for _, it := range b.sorted(table) {
			if e := (model.Classifier{Schema: sc}).Classify(table, it); e.Kind == model.EntryLock {
				lt, key := sc.LockKeyAs(e.Constraint, e.Value, e.Alt)
				locks = append(locks, model.Lock{Constraint: e.Constraint, Value: e.Value, Table: lt, Key: key, Item: it, Owner: e.Owner,
					ExpiresAt: sc.LockTTL(e.Constraint, it)})
			}
		}
	}
	got, next := page(b, locks, from, want)
	return backend.LockPage{Locks: got, Next: next}, ctx.Err()
}

// Account reads one account by its key value.
func (b *Backend) Account(ctx context.Context, id string) (model.AccountView, bool, error) {
	b.called("Account")
	defer b.mu.Unlock()
	return b.account(id)
}

func (b *Backend) account(id string) (model.AccountView, bool, error) {
	sc := &b.schema
	it := b.get(sc.Table, sc.AccountKey(id))
	if it == nil || (model.Classifier{Schema: sc}).Classify(sc.Table, it).Kind != model.EntryAccount {
		return model.AccountView{}, false, nil
	}
	return b.judge([]model.Item{it})[0], true, nil
}

// Lock reads the lock of constraint ci for value v, normalized first.
func (b *Backend) Lock(ctx context.Context, ci int, v string) (model.Item, bool, error) {
	return b.LockAt(ctx, ci, b.schema.Constraints[ci].Normalize.Apply(v))
}

// LockAt reads the lock of constraint ci whose key holds raw.
func (b *Backend) LockAt(ctx context.Context, ci int, raw string) (model.Item, bool, error) {
	b.called("LockAt")
	defer b.mu.Unlock()
	it := b.lockAt(ci, raw)
	return it, it != nil, ctx.Err()
}

// lockAt is the lock of constraint ci whose key holds raw, in either
// spelling; nil when there is none.
func (b *Backend) lockAt(ci int, raw string) model.Item {
	lock, _, _ := model.Classifier{Schema: &b.schema}.FindLock(ci, raw, func(r model.KeyRef) (model.Item, bool) {
		it := b.get(r.Table, r.Key)
		return it, it != nil
	})
	return lock
}

// holderIDs returns the accounts that hold normalized value v of
// constraint ci, sorted, and how many items a filtered scan examines to
// find them: every item of the account table, as the store's does.
func (b *Backend) holderIDs(ci int, v string) ([]string, int64) {
	var ids []string
	all := b.accounts()
	for _, it := range all {
		if h, hv := b.schema.Held(ci, it); h == model.HoldsValue && hv == v {
			ids = append(ids, it[b.schema.PK].S)
		}
	}
	return ids, int64(len(b.tables[b.schema.Table]))
}

// Holders finds, for each constraint of cis, the accounts that hold value
// v, and reports the items read as the store's one scan would: every
// item once (the fake walks them per constraint; the count is the same).
func (b *Backend) Holders(ctx context.Context, cis []int, v string, progress func(scanned int64)) ([][]string, error) {
	b.called("Holders")
	defer b.mu.Unlock()
	ids := make([][]string, len(cis))
	var read int64
	for i, ci := range cis {
		ids[i], read = b.holderIDs(ci, b.schema.Constraints[ci].Normalize.Apply(v))
	}
	if progress != nil && len(cis) > 0 {
		progress(read)
	}
	return ids, ctx.Err()
}

// ReadConsistent hands each item found at refs to visit.
func (b *Backend) ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error {
	b.called("ReadConsistent")
	var found []model.KeyRef
	var items []model.Item
	for _, r := range refs {
		if it := b.get(r.Table, r.Key); it != nil {
			found, items = append(found, r), append(items, it)
		}
	}
	b.mu.Unlock() // visit may call back
	for i, r := range found {
		visit(r.Table, items[i])
	}
	return ctx.Err()
}

// Check reconciles every item of every table into problems. The backend is
// consistent, so every candidate is confirmed as it is.
func (b *Backend) Check(ctx context.Context, progress func(model.CheckProgress)) (model.Report, error) {
	if err := b.called("Check"); err != nil {
		b.mu.Unlock()
		return model.Report{}, err
	}
	census := model.NewCensus(&b.schema, model.Epoch(b.now()))
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

func (b *Backend) mustAccount(id string) (model.AccountView, error) {
	a, found, err := b.account(id)
	if err == nil && !found {
		err = &model.FieldError{Field: "account", Msg: "no account " + model.Quote(id)}
	}
	return a, err
}

// PlanRename plans changing account id's unique attributes.
func (b *Backend) PlanRename(ctx context.Context, id string, changes map[string]string, others model.OthersHold, seen model.Item) (model.Plan, error) {
	b.called("PlanRename")
	defer b.mu.Unlock()
	a, err := b.mustAccount(id)
	if err != nil {
		return model.Plan{}, err
	}
	return model.Planner{Schema: &b.schema}.Rename(a, changes, others, seen)
}

// PlanDelete plans deleting account id with its locks.
func (b *Backend) PlanDelete(ctx context.Context, id string, others model.OthersHold, seen model.Item) (model.Plan, error) {
	b.called("PlanDelete")
	defer b.mu.Unlock()
	a, err := b.mustAccount(id)
	if err != nil {
		return model.Plan{}, err
	}
	return model.Planner{Schema: &b.schema}.Delete(a, others, seen)
}

// PlanRepair plans the repair of p as it stands now, by the rules of
// dynamo.Store.PlanRepair.
func (b *Backend) PlanRepair(ctx context.Context, p model.Problem) (backend.Repair, error) {
	b.called("PlanRepair")
	defer b.mu.Unlock()
	sc := &b.schema
	r := backend.Repair{Problem: p}
	at := model.Epoch(b.now())
	fresh := model.NewCensus(sc, at)
	for _, ref := range (model.Classifier{Schema: sc}).Involved(p) {
		if it := b.get(ref.Table, ref.Key); it != nil {
			fresh.Add(ref.Table, it)
		}
	}
	now := model.Confirm([]model.Problem{p}, fresh)
	if r.Skip = p.LeftToAPerson(); r.Skip != "" {
		return r, nil
	}
	if len(now) == 0 {
		r.Skip = backend.SkipGone
		return r, nil
	}
	p = now[0]
	r.Problem = p
	if r.Skip = p.LeftToAPerson(); r.Skip != "" {
		return r, nil
	}
	lock := b.lockAt(p.ConstraintIndex(), p.Value)
	var err error
	switch {
	case p.Kind == model.OrphanLock:
		r.Plan, err = model.Planner{Schema: sc}.RepairOrphan(p, lock, model.ReclaimPrefix+backend.NewToken())
	case p.Kind == model.ExpiredLock && len(p.Accounts) == 0:
		r.Plan, err = model.Planner{Schema: sc}.RepairExpired(p, lock, at)
	case model.TTLKind(p.Kind):
		var holder model.AccountView
		if holder, err = b.mustAccount(p.Keeper()); err != nil {
			return r, err
		}
		r.Plan, err = model.Planner{Schema: sc}.RepairForGood(p, lock, holder)
	default:
		var holder model.AccountView
		if holder, err = b.mustAccount(p.Accounts[0]); err != nil {
			return r, err
		}
		if p.Kind == model.MissingLock {
			r.Plan, err = model.Planner{Schema: sc}.RepairMissing(p, holder)
		} else {
			r.Plan, err = model.Planner{Schema: sc}.RepairForeign(p, lock, holder)
		}
	}
	return r, err
}

// LookupHolders reads every account for the holders of the wanted values.
func (b *Backend) LookupHolders(ctx context.Context, wanted []backend.Wanted) (backend.HolderLookup, error) {
	b.called("LookupHolders")
	defer b.mu.Unlock()
	found := b.lookup(wanted, nil)
	found.Method = backend.ScanMethod
	return found, ctx.Err()
}

// ConfirmHolders reads the candidates for the holders of the wanted values.
func (b *Backend) ConfirmHolders(ctx context.Context, wanted []backend.Wanted, candidates map[backend.Wanted][]string) (backend.HolderLookup, error) {
	b.called("ConfirmHolders")
	defer b.mu.Unlock()
	found := b.lookup(wanted, candidates)
	found.Method = "the check's findings, confirmed by consistent reads"
	return found, ctx.Err()
}

// lookup finds the holders of each wanted value, among the candidates when
// there are any, and whether its lock exists.
func (b *Backend) lookup(wanted []backend.Wanted, candidates map[backend.Wanted][]string) backend.HolderLookup {
	found := backend.NewLookup("")
	for _, w := range wanted {
		ids, read := b.holderIDs(w.Constraint, w.Value)
		if candidates != nil {
			ids = slices.DeleteFunc(ids, func(id string) bool { return !slices.Contains(candidates[w], id) })
			read = int64(len(candidates[w]))
		}
		found.ItemsRead += read
		if len(ids) > 0 {
			found.Holders[w] = ids
		}
		found.FoundLock(&b.schema, w, b.lockAt(w.Constraint, w.Value))
	}
	return found
}

// Refuse reports plan p as cancelled because other accounts hold values it
// would lock.
func (b *Backend) Refuse(p model.Plan, taken []backend.Taken) model.Result {
	return b.prep.Refuse(p, taken)
}

// Prepare builds the exact request of a plan, as dynamo.Store does.
func (b *Backend) Prepare(p model.Plan, token string) (backend.Tx, error) {
	return b.prep.Prepare(p, token)
}

// Execute applies tx's actions if every condition holds, or none of them,
// with the failed ones explained slot by slot. An ownerless orphan's
// repair runs its three steps.
func (b *Backend) Execute(ctx context.Context, tx backend.Tx) (model.Result, error) {
	failure := b.called("Execute")
	hold, arrived := b.hold, b.arrived
	b.mu.Unlock()
	if hold != nil {
		select {
		case <-arrived:
		default:
			close(arrived)
		}
		<-hold
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	res := model.Result{Operation: tx.Plan.Operation, Keys: tx.Plan.Keys, Token: tx.Token, Reasons: []model.Reason{}}
	if failure != nil {
		// As the store reports a connection that could not be made.
		res.Outcome = model.NotSent
		return res, failure
	}
	if !b.writable {
		res.Outcome = model.Refused
		return res, backend.ErrReadOnly
	}
	r := tx.Plan.Reclaim
	if r == nil || !r.Resume {
		if res.Outcome = b.send(tx.Plan, &res); res.Outcome != model.Committed || r == nil {
			return res, nil
		}
	}
	// The rest of a reclaim, as the store's, in a transaction of its own:
	// look for holders again, then delete the lock or give it back.
	found := b.lookup([]backend.Wanted{{Constraint: r.Constraint, Value: r.Value}}, nil)
	found.Method = backend.ScanMethod
	l := dynamo.ReclaimLookup{Reclaim: *r, Found: found}
	step := l.Step(&b.schema, tx.Plan.Keys)
	res = model.Result{Operation: step.Operation, Keys: step.Keys, Token: backend.NewToken(), Reasons: []model.Reason{}}
	res.Outcome = b.send(step, &res)
	return l.Done(&b.schema, res), nil
}

// send is one transaction arriving: plan p's, under res's token. It
// journals the items p changes as they are before, applies p (or, for a
// lost write, nothing), and journals the outcome.
func (b *Backend) send(p model.Plan, res *model.Result) model.Outcome {
	b.tokens = append(b.tokens, res.Token)
	b.journal = append(b.journal, dynamo.Undoable{Record: model.UndoRecord{Token: res.Token, Operation: p.Operation,
		Table: b.schema.Table, Endpoint: b.prep.Endpoint.String(), Keys: append([]string{}, p.Keys...), Undoes: p.Undoes,
		Items: model.UndoItems(p, b.get)}})
	outcome := model.Unknown
	if b.lost > 0 {
		b.lost--
		res.Reasons = []model.Reason{{Slot: -1, Code: "Unknown", Message: "no answer came (uitest.LoseWrites)"}}
	} else {
		outcome = b.transact(p, res)
	}
	b.journal[len(b.journal)-1].Outcome = outcome
	return outcome
}

// transact applies p's actions if every condition holds and says
// committed; otherwise it applies none (but see LeakCancelled), and says
// skipped for a repair whose effect is there already
// (model.Schema.AlreadyRepaired), as the store does, or puts each failed
// condition in words in res and says cancelled.
func (b *Backend) transact(p model.Plan, res *model.Result) model.Outcome {
	sc := &b.schema
	var failed []model.Failure
	var held []model.Action
	for i, a := range p.Actions {
		if now := b.get(a.Table, a.Key); !conditionsHold(a.Conds, now) {
			res.Reasons = append(res.Reasons, model.Reason{Slot: i, Action: a.Purpose(sc), Code: "ConditionalCheckFailed", Message: model.Classifier{Schema: sc}.Explain(a, now)})
			failed = append(failed, model.Failure{Slot: i, Code: "ConditionalCheckFailed", Now: now})
		} else {
			held = append(held, a)
		}
	}
	if note, ok := (model.Classifier{Schema: sc}).AlreadyRepaired(p, failed); ok {
		res.Reasons, res.Note = []model.Reason{}, note
		return model.Skipped
	}
	if len(res.Reasons) > 0 {
		if b.leaks > 0 {
			b.leaks--
			b.apply(held)
		}
		return model.Cancelled
	}
	b.apply(p.Actions)
	return model.Committed
}

// apply writes what actions do to the items at their keys.
func (b *Backend) apply(actions []model.Action) {
	for _, a := range actions {
		switch after := model.After(a, b.get(a.Table, a.Key)); {
		case a.Kind == model.ActCheck:
		case after == nil:
			b.del(a.Table, a.Key)
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
// committed one, from the journal, as dynamo.Store does from its own.
func (b *Backend) UndoToken(ctx context.Context, token string) (model.Plan, error) {
	if err := b.called("UndoToken"); err != nil {
		b.mu.Unlock()
		return model.Plan{}, err
	}
	defer b.mu.Unlock()
	journal := slices.Clone(b.journal)
	dynamo.MarkUndone(journal)
	u, err := b.prep.FindUndoable(journal, token)
	if err != nil {
		return model.Plan{}, err
	}
	return u.Plan(&b.schema, b.get)
}

// numberNotAfter compares two DynamoDB numbers, a <= b.
func numberNotAfter(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	return errA == nil && errB == nil && x <= y
}

// conditionsHold evaluates an action's conditions on the item now at its
// key (nil: none), as DynamoDB would.
func conditionsHold(conds []model.Cond, now model.Item) bool {
	for _, c := range conds {
		v, present := now[c.Attr]
		same := present && v.DynamoJSON() == c.Value.DynamoJSON()
		var ok bool
		switch c.Kind {
		case model.CondNotExists:
			ok = !present
		case model.CondExists:
			ok = present
		case model.CondAbsentOrDiffers:
			_, exists := now[c.Key]
			ok = !exists || !same
		case model.CondFreeOrExpired:
			ok = !present || model.ReadLease(now, c.TTL).Verdict(c.Now) == model.TTLExpired
		case model.CondEquals:
			ok = same
			if c.Absent {
				ok = !present
			}
		case model.CondNotAfter:
			ok = present && v.Kind == model.KindN && c.Value.Kind == model.KindN && numberNotAfter(v.S, c.Value.S)
		}
		if !ok {
			return false
		}
	}
	return true
}

// PartitionPage returns the items of the account table under partition
// key value pk, in key order, from where from left off.
func (b *Backend) PartitionPage(ctx context.Context, pk string, from backend.Cursor, want int) (backend.ItemPage, error) {
	err := b.called("PartitionPage")
	defer b.mu.Unlock()
	if err != nil {
		return backend.ItemPage{}, err
	}
	var items []model.Item
	for _, it := range b.sorted(b.schema.Table) {
		if v := it[b.schema.PK]; v.Kind == model.KindS && v.S == pk {
			items = append(items, maps.Clone(it))
		}
	}
	got, next := page(b, items, from, want)
	return backend.ItemPage{Items: got, Next: next}, ctx.Err()
}

// OthersPage returns the items of the account table that are neither
// accounts nor locks, in key order, from where from left off.
func (b *Backend) OthersPage(ctx context.Context, from backend.Cursor, want int) (backend.ItemPage, error) {
	err := b.called("OthersPage")
	defer b.mu.Unlock()
	if err != nil {
		return backend.ItemPage{}, err
	}
	sc := &b.schema
	var items []model.Item
	for _, it := range b.sorted(sc.Table) {
		if (model.Classifier{Schema: sc}).Classify(sc.Table, it).Kind == model.EntryOther {
			items = append(items, maps.Clone(it))
		}
	}
	got, next := page(b, items, from, want)
	return backend.ItemPage{Items: got, Next: next}, ctx.Err()
}
