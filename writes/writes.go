// Package writes runs every write locktable sends, for the CLI and the
// terminal UI alike: it plans the write, looks for other holders of the
// values it locks, prepares the request (its token, and its words, built
// from the request itself), and sends it; the store settles, records and
// reports the outcome. cli and ui/write are adapters: they parse input
// and render what this package returns, and neither builds a plan, looks
// up holders or calls the store's write methods.
package writes

import (
	"context"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// Store is what a write asks of the tables. *dynamo.Store satisfies it,
// and so does the UI's in-memory fake.
type Store interface {
	PlanRename(ctx context.Context, id string, changes map[string]string, others model.OthersHold, seen model.Item) (model.Plan, error)
	PlanDelete(ctx context.Context, id string, others model.OthersHold, seen model.Item) (model.Plan, error)
	PlanRepair(ctx context.Context, p model.Problem) (backend.Repair, error)
	LookupHolders(ctx context.Context, wanted []backend.Wanted) (backend.HolderLookup, error)
	ConfirmHolders(ctx context.Context, wanted []backend.Wanted, candidates map[backend.Wanted][]string) (backend.HolderLookup, error)
	Refuse(p model.Plan, taken []backend.Taken) model.Result
	Prepare(p model.Plan, token string) (backend.Tx, error)
	Execute(ctx context.Context, tx backend.Tx) (model.Result, error)
	// UndoFrom plans the undo of the write with token ("": the last
	// committed write of the table) from the undo journal at path ("":
	// the store's own).
	UndoFrom(ctx context.Context, path, token string) (model.Plan, error)
}

// Flow runs writes on one store, under one schema.
type Flow struct {
	Store  Store
	Schema *model.Schema
}

// Holders says how a write looks for accounts that hold a value it would
// lock while that value's lock is missing (PATTERN.md, "Other holders").
type Holders struct {
	// Skip sends without looking (--skip-holder-lookup); the lookup's
	// words say so.
	Skip bool
	// Candidates, from a finished check, name the accounts that may hold
	// each value without its lock: they are read again consistently.
	// Nil: the store's own lookup (the --index GSI, or a consistent scan).
	Candidates map[backend.Wanted][]string
}

// FromReport is the lookup a finished check allows: its missing locks,
// duplicates and expired or expiring locks (which a guard may take over)
// name the accounts to read again. A nil report (no check finished yet)
// leaves the lookup to the store.
func FromReport(r *model.Report) Holders {
	if r == nil {
		return Holders{}
	}
	candidates := map[backend.Wanted][]string{}
	for _, p := range r.Problems {
		switch p.Kind {
		case model.MissingLock, model.DuplicateValue, model.ExpiredLock, model.ExpiringLock:
			w := backend.Wanted{Constraint: p.ConstraintIndex(), Value: p.Value}
			candidates[w] = append(candidates[w], p.Accounts...)
		}
	}
	return Holders{Candidates: candidates}
}

// Write is one write, prepared to send, or why it is not sent.
type Write struct {
	// Tx is the request, exactly as it will be sent, with its words
	// (Tx.Slots); zero when the write is refused or skipped.
	Tx backend.Tx
	// Lookup is what the holder lookup did; none ran (Lookup.Ran and
	// Lookup.Skipped false) where the write locks no new value.
	Lookup Lookup
	// Refused is the outcome of a write cancelled before sending: a
	// value it would lock is held by another account without its lock.
	// The store has recorded it.
	Refused *model.Result
	// Skip says why a repair is not made (a person decides, or it is
	// fixed already); Problem is the repair's problem as reconfirmed.
	Skip    string
	Problem model.Problem
}

// Ready reports whether w is to be sent.
func (w Write) Ready() bool { return w.Refused == nil && w.Skip == "" }

// Signup plans a new account id ("" for a key from attrs' id attribute,
// else a fresh one) holding attrs, with its locks.
func (f Flow) Signup(ctx context.Context, id string, attrs map[string]string, h Holders) (Write, error) {
	if id == "" {
		ids := model.AccountIDs{Schema: f.Schema}
		var ok bool
		if id, ok = ids.SignupKey(attrs); !ok {
			id = ids.New()
		}
	}
	p, err := model.Planner{Schema: f.Schema}.Signup(id, attrs)
	if err != nil {
		return Write{}, err
	}
	return f.cleared(ctx, p, h)
}

// Rename plans changing account id's unique attributes to changes,
// guarded on seen, the account as a person was shown it (nil headless:
// guarded on the changed attributes as read now). others says which
// values other accounts are known to hold.
func (f Flow) Rename(ctx context.Context, id string, changes map[string]string, seen model.Item, others model.OthersHold, h Holders) (Write, error) {
	p, err := f.Store.PlanRename(ctx, id, changes, others, seen)
	if err != nil {
		return Write{}, err
	}
	return f.cleared(ctx, p, h)
}

// Delete plans deleting account id and releasing its locks, guarded on
// seen as Rename is.
func (f Flow) Delete(ctx context.Context, id string, seen model.Item, others model.OthersHold) (Write, error) {
	p, err := f.Store.PlanDelete(ctx, id, others, seen)
	if err != nil {
		return Write{}, err
	}
	return f.prepare(p)
}

// Repair re-reads what problem p involves and plans its repair; where a
// person decides, or the problem is gone, Write.Skip says why.
func (f Flow) Repair(ctx context.Context, p model.Problem) (Write, error) {
	r, err := f.Store.PlanRepair(ctx, p)
	if err != nil {
		return Write{}, err
	}
	if r.Skip != "" {
		return Write{Skip: r.Skip, Problem: r.Problem}, nil
	}
	w, err := f.prepare(r.Plan)
	w.Problem = r.Problem
	return w, err
}

// Undo plans taking back the write with token ("": the last committed
// write of the table), from the undo journal at path ("": the store's
// own): the items it changed set back, guarded by their being as it left
// them. A lock it puts back is cleared like a signup's.
func (f Flow) Undo(ctx context.Context, path, token string, h Holders) (Write, error) {
	p, err := f.Store.UndoFrom(ctx, path, token)
	if err != nil {
		return Write{}, err
	}
	return f.cleared(ctx, p, h)
}

// Unsent is the outcome of a write that is not Ready, which nothing
// sends: cancelled by the holder lookup, or a repair skipped.
func (w Write) Unsent() model.Result {
	if w.Refused != nil {
		return *w.Refused
	}
	return model.Result{Operation: "repair", Keys: problemKeys(w.Problem), Outcome: model.Skipped, Reasons: []model.Reason{},
		Note: string(w.Problem.Kind) + " " + w.Problem.Constraint + "=" + w.Problem.Value + ": " + w.Skip}
}

// Send sends a prepared write and returns its outcome, settled and
// recorded by the store (see dynamo.Store.Execute). A write that is not
// Ready is not sent: its outcome is Unsent.
func (f Flow) Send(ctx context.Context, w Write) (model.Result, error) {
	if !w.Ready() {
		return w.Unsent(), nil
	}
	return f.Store.Execute(ctx, w.Tx)
}

// prepare gives plan p its token and its request.
func (f Flow) prepare(p model.Plan) (Write, error) {
	tx, err := f.Store.Prepare(p, backend.NewToken())
	if err != nil {
		return Write{}, err
	}
	return Write{Tx: tx}, nil
}

// cleared prepares plan p after looking for other holders of the values
// it locks: a value another account holds without its lock is refused,
// and the refusal recorded, before anything is sent.
func (f Flow) cleared(ctx context.Context, p model.Plan, h Holders) (Write, error) {
	w, err := f.prepare(p)
	if err != nil {
		return w, err
	}
	values := backend.NewValues(p)
	if len(values) == 0 {
		return w, nil
	}
	w.Lookup = Lookup{Skipped: h.Skip, values: valueNames(f.Schema, values)}
	if h.Skip {
		return w, nil
	}
	var found backend.HolderLookup
	if h.Candidates != nil {
		found, err = f.Store.ConfirmHolders(ctx, values, h.Candidates)
	} else {
		found, err = f.Store.LookupHolders(ctx, values)
	}
	if err != nil {
		return w, err
	}
	w.Lookup.Ran, w.Lookup.Found = true, found
	// The prepared plan: its guards judge a lock's TTL at the second the
	// request was built, and so must the lookup.
	w.Lookup.findings = backend.Findings(f.Schema, w.Tx.Plan, found)
	if taken := backend.TakenValues(w.Tx.Plan, found); len(taken) > 0 {
		res := f.Store.Refuse(p, taken)
		w.Refused = &res
	}
	return w, nil
}

func problemKeys(p model.Problem) []string {
	keys := append([]string{}, p.Accounts...)
	if p.Owner != "" {
		keys = append(keys, p.Owner)
	}
	return keys
}
