package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/locktable/locktable/model"
)

// reclaim runs the repair of an ownerless orphan lock (see model.Reclaim):
// tx is step 1, the claim (or, resuming an interrupted repair, step 3's
// delete, whose claim is already on the lock). The result is the last
// step's: committed when the lock was deleted, skipped when someone holds
// the value and the lock was given back, and otherwise what stopped it.
func (s *Store) reclaim(ctx context.Context, tx Tx) (Result, error) {
	r := *tx.Plan.Reclaim
	if !r.Resume {
		res, err := s.transact(ctx, tx)
		if err != nil || res.Outcome != Committed {
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
	lookup, err := s.LookupHolders(ctx, []Wanted{{Constraint: r.Constraint, Value: r.Value}})
	holders := lookup.Holders[Wanted{Constraint: r.Constraint, Value: r.Value}]
	step := model.Plan{Operation: "repair", Keys: tx.Plan.Keys}
	switch {
	case err != nil, len(holders) > 0:
		// Give the lock back as it was (when the lookup failed too: a
		// later repair finishes a claim that cannot be given back).
		step.Actions = []model.Action{s.Schema.GiveBack(r)}
	default:
		step.Actions = []model.Action{s.Schema.DeleteClaimed(r)}
	}
	next, perr := s.Prepare(step, NewToken())
	if perr != nil {
		return Result{}, perr
	}
	res, serr := s.transact(ctx, next)
	switch {
	case serr != nil:
		// Certainly not applied; but the claim was: say so, not an error.
		return claimLeft(res, r, "could not "+step.Actions[0].Purpose(&s.Schema)+": "+errText(serr)), nil
	case res.Outcome != Committed:
		return res, nil // cancelled, slot by slot, or unknown with its token
	case err != nil:
		res.Outcome = Cancelled
		res.Reasons = []Reason{{Slot: -1, Code: "LookupFailed", Message: "could not look for holders, so the lock was given back unchanged: " + errText(err)}}
	case len(holders) == 0:
		res.Note = fmt.Sprintf("claimed the lock, found no holder of %s %s (%s, %d items read), deleted it",
			s.Schema.Constraints[r.Constraint].Attr, r.Value, lookup.Method, lookup.ItemsRead)
	default:
		res.Outcome = Skipped
		res.Note = fmt.Sprintf("%s %s is held by %s, not an orphan: the lock was given back",
			s.Schema.Constraints[r.Constraint].Attr, r.Value, strings.Join(holders, ", "))
	}
	return res, nil
}

// claimLeft reports a reclaim that stopped after its claim: not repaired,
// and the lock keeps the claim until a repair finishes it.
func claimLeft(res Result, r model.Reclaim, why string) Result {
	res.Outcome = Cancelled
	res.Reasons = []Reason{{Slot: -1, Code: "ClaimLeft", Message: why + "; the lock keeps locktable's claim " + r.Claim +
		" (no signup can take the value meanwhile): run repair again to finish"}}
	return res
}
