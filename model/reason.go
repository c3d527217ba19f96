package model

import "strings"

// Explain says in words a person acts on why the condition of action a
// failed. now is the item as it stood when the transaction was cancelled
// (ReturnValuesOnConditionCheckFailure=ALL_OLD, or a consistent read where
// a backend returns none); nil when there was no item.
func (s Classifier) Explain(a Action, now Item) string {
	k := Printable(a.KeyText(s.Schema))
	attr := ""
	if a.Constraint >= 0 {
		attr = s.Constraints[a.Constraint].Attr
	}
	switch a.Role {
	case RoleCreateAccount:
		if now != nil {
			return "account " + k + " already exists"
		}
	case RoleTakeLock:
		if now != nil {
			if o, ok := now[s.OwnerAttr]; ok && o.Kind == KindS && IsClaim(o.S) {
				return attr + " " + Printable(a.Value) + " is taken (its lock is an orphan locktable is repairing: " + Printable(o.S) + "; try again)"
			}
			if o, ok := now[s.OwnerAttr]; ok && o.Kind == KindS && o.S != "" {
				return attr + " " + Printable(a.Value) + " is taken by " + Printable(o.S)
			}
			return attr + " " + Printable(a.Value) + " is taken (its lock names no owner)"
		}
	case RoleAccount:
		if now == nil {
			return "account " + k + " no longer exists"
		}
		return "account " + k + " changed since it was loaded" + changedAttr(a.Conds, now, false)
	case RoleClaimLock:
		if now != nil {
			if o, ok := now[s.OwnerAttr]; ok && o.Kind == KindS && o.S != "" {
				return "lock " + k + " names an owner now (" + Printable(o.S) + "): not an ownerless orphan any more"
			}
		}
		if now == nil {
			return "lock " + k + " no longer exists"
		}
	case RoleReleaseLock, RoleKeepLock, RoleOrphanLock, RoleHandLock, RoleGiveBack:
		if now == nil {
			return "lock " + k + " no longer exists"
		}
		if o, ok := now[s.OwnerAttr]; ok && o.Kind == KindS && o.S != "" {
			return "lock " + k + " belongs to " + Printable(o.S)
		}
		return "lock " + k + " changed since it was loaded: it names no owner now"
	case RoleRestore:
		return s.explainRestore(a, now)
	case RoleOwnerGone:
		if now != nil {
			return "account " + k + " holds " + attr + " = " + Printable(a.Value) + ": the lock is not an orphan"
		}
	}
	return Printable(a.Purpose(s.Schema)) + ": its condition failed"
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
	owner, named := a.Item[s.OwnerAttr]
	if a.Kind == ActUpdate {
		owner, named = a.Set[s.OwnerAttr]
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
