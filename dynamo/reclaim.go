package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// Reclaim is what the repair of an ownerless orphan lock (see
// model.Reclaim) runs its steps on: a store's requests, one transaction
// sent as it is, and its holder lookup. The store runs it on DynamoDB,
// the terminal UI's in-memory fake on its maps.
type Reclaim struct {
	Schema  *model.Schema
	Prepare func(p model.Plan, token string) (backend.Tx, error)
	Send    func(ctx context.Context, tx backend.Tx) (model.Result, error)
	Lookup  func(ctx context.Context, wanted []backend.Wanted) (backend.HolderLookup, error)
}

// Run runs the reclaim tx starts: tx is step 1, the claim (or, resuming
// an interrupted repair, step 3's delete, whose claim is already on the
// lock). The result is the last step's: committed when the lock was
// deleted, skipped when someone holds the value and the lock was given
// back, and otherwise what stopped it.
func (rc Reclaim) Run(ctx context.Context, tx backend.Tx) (model.Result, error) {
	r := *tx.Plan.Reclaim
	if r.Resume && backend.Stopped(ctx) {
		// Stopped before anything of it left: its claim stays, for a
		// later repair, as it was.
		return model.Result{Operation: tx.Plan.Operation, Keys: tx.Plan.Keys, Token: tx.Token, Reasons: []model.Reason{}, Outcome: model.NotSent}, backend.ErrStopped
	}
	if !r.Resume {
		res, err := rc.Send(ctx, tx)
		if err != nil || res.Outcome != model.Committed {
			// Not claimed (the lock changed, or is gone), or unknown: the
			// token in res can be sent again; nothing else was done.
			return res, err
		}
		if ctx.Err() != nil {
			return claimLeft(res, r, "interrupted after claiming the lock"), nil
		}
		// Sent and claimed: a stop (backend.WithStop) no longer holds
		// back its steps, which would leave the claim on the lock.
		ctx = backend.WithStop(ctx, nil)
	}
	// Step 2: the lock exists and carries the claim, so no in-pattern or
	// article-style signup can take the value now; what the lookup finds
	// settles it.
	found, err := rc.Lookup(ctx, []backend.Wanted{{Constraint: r.Constraint, Value: r.Value}})
	l := reclaimLookup{Reclaim: r, Found: found, Err: err}
	step := l.step(rc.Schema, tx.Plan.Keys)
	next, perr := rc.Prepare(step, backend.NewToken())
	if perr != nil {
		return model.Result{}, perr
	}
	res, serr := rc.Send(ctx, next)
	if serr != nil {
		// Certainly not applied; but the claim was: say so, not an error.
		return claimLeft(res, r, "could not "+step.Actions[0].Purpose(rc.Schema)+": "+errText(serr)), nil
	}
	return l.done(rc.Schema, res), nil
}

// reclaimLookup is a reclaim's step 2: the holders of the claimed value,
// or why they could not be looked for (Err). It settles step 3 and what
// the reclaim reports.
type reclaimLookup struct {
	Reclaim model.Reclaim
	Found   backend.HolderLookup
	Err     error
}

func (l reclaimLookup) holders() []string {
	return l.Found.Holders[backend.Wanted{Constraint: l.Reclaim.Constraint, Value: l.Reclaim.Value}]
}

// step plans step 3: the claimed lock deleted when no one holds the value;
// given back as it was when someone does, or when the lookup failed (a
// later repair finishes a claim that cannot be given back).
func (l reclaimLookup) step(sc *model.Schema, keys []string) model.Plan {
	step := model.Plan{Operation: "repair", Keys: keys, Actions: []model.Action{model.Planner{Schema: sc}.DeleteClaimed(l.Reclaim)}}
	if l.Err != nil || len(l.holders()) > 0 {
		step.Actions = []model.Action{model.Planner{Schema: sc}.GiveBack(l.Reclaim)}
	}
	return step
}

// done reports the reclaim from res, step 3's result: when it committed,
// the lock deleted, or given back (skipped: not an orphan; cancelled: the
// lookup failed). A step 3 not committed is reported as it is, slot by
// slot or unknown with its token.
func (l reclaimLookup) done(sc *model.Schema, res model.Result) model.Result {
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
