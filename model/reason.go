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
