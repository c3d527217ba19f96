package dynamo

import (
	"context"
	"fmt"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// PlanRename loads account id with a consistent read and plans changing
// its unique attributes, guarded on seen where a person was shown the
// account (see model.Planner.Rename; nil headless).
func (s *Store) PlanRename(ctx context.Context, id string, changes map[string]string, others model.OthersHold, seen model.Item) (model.Plan, error) {
	a, err := s.mustAccount(ctx, id)
	if err != nil {
		return model.Plan{}, err
	}
	return model.Planner{Schema: &s.Schema}.Rename(a, changes, others, seen)
}

// PlanDelete loads account id with a consistent read and plans deleting it
// with its locks, guarded on seen where a person was shown the account
// (nil headless).
func (s *Store) PlanDelete(ctx context.Context, id string, others model.OthersHold, seen model.Item) (model.Plan, error) {
	a, err := s.mustAccount(ctx, id)
	if err != nil {
		return model.Plan{}, err
	}
	return model.Planner{Schema: &s.Schema}.Delete(a, others, seen)
}

func (s *Store) mustAccount(ctx context.Context, id string) (model.AccountView, error) {
	a, found, err := s.Account(ctx, id)
	if err != nil {
		return a, err
	}
	if !found {
		return a, &model.FieldError{Field: "account", Msg: fmt.Sprintf("no account %s in table %q at %s", model.Quote(id), s.Schema.Table, s.Endpoint)}
	}
	return a, nil
}

// PlanRepair re-reads what problem p involves with consistent reads and
// plans its repair: orphan locks deleted, missing locks put, foreign locks
// handed to their one holder. Duplicates, invalid values and problems with
// several holders are left to a person; a problem the reads no longer show
// is skipped as gone.
func (s *Store) PlanRepair(ctx context.Context, p model.Problem) (backend.Repair, error) {
	r := backend.Repair{Problem: p}
	if r.Skip = p.LeftToAPerson(); r.Skip != "" {
		return r, nil
	}
	// Re-confirm from fresh reads: the same rules as the check. An orphan
	// that names no owner (or a claim) was confirmed by the check's index
	// lookup or second scan; its repair claims the lock and looks again
	// (model.Reclaim), since an article-style signup can re-create it.
	at := model.Epoch(s.now()) // expired means expired now, not at the check
	fresh := model.NewCensus(&s.Schema, at)
	if err := s.ReadConsistent(ctx, model.Classifier{Schema: &s.Schema}.Involved(p), fresh.Add); err != nil {
		return r, err
	}
	now := model.Confirm([]model.Problem{p}, fresh)
	if len(now) == 0 {
		r.Skip = backend.SkipGone
		return r, nil
	}
	p = now[0]
	r.Problem = p
	// The lock as it is now: its raw key, which for an orphan may not be
	// in normal form.
	lock, _, err := s.LockAt(ctx, p.ConstraintIndex(), p.Value)
	if err != nil {
		return r, err
	}
	switch p.Kind {
	case model.OrphanLock:
		r.Plan, err = model.Planner{Schema: &s.Schema}.RepairOrphan(p, lock, model.ReclaimPrefix+backend.NewToken())
	case model.ExpiredLock, model.ExpiringLock:
		return s.planTTLRepair(ctx, r, lock, at)
	case model.MissingLock, model.ForeignLock:
		if r.Skip = p.LeftToAPerson(); r.Skip != "" {
			return r, nil
		}
		holder, err := s.mustAccount(ctx, p.Accounts[0])
		if err != nil {
			return r, err
		}
		// The guard checks the holder's value as read here: it must still
		// be the value, or the repair would lock one nobody holds.
		if h, v := s.Schema.Held(p.ConstraintIndex(), holder.Item); h != model.HoldsValue || v != p.Value {
			r.Skip = "the holder changed its value since the check: check again"
			return r, nil
		}
		if p.Kind == model.MissingLock {
			r.Plan, err = model.Planner{Schema: &s.Schema}.RepairMissing(p, holder)
		} else {
			r.Plan, err = model.Planner{Schema: &s.Schema}.RepairForeign(p, lock, holder)
		}
		return r, err
	}
	return r, err
}

// planTTLRepair plans the repair of an expired or expiring lock, as read
// now (at): deleted where nobody holds an expired lock's value, made
// permanent for its owner (or, naming none, its one holder) otherwise.
// LeftToAPerson has turned away the rest.
func (s *Store) planTTLRepair(ctx context.Context, r backend.Repair, lock model.Item, at int64) (backend.Repair, error) {
	p, planner := r.Problem, model.Planner{Schema: &s.Schema}
	if r.Skip = p.LeftToAPerson(); r.Skip != "" {
		return r, nil
	}
	if len(p.Accounts) == 0 {
		var err error
		r.Plan, err = planner.RepairExpired(p, lock, at)
		return r, err
	}
	holder, err := s.mustAccount(ctx, p.Keeper())
	if err != nil {
		return r, err
	}
	if h, v := s.Schema.Held(p.ConstraintIndex(), holder.Item); h != model.HoldsValue || v != p.Value {
		r.Skip = "the holder changed its value since the check: check again"
		return r, nil
	}
	r.Plan, err = planner.RepairForGood(p, lock, holder)
	return r, err
}
