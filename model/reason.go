package model

// Explain says in words a person acts on why the condition of action a
// failed. now is the item as it stood when the transaction was cancelled
// (ReturnValuesOnConditionCheckFailure=ALL_OLD, or a consistent read where
// a backend returns none); nil when there was no item.
func (s *Schema) Explain(a Action, now Item) string {
	k := Printable(a.KeyText(s))
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
		for _, c := range a.Conds {
			if c.Kind != CondEquals {
				continue // attribute_exists(PK) held: now is the account
			}
			v, ok := now[c.Attr]
			switch {
			case !ok && !c.Absent:
				return "account " + k + " changed since it was loaded: " + c.Attr + " is now absent"
			case ok && (c.Absent || v.DynamoJSON() != c.Value.DynamoJSON()):
				return "account " + k + " changed since it was loaded: " + c.Attr + " is now " + valueText(v)
			}
		}
		return "account " + k + " changed since it was loaded"
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
	return Printable(a.Purpose(s)) + ": its condition failed"
}

// valueText shows an attribute value: a string as it is, anything else as
// DynamoDB JSON, both printable.
func valueText(v Value) string {
	if v.Kind == KindS {
		return Printable(v.S)
	}
	return Printable(v.DynamoJSON())
}
