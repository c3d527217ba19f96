package model

import (
	"slices"
	"strconv"
)

// The words of a request: each condition an action carries, said so that
// a person reading the preview knows exactly what DynamoDB will check.
// The preview is built from the same conditions, in the same order, as
// the ConditionExpression sent (dynamo.Prepare), so it promises no guard
// the request lacks.

// Sentence says condition c in words: what must hold of the item at the
// action's key for the action to apply. isKey reports whether an
// attribute is one of that item's key attributes (attribute_not_exists
// of a key attribute means "no such item").
func (c Cond) Sentence(isKey func(attr string) bool) string {
	switch c.Kind {
	case CondNotExists:
		if isKey(c.Attr) {
			return "only if no item with this key exists"
		}
		return "only if it has no " + c.Attr
	case CondExists:
		if isKey(c.Attr) {
			return "only if the item exists"
		}
		return "only if it has " + c.Attr
	case CondAbsentOrDiffers:
		return "only if the item does not exist or its " + c.Attr + " is not " + condValue(c.Value)
	case CondNotAfter:
		return "only if its " + c.Attr + " is not after " + epochSaid(c.Value) + ": still expired"
	case CondFreeOrExpired:
		free := "only if no item with this key exists"
		if !isKey(c.Attr) {
			free = "only if it has no " + c.Attr
		}
		return free + ", or its " + c.TTL + " is not after " + epochSaid(N(strconv.FormatInt(c.Now, 10))) +
			": an expired lock still blocks the value until DynamoDB deletes it, so it is taken over"
	}
	if c.Absent {
		return "only if it has no " + c.Attr
	}
	return "only if its " + c.Attr + " is " + condValue(c.Value)
}

// epochSaid shows a TTL condition's value, epoch seconds, with the UTC
// time it is.
func epochSaid(v Value) string {
	n, err := strconv.ParseInt(v.S, 10, 64)
	if v.Kind != KindN || err != nil {
		return condValue(v)
	}
	return v.S + " (" + TTLTime(n) + ")"
}

// condValue shows a condition's value: a string quoted, a number bare,
// anything else as DynamoDB JSON.
func condValue(v Value) string {
	switch v.Kind {
	case KindS:
		return Quote(v.S)
	case KindN:
		return Printable(v.S) // bare, where a string is quoted: a TTL read reads as the number it is
	}
	return Printable(v.DynamoJSON())
}

// Slot is one action of a prepared transaction as a person reads it:
// what it does, and one sentence for each condition the request carries
// for it, in the order of its ConditionExpression. Note says why a guard
// was left out, where one was.
type Slot struct {
	Does       string
	Conditions []string
	Note       string
}

// Does says what action a does, with an update's changes: its Purpose,
// then "set ATTR to V" and "remove ATTR" for each change.
func (a Action) Does(s *Schema) string {
	d := a.Purpose(s)
	if a.Kind != ActUpdate {
		return d
	}
	sep := ": "
	for _, name := range Item(a.Set).SortedNames() {
		d += sep + "set " + name + " to " + condValue(a.Set[name])
		sep = ", "
	}
	for _, name := range a.Remove {
		d += sep + "remove " + name
		sep = ", "
	}
	return d
}

// Unseen returns conds without the guards on what a person was shown
// (Cond.Seen): the ones the pattern itself requires.
func Unseen(conds []Cond) []Cond {
	var out []Cond
	for _, c := range conds {
		if !c.Seen {
			out = append(out, c)
		}
	}
	return out
}

// GuardAt is conds with each guard that takes an expired lock over
// (CondFreeOrExpired) judging TTLs at now, epoch seconds; conds itself,
// which a plan shares, is left as it is.
func GuardAt(conds []Cond, now int64) []Cond {
	takesOver := func(c Cond) bool { return c.Kind == CondFreeOrExpired }
	if !slices.ContainsFunc(conds, takesOver) {
		return conds
	}
	out := slices.Clone(conds)
	for i := range out {
		if takesOver(out[i]) {
			out[i].Now = now
		}
	}
	return out
}

// TakeOver is action a's guard that takes an expired lock over
// (CondFreeOrExpired), if it has one: a lock whose TTL attribute c.TTL is
// a time (ReadLease) expired at c.Now (Lease.Verdict) is free to it.
func (a Action) TakeOver() (c Cond, ok bool) {
	for _, c := range a.Conds {
		if c.Kind == CondFreeOrExpired {
			return c, true
		}
	}
	return Cond{}, false
}
