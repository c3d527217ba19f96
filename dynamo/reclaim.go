package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// reclaim runs the repair of an ownerless orphan lock (see model.Reclaim):
// tx is step 1, the claim (or, resuming an interrupted repair, step 3's
// delete, whose claim is already on the lock). The result is the last
// step's: committed when the lock was deleted, skipped when someone holds
// the value and the lock was given back, and otherwise what stopped it.
func (s *Store) reclaim(ctx context.Context, tx backend.Tx) (model.Result, error) {
	r := *tx.Plan.Reclaim
	if !r.Resume {
		res, err := s.transact(ctx, tx)
		if err != nil || res.Outcome != model.Committed {
			// Not claimed (the lock changed, or is gone), or unknown: the
			// token in res can be sent again; nothing else was done.
			return res, err
		}
		if ctx.Err() != nil {
			return claimLeft(res, r, "interrupted after claiming the lock"), nil
		}
	}
	// Step 2: the lock exists and carries the claim, so no in-pattern or
	// article-style signup can take the value now; what the lookup finds
	// settles it.
	found, err := s.LookupHolders(ctx, []backend.Wanted{{Constraint: r.Constraint, Value: r.Value}})
	l := ReclaimLookup{Reclaim: r, Found: found, Err: err}
	step := l.Step(&s.Schema, tx.Plan.Keys)
	next, perr := s.Prepare(step, backend.NewToken())
	if perr != nil {
		return model.Result{}, perr
	}
	res, serr := s.transact(ctx, next)
	if serr != nil {
		// Certainly not applied; but the claim was: say so, not an error.
		return claimLeft(res, r, "could not "+step.Actions[0].Purpose(&s.Schema)+": "+errText(serr)), nil
	}
	return l.Done(&s.Schema, res), nil
}

// ReclaimLookup is a reclaim's step 2: the holders of the claimed value,
// or why they could not be looked for (Err). It settles step 3 and what
// the reclaim reports.
type ReclaimLookup struct {
	Reclaim model.Reclaim
	Found   backend.HolderLookup
	Err     error
}

func (l ReclaimLookup) holders() []string {
	return l.Found.Holders[backend.Wanted{Constraint: l.Reclaim.Constraint, Value: l.Reclaim.Value}]
}

// Step plans step 3: the claimed lock deleted when no one holds the value;
// given back as it was when someone does, or when the lookup failed (a
// later repair finishes a claim that cannot be given back).
func (l ReclaimLookup) Step(sc *model.Schema, keys []string) model.Plan {
	step := model.Plan{Operation: "repair", Keys: keys, Actions: []model.Action{model.Planner{Schema: sc}.DeleteClaimed(l.Reclaim)}}
	if l.Err != nil || len(l.holders()) > 0 {
		step.Actions = []model.Action{model.Planner{Schema: sc}.GiveBack(l.Reclaim)}
	}
	return step
}

// Done reports the reclaim from res, step 3's result: when it committed,
// the lock deleted, or given back (skipped: not an orphan; cancelled: the
// lookup failed). A step 3 not committed is reported as it is, slot by
// slot or unknown with its token.
func (l ReclaimLookup) Done(sc *model.Schema, res model.Result) model.Result {
	if res.Outcome != model.Committed {
		return res
	}
	r := l.Reclaim
	switch holders := l.holders(); {
	case l.Err != nil:
		res.Outcome = model.Cancelled
		res.Reasons = []model.Reason{{Slot: -1, Code: "LookupFailed", Message: "could not look for holders, so the lock was given back unchanged: " + errText(l.Err)}}
	case len(holders) == 0:
		res.Note = fmt.Sprintf("claimed the lock, found no holder of %s %s (%s, %d items read), deleted it",
			sc.Constraints[r.Constraint].Attr, r.Value, l.Found.Method, l.Found.ItemsRead)
	default:
		res.Outcome = model.Skipped
		res.Note = fmt.Sprintf("%s %s is held by %s, not an orphan: the lock was given back",
			sc.Constraints[r.Constraint].Attr, r.Value, strings.Join(holders, ", "))
	}
	return res
}

// claimLeft reports a reclaim that stopped after its claim: not repaired,
// and the lock keeps the claim until a repair finishes it.
func claimLeft(res model.Result, r model.Reclaim, why string) model.Result {
	res.Outcome = model.Cancelled
	res.Reasons = []model.Reason{{Slot: -1, Code: "ClaimLeft", Message: why + "; the lock keeps locktable's claim " + r.Claim +
		" (no signup can take the value meanwhile): run repair again to finish"}}
	return res
}
