package backend

import (
	"context"
	"fmt"

	"github.com/locktable/locktable/model"
)

// Reader reads items by their keys with strongly consistent reads,
// handing each item found to visit, one call at a time. *dynamo.Pages is
// one; the terminal UI's in-memory fake is another, so that both judge
// accounts, find locks, confirm holders and plan repairs by the same
// code.
type Reader interface {
	ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error
}

// readKeys reads refs and returns what was found at each.
func readKeys(ctx context.Context, sc *model.Schema, src Reader, refs []model.KeyRef) (func(model.KeyRef) (model.Item, bool), error) {
	found := map[string]model.Item{}
	err := src.ReadConsistent(ctx, refs, func(table string, it model.Item) {
		found[model.KeyRef{Table: table, Key: sc.KeyOf(table, it)}.ID()] = it
	})
	return func(r model.KeyRef) (model.Item, bool) {
		it, ok := found[r.ID()]
		return it, ok
	}, err
}

// Unread returns each account's view under sc before its locks are read
// (model.Classifier.Unread), at now (epoch seconds): the first rows,
// drawn while Judge reads their locks.
func Unread(sc *model.Schema, accounts []model.Item, now int64) []model.AccountView {
	views := make([]model.AccountView, len(accounts))
	for i, it := range accounts {
		views[i] = model.Classifier{Schema: sc}.Unread(it, now)
	}
	return views
}

// Judge reads, with strongly consistent reads, the locks the accounts
// should have, and the owners those locks name when they are other
// accounts, and returns each account's view under sc, its locks' TTLs
// judged at now (epoch seconds, the time of the reads).
func Judge(ctx context.Context, sc *model.Schema, src Reader, accounts []model.Item, now int64) ([]model.AccountView, error) {
	expected := make([][]model.KeyRef, len(accounts)) // per account
	var refs []model.KeyRef
	for i, it := range accounts {
		expected[i] = model.Classifier{Schema: sc}.ExpectedLocks(it)
		refs = append(refs, expected[i]...)
	}
	lockAt, err := readKeys(ctx, sc, src, refs)
	if err != nil {
		return nil, err
	}
	// Owners that are other accounts decide foreign against duplicate.
	var ownerRefs []model.KeyRef
	for i, it := range accounts {
		id := sc.AccountID(it)
		for _, r := range expected[i] {
			if l, ok := lockAt(r); ok {
				if o, ok := l[sc.OwnerAttr]; ok && o.Kind == model.KindS && o.S != id && o.S != "" {
					ownerRefs = append(ownerRefs, model.KeyRef{Table: sc.Table, Key: sc.AccountKey(o.S)})
				}
			}
		}
	}
	owners := map[string]model.Item{}
	if len(ownerRefs) > 0 {
		if err := src.ReadConsistent(ctx, ownerRefs, func(_ string, it model.Item) { owners[sc.AccountID(it)] = it }); err != nil {
			return nil, err
		}
	}
	holds := func(owner string, ci int, v string) bool {
		it, ok := owners[owner]
		if !ok {
			return false
		}
		h, ov := sc.Held(ci, it)
		return h == model.HoldsValue && ov == v
	}
	views := make([]model.AccountView, len(accounts))
	for i, it := range accounts {
		views[i] = model.Classifier{Schema: sc}.Judge(it, lockAt, holds, now)
	}
	MarkShared(views)
	return views, nil
}

// MarkShared marks duplicate the sound locks of values that two or more
// of views hold: accounts on one page that share a value are duplicates
// whatever the check has found so far.
func MarkShared(views []model.AccountView) {
	type held struct {
		ci int
		v  string
	}
	seen := map[held]int{}
	for _, v := range views {
		for _, l := range v.Locks {
			if l.Value != "" {
				seen[held{l.Constraint, l.Value}]++
			}
		}
	}
	for i := range views {
		views[i].MarkDuplicates(func(ci int, v string) bool { return seen[held{ci, v}] > 1 })
	}
}

// ReadAccount reads account id with a consistent read and judges it
// (Judge) at now; found is false when there is none.
func ReadAccount(ctx context.Context, sc *model.Schema, src Reader, id string, now int64) (view model.AccountView, found bool, err error) {
	var items []model.Item
	err = src.ReadConsistent(ctx, []model.KeyRef{{Table: sc.Table, Key: sc.AccountKey(id)}},
		func(_ string, it model.Item) { items = append(items, it) })
	if err != nil || len(items) == 0 || (model.Classifier{Schema: sc}).Classify(sc.Table, items[0]).Kind != model.EntryAccount {
		return model.AccountView{}, false, err
	}
	views, err := Judge(ctx, sc, src, items, now)
	if err != nil {
		return model.AccountView{}, false, err
	}
	return views[0], true, nil
}

// LockAt reads the lock of constraint ci whose key holds raw exactly as
// stored (an orphan's key may not be in normal form), with a consistent
// read, in either spelling (model.Classifier.FindLock).
func LockAt(ctx context.Context, sc *model.Schema, src Reader, ci int, raw string) (model.Item, bool, error) {
	read, err := readKeys(ctx, sc, src, sc.LockKeys(ci, raw))
	lock, _, found := model.Classifier{Schema: sc}.FindLock(ci, raw, read)
	return lock, found, err
}

// PlanRepair re-reads what problem p involves with consistent reads and
// plans its repair under sc, judging TTLs at now (epoch seconds: expired
// means expired now, not at the check): orphan locks deleted, missing
// locks put, foreign locks handed to their one holder, expired locks
// nobody holds deleted and the others made permanent for their holder.
// Duplicates, invalid values and problems with several holders are left
// to a person; a problem the reads no longer show is skipped as gone, and
// one whose holder changed its value since those reads is skipped too.
func PlanRepair(ctx context.Context, sc *model.Schema, src Reader, p model.Problem, now int64) (Repair, error) {
	r := Repair{Problem: p}
	if r.Skip = p.LeftToAPerson(); r.Skip != "" {
		return r, nil
	}
	// Re-confirm from fresh reads: the same rules as the check. An orphan
	// that names no owner (or a claim) was confirmed by the check's index
	// lookup or second scan; its repair claims the lock and looks again
	// (model.Reclaim), since an article-style signup can re-create it.
	fresh := model.NewCensus(sc, now)
	if err := src.ReadConsistent(ctx, model.Classifier{Schema: sc}.Involved(p), fresh.Add); err != nil {
		return r, err
	}
	confirmed := model.Confirm([]model.Problem{p}, fresh)
	if len(confirmed) == 0 {
		r.Skip = SkipGone
		return r, nil
	}
	p = confirmed[0]
	r.Problem = p
	if r.Skip = p.LeftToAPerson(); r.Skip != "" {
		return r, nil
	}
	// The lock as it is now: its raw key, which for an orphan may not be
	// in normal form.
	lock, _, err := LockAt(ctx, sc, src, p.ConstraintIndex(), p.Value)
	if err != nil {
		return r, err
	}
	planner := model.Planner{Schema: sc}
	holderID := ""
	switch {
	case p.Kind == model.OrphanLock:
		r.Plan, err = planner.RepairOrphan(p, lock, model.ReclaimPrefix+NewToken())
		return r, err
	case model.TTLKind(p.Kind) && len(p.Accounts) == 0:
		r.Plan, err = planner.RepairExpired(p, lock, now)
		return r, err
	case model.TTLKind(p.Kind):
		holderID = p.Keeper()
	case p.Kind == model.MissingLock || p.Kind == model.ForeignLock:
		holderID = p.Accounts[0]
	default:
		return r, nil
	}
	holder, found, err := ReadAccount(ctx, sc, src, holderID, now)
	if err == nil && !found {
		err = noAccount(sc, holderID, "")
	}
	if err != nil {
		return r, err
	}
	// The guard checks the holder's value as read here: it must still be
	// the value, or the repair would lock one nobody holds.
	if h, v := sc.Held(p.ConstraintIndex(), holder.Item); h != model.HoldsValue || v != p.Value {
		r.Skip = "the holder changed its value since the check: check again"
		return r, nil
	}
	switch p.Kind {
	case model.MissingLock:
		r.Plan, err = planner.RepairMissing(p, holder)
	case model.ForeignLock:
		r.Plan, err = planner.RepairForeign(p, lock, holder)
	default:
		r.Plan, err = planner.RepairForGood(p, lock, holder)
	}
	return r, err
}

// noAccount is the error for account id missing from sc's table, at
// where (" at ENDPOINT", or "").
func noAccount(sc *model.Schema, id, where string) error {
	return &model.FieldError{Field: "account", Msg: fmt.Sprintf("no account %s in table %q%s", model.Quote(id), sc.Table, where)}
}
