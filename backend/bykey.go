package backend

import (
	"context"

	"github.com/locktable/locktable/model"
)

// ByKey is what a table set answers from strongly consistent reads by
// key (Src): accounts judged, locks found, holders confirmed, and writes
// planned from them. *dynamo.Store answers through one over its reads,
// and the terminal UI's in-memory fake over its maps, so that both judge
// and plan by the same code.
type ByKey struct {
	Schema *model.Schema
	Src    Reader
	// Endpoint is named where an account is missing.
	Endpoint Endpoint
	// Now is the time TTLs are judged at, in epoch seconds.
	Now func() int64
}

// Account reads one account by its key value with a consistent read;
// found is false when there is none.
func (k ByKey) Account(ctx context.Context, id string) (view model.AccountView, found bool, err error) {
	return ReadAccount(ctx, k.Schema, k.Src, id, k.Now())
}

// mustAccount is Account, with a missing account an error.
func (k ByKey) mustAccount(ctx context.Context, id string) (model.AccountView, error) {
	a, found, err := k.Account(ctx, id)
	if err == nil && !found {
		err = noAccount(k.Schema, id, " at "+k.Endpoint.String())
	}
	return a, err
}

// Lock reads the lock of constraint ci for value v, normalized first, with
// a consistent read: the lock an account holding v would have.
func (k ByKey) Lock(ctx context.Context, ci int, v string) (model.Item, bool, error) {
	return k.LockAt(ctx, ci, k.Schema.Constraints[ci].Normalize.Apply(v))
}

// LockAt reads the lock of constraint ci whose key holds raw exactly as
// stored, in either spelling (see the function LockAt).
func (k ByKey) LockAt(ctx context.Context, ci int, raw string) (model.Item, bool, error) {
	return LockAt(ctx, k.Schema, k.Src, ci, raw)
}

// ConfirmHolders reads the candidates for the holders of the wanted
// values (see the function ConfirmHolders).
func (k ByKey) ConfirmHolders(ctx context.Context, wanted []Wanted, candidates map[Wanted][]string) (HolderLookup, error) {
	return ConfirmHolders(ctx, k.Schema, k.Src, wanted, candidates)
}

// PlanRename loads account id with a consistent read and plans changing
// its unique attributes, guarded on seen where a person was shown the
// account (see model.Planner.Rename; nil headless).
func (k ByKey) PlanRename(ctx context.Context, id string, changes map[string]string, others model.OthersHold, seen model.Item) (model.Plan, error) {
	a, err := k.mustAccount(ctx, id)
	if err != nil {
		return model.Plan{}, err
	}
	return model.Planner{Schema: k.Schema}.Rename(a, changes, others, seen)
}

// PlanDelete loads account id with a consistent read and plans deleting it
// with its locks, guarded on seen where a person was shown the account
// (nil headless).
func (k ByKey) PlanDelete(ctx context.Context, id string, others model.OthersHold, seen model.Item) (model.Plan, error) {
	a, err := k.mustAccount(ctx, id)
	if err != nil {
		return model.Plan{}, err
	}
	return model.Planner{Schema: k.Schema}.Delete(a, others, seen)
}

// PlanRepair re-reads what problem p involves and plans its repair, TTLs
// judged now (see the function PlanRepair).
func (k ByKey) PlanRepair(ctx context.Context, p model.Problem) (Repair, error) {
	return PlanRepair(ctx, k.Schema, k.Src, p, k.Now())
}
