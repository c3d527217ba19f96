package model

import (
	"fmt"
	"strings"
)

// Explain says in words a person acts on why the condition of action a
// failed. now is the item as it stood when the transaction was cancelled
// (ReturnValuesOnConditionCheckFailure=ALL_OLD, or a consistent read where
// a backend returns none); nil when there was no item.
func (s Classifier) Explain(a Action, now Item) string {
	if why, ok := s.explain(a, now); ok {
		return why
	}
	return Printable(a.Purpose(s.Schema)) + ": its condition failed"
}

// explain is Explain by the action's role; false where now does not say
// more than that the condition failed.
func (s Classifier) explain(a Action, now Item) (string, bool) {
	k := Printable(a.KeyText(s.Schema))
	switch a.Role {
	case RoleCreateAccount:
		return "account " + k + " already exists", now != nil
	case RoleTakeLock, RoleNoAltLock:
		return s.explainTaken(a, now), now != nil
	case RoleAccount:
		if now == nil {
			return "account " + k + " no longer exists", true
		}
		return "account " + k + " changed since it was loaded" + changedAttr(a.Conds, now, false), true
	case RoleClaimLock:
		return s.explainClaimed(k, now)
	case RoleExpiredLock:
		if now == nil {
			return "lock " + k + " is gone already (DynamoDB's TTL deleted it, or a repair did)", true
		}
		return "lock " + k + " is no longer expired: its TTL was renewed, or a signup took the value", true
	case RoleReleaseLock, RoleKeepLock, RoleOrphanLock, RoleHandLock, RoleGiveBack, RoleKeepForGood:
		return s.explainLockChanged(k, now), true
	case RoleRestore:
		return s.explainRestore(a, now), true
	case RoleOwnerGone:
		return "account " + k + " holds " + s.attrOf(a) + " = " + Printable(a.Value) + ": the lock is not an orphan", now != nil
	}
	return "", false
}

// attrOf is the unique attribute a lock action is about, "" for an
// account action.
func (s Classifier) attrOf(a Action) string {
	if a.Constraint < 0 {
		return ""
	}
	return s.Schema.Constraints[a.Constraint].Attr
}

// explainTaken says who holds the value whose lock a failed to put: now
// is the lock there.
func (s Classifier) explainTaken(a Action, now Item) string {
	if why, ok := s.explainReserved(a, now); ok {
		return why
	}
	taken := s.attrOf(a) + " " + Printable(a.Value) + " is taken"
	switch o := s.Schema.NamedOwner(now); {
	case IsClaim(o):
		return taken + " (its lock is an orphan locktable is repairing: " + Printable(o) + "; try again)"
	case o != "":
		return taken + " by " + Printable(o)
	}
	return taken + " (its lock names no owner)"
}

// explainReserved says that the value whose lock a failed to put is
// reserved: now, the lock there, has a TTL after the second a's guard
// judged it at (one not after it would have been taken over). False
// where a's guard takes no expired lock over, or now has no such TTL.
func (s Classifier) explainReserved(a Action, now Item) (string, bool) {
	c, ok := a.TakeOver()
	if !ok {
		return "", false
	}
	lease := ReadLease(now, c.TTL)
	if lease.Verdict(c.Now) != TTLAhead {
		return "", false
	}
	at := lease.At
	why := fmt.Sprintf("%s %s is reserved until %s (%s more) by lock %s", s.attrOf(a), Printable(a.Value),
		TTLTime(at), Until(at, c.Now), Printable(a.KeyText(s.Schema)))
	if o := s.Schema.NamedOwner(now); o != "" {
		why += " (owner " + Printable(o) + ")"
	}
	return why, true
}

// explainClaimed says why the claim of ownerless lock k failed; false
// when the lock is there and still names no owner.
func (s Classifier) explainClaimed(k string, now Item) (string, bool) {
	if now == nil {
		return "lock " + k + " no longer exists", true
	}
	if o := s.Schema.NamedOwner(now); o != "" {
		return "lock " + k + " names an owner now (" + Printable(o) + "): not an ownerless orphan any more", true
	}
	return "", false
}

// explainLockChanged says how lock k, loaded before, changed.
func (s Classifier) explainLockChanged(k string, now Item) string {
	if now == nil {
		return "lock " + k + " no longer exists"
	}
	if o := s.Schema.NamedOwner(now); o != "" {
		return "lock " + k + " belongs to " + Printable(o)
	}
	return "lock " + k + " changed since it was loaded: it names no owner now"
}

// valueText shows an attribute value: a string as it is, anything else as
// DynamoDB JSON, both printable.
func valueText(v Value) string {
	if v.Kind == KindS {
		return Printable(v.S)
	}
	return Printable(v.DynamoJSON())
}

// changedAttr says which attribute of now fails one of conds' equalities
// (": ATTR is now V", with ", not W" when was, where the condition wanted
// a value), "" when none does. attribute_exists(PK) conditions held: now
// is the item.
func changedAttr(conds []Cond, now Item, was bool) string {
	for _, c := range conds {
		if c.Kind != CondEquals {
			continue
		}
		v, ok := now[c.Attr]
		switch {
		case !ok && !c.Absent:
			return ": " + c.Attr + " is now absent"
		case ok && c.Absent:
			return ": " + c.Attr + " is now " + valueText(v)
		case ok && v.DynamoJSON() != c.Value.DynamoJSON():
			if was {
				return ": " + c.Attr + " is now " + valueText(v) + ", not " + valueText(c.Value)
			}
			return ": " + c.Attr + " is now " + valueText(v)
		}
	}
	return ""
}

// Failure is one failed slot of a cancelled transaction: its cancellation
// code and, for a failed condition, Now, the item at the action's key as
// it stood (nil: none).
type Failure struct {
	Slot int
	Code string
	Now  Item
}

// AlreadyRepaired reports whether repair plan p, cancelled with failed,
// failed only because its effect is there already: each failed slot is
// one of its writes (not a check of an account, which another writer may
// have changed) and Now shows that write applied (Applied), as when
// another repair of the same problem committed first. note says what
// shows it. Other plans are never already repaired: a signup's or a
// rename's lock that names its own account is a replay, committed already.
func (s Classifier) AlreadyRepaired(p Plan, failed []Failure) (note string, ok bool) {
	if p.Operation != "repair" || len(failed) == 0 {
		return "", false
	}
	var shown []string
	for _, f := range failed {
		if f.Code != "ConditionalCheckFailed" || f.Slot < 0 || f.Slot >= len(p.Actions) {
			return "", false
		}
		a := p.Actions[f.Slot]
		if a.Kind == ActCheck || !Applied(a, f.Now) {
			return "", false
		}
		shown = append(shown, s.effect(a))
	}
	return "already repaired: " + strings.Join(shown, "; ") + " (another writer repaired it)", true
}

// effect says what an applied write left at its key, raw.
func (s Classifier) effect(a Action) string {
	k := a.KeyText(s.Schema)
	owner, named := a.Item[s.Schema.OwnerAttr]
	if a.Kind == ActUpdate {
		owner, named = a.Set[s.Schema.OwnerAttr]
	}
	switch {
	case a.Kind == ActDelete:
		return k + " is gone"
	case named && owner.Kind == KindS:
		return k + " now has owner " + owner.S
	}
	return k + " is as the repair leaves it"
}

// explainRestore is Explain for RoleRestore: what changed since the write.
func (s Classifier) explainRestore(a Action, now Item) string {
	what := a.restoreNoun() + " " + Printable(a.KeyText(s.Schema))
	if a.Kind == ActPut {
		if why, ok := s.explainReserved(a, now); ok {
			return why
		}
		if now != nil {
			return what + " exists again"
		}
		return what + ": its condition failed"
	}
	if now == nil {
		return what + " no longer exists"
	}
	return what + " changed since that write" + changedAttr(a.Conds, now, true)
}
