package model

import "strings"

// ReclaimPrefix starts the owner locktable writes into an ownerless orphan
// lock while it repairs it: a claim. A lock whose owner starts with it and
// that nobody holds is an orphan whose repair was interrupted.
const ReclaimPrefix = "locktable:reclaim:"

// IsClaim reports whether a lock's owner is a claim of an interrupted or
// running repair rather than an account.
func IsClaim(owner string) bool { return strings.HasPrefix(owner, ReclaimPrefix) }

// Reclaim marks the repair of an orphan lock that names no owner, which no
// single transaction can guard: an article-style signup may re-create the
// lock, ownerless, between the check and a delete. So the repair runs in
// three steps: (1) claim the lock (set its owner to Claim, if it still has
// none), after which no signup can take the value; (2) look for holders of
// the value again; (3) nobody holds it: delete the lock if the claim is
// still there; someone does: give it back (remove the claim).
type Reclaim struct {
	Constraint int
	Value      string // the lock's value, exactly as stored
	Claim      string // the owner written in step 1
	// Resume: the lock already carries Claim (a repair was interrupted
	// after step 1), so the plan starts at step 2.
	Resume bool
	// Alt: the lock is in its constraint's other spelling
	// (Constraint.AltPrefix).
	Alt bool
}

// Reclaim plans step 1 of the repair of confirmed orphan p, whose lock
// names no owner (or, when resuming, names the claim owner): see Reclaim.
// The plan's actions are the claim; Execute runs steps 2 and 3.
func (s Planner) Reclaim(p Problem, claim string, resume bool) (Plan, error) {
	ci := p.constraint
	table, key := s.Schema.LockOf(p) // in the spelling it has
	r := &Reclaim{Constraint: ci, Value: p.Value, Claim: claim, Resume: resume, Alt: Classifier(s).altLock(p)}
	plan := Plan{Operation: "repair", Reclaim: r,
		Note: "an ownerless orphan is repaired in three steps: claim the lock, look for holders of " + Printable(p.Value) +
			" again, then delete the lock, or give it back if someone holds the value"}
	if resume {
		plan.MustType = claim // the lock names the claim: type it back
		plan.Actions = []Action{s.DeleteClaimed(*r)}
		plan.Note = "an interrupted repair left its claim on this lock: look for holders again, then delete it or give it back"
	} else {
		plan.Actions = []Action{{Kind: ActUpdate, Role: RoleClaimLock, Table: table, Key: key, Constraint: ci, Value: p.Value,
			Set: map[string]Value{s.Schema.OwnerAttr: S(claim)}, Account: claim,
			Conds: []Cond{{Kind: CondExists, Attr: s.Schema.LockPK(ci)}, {Kind: CondEquals, Attr: s.Schema.OwnerAttr, Absent: true}}}}
	}
	plan.Keys = []string{plan.Actions[0].KeyText(s.Schema)}
	return s.finish(plan)
}

// DeleteClaimed is step 3 of a reclaim when nobody holds the value: delete
// the lock if it still carries the claim.
func (s Planner) DeleteClaimed(r Reclaim) Action {
	table, key := s.Schema.LockKeyAs(r.Constraint, r.Value, r.Alt)
	return Action{Kind: ActDelete, Role: RoleOrphanLock, Table: table, Key: key, Constraint: r.Constraint, Value: r.Value,
		Conds: []Cond{{Kind: CondEquals, Attr: s.Schema.OwnerAttr, Value: S(r.Claim)}}}
}

// GiveBack is step 3 of a reclaim when someone holds the value: remove the
// claim, leaving the lock as it was, if the claim is still there.
func (s Planner) GiveBack(r Reclaim) Action {
	table, key := s.Schema.LockKeyAs(r.Constraint, r.Value, r.Alt)
	return Action{Kind: ActUpdate, Role: RoleGiveBack, Table: table, Key: key, Constraint: r.Constraint, Value: r.Value,
		Remove: []string{s.Schema.OwnerAttr}, Conds: []Cond{{Kind: CondEquals, Attr: s.Schema.OwnerAttr, Value: S(r.Claim)}}}
}
