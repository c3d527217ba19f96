package model

import "strconv"

// Holds reports whether condition c holds of now, the item at its
// action's key (nil: there is none), as DynamoDB evaluates the condition
// expression dynamo.Prepare builds from c. A store without DynamoDB (the
// terminal UI's in-memory one) guards its writes with it.
func (c Cond) Holds(now Item) bool {
	v, present := now[c.Attr]
	same := present && v.DynamoJSON() == c.Value.DynamoJSON()
	switch c.Kind {
	case CondNotExists:
		return !present
	case CondExists:
		return present
	case CondAbsentOrDiffers:
		// An absent attribute differs from any value.
		_, exists := now[c.Key]
		return !exists || !same
	case CondFreeOrExpired:
		// A TTL DynamoDB ignores (not a number, milliseconds) compares
		// false: the lock is live, as the check judges it.
		return !present || ReadLease(now, c.TTL).Verdict(c.Now) == TTLExpired
	case CondNotAfter:
		return present && v.Kind == KindN && c.Value.Kind == KindN && numberNotAfter(v.S, c.Value.S)
	}
	if c.Absent {
		return !present
	}
	return same
}

// AllHold reports whether every condition of conds holds of now: an
// action's conditions are ANDed.
func AllHold(conds []Cond, now Item) bool {
	for _, c := range conds {
		if !c.Holds(now) {
			return false
		}
	}
	return true
}

// numberNotAfter compares two DynamoDB numbers, a <= b; text that is no
// number compares false.
func numberNotAfter(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	return errA == nil && errB == nil && x <= y
}
