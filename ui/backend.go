package ui

import (
	"context"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

// Backend is what the terminal UI asks of the tables: exactly the calls it
// makes. Backend satisfies it; Update tests run against an in-memory
// fake (ui/uitest), and only end-to-end tests need an emulator.
type Backend interface {
	// AccountsPage reads at least want accounts, with their locks, from
	// where from left off.
	AccountsPage(ctx context.Context, from dynamo.Cursor, want int, consistent bool) (dynamo.AccountPage, error)
	// LocksPage reads at least want lock items from where from left off.
	LocksPage(ctx context.Context, from dynamo.Cursor, want int) (dynamo.LockPage, error)
	// Account reads one account by its key value, consistently.
	Account(ctx context.Context, id string) (view model.AccountView, found bool, err error)
	// Lock reads the lock of constraint ci for value v, normalized first.
	Lock(ctx context.Context, ci int, v string) (model.Item, bool, error)
	// Holders finds the accounts that hold value v of constraint ci.
	Holders(ctx context.Context, ci int, v string, progress func(scanned int64)) ([]model.AccountView, error)
	// Find looks for what a person typed: an account key, a lock key or a
	// value of a unique attribute, and says how it looked.
	Find(ctx context.Context, q string, o dynamo.FindOptions) (dynamo.Found, error)
	// ReadConsistent reads items by key with strongly consistent reads.
	ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error
	// Check scans every table and reports the confirmed problems.
	Check(ctx context.Context, progress func(dynamo.CheckProgress)) (model.Report, error)

	// Writable reports whether writes are allowed.
	Writable() bool
	// PlanRename, PlanDelete and PlanRepair read what a write involves,
	// consistently, and plan its guarded transaction.
	PlanRename(ctx context.Context, id string, changes map[string]string, others model.OthersHold) (model.Plan, error)
	PlanDelete(ctx context.Context, id string, others model.OthersHold) (model.Plan, error)
	PlanRepair(ctx context.Context, p model.Problem) (dynamo.Repair, error)
	// LookupHolders and ConfirmHolders look for other holders of the
	// values a signup or rename would lock; Refuse reports (and records)
	// a plan refused because of them.
	LookupHolders(ctx context.Context, wanted []dynamo.Wanted) (dynamo.HolderLookup, error)
	ConfirmHolders(ctx context.Context, wanted []dynamo.Wanted, candidates map[dynamo.Wanted][]string) (dynamo.HolderLookup, error)
	Refuse(p model.Plan, taken []dynamo.Taken) dynamo.Result
	// Prepare builds the exact request of a plan; Execute sends it.
	Prepare(p model.Plan, token string) (dynamo.Tx, error)
	Execute(ctx context.Context, tx dynamo.Tx) (dynamo.Result, error)
}

var _ Backend = (*dynamo.Store)(nil)
