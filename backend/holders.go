package backend

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locktable/locktable/model"
)

// Wanted is a value of a constraint whose holders are looked for.
type Wanted struct {
	Constraint int
	Value      string // normalized
}

// ScanMethod is HolderLookup.Method for a lookup by a scan of the accounts.
const ScanMethod = "consistent scan of the accounts"

// HolderLookup is what a lookup for holders read and found.
type HolderLookup struct {
	// Method says how: "index by-email", "consistent scan of the accounts",
	// or both, joined with " and ".
	Method string
	// ItemsRead counts the items the index queries and the scan read,
	// before confirmation reads.
	ItemsRead int64
	// Holders maps each wanted value to the accounts that hold it, each
	// confirmed by a strongly consistent read, sorted.
	Holders map[Wanted][]string
	// Locked says, for each wanted value, whether its lock exists, by a
	// consistent read after the holders were found.
	Locked map[Wanted]bool
	// Owners names the owner each existing lock names ("" for none, or
	// for an owner that is not a string).
	Owners map[Wanted]string
}

// NewLookup is a HolderLookup with nothing found yet.
func NewLookup(method string) HolderLookup {
	return HolderLookup{Method: method, Holders: map[Wanted][]string{}, Locked: map[Wanted]bool{}, Owners: map[Wanted]string{}}
}

// Taken is a new value of a signup or rename that another account holds.
type Taken struct {
	Slot    int // the action that puts the value's lock
	Action  model.Action
	Holders []string
}

// Reason says in words why the value is refused, naming its holders.
func (t Taken) Reason(s *model.Schema) model.Reason {
	attr := s.Constraints[t.Action.Constraint].Attr
	// Raw text: whoever shows it escapes it, once (the screen, the human
	// report, JSON).
	ids := t.Holders
	return model.Reason{Slot: t.Slot, Action: t.Action.Purpose(s), Code: "HeldWithoutLock",
		Message: fmt.Sprintf("%s %s is taken by %s, whose lock is missing (sending would make a duplicate_value; repair the missing lock, or rename that account)",
			attr, t.Action.Value, strings.Join(ids, ", "))}
}

// NewValues lists the values whose locks plan p puts for an account: what
// a holder lookup must clear before a signup or rename is sent.
func NewValues(p model.Plan) []Wanted {
	var out []Wanted
	for _, a := range p.Actions {
		if a.Role == model.RoleTakeLock {
			out = append(out, Wanted{Constraint: a.Constraint, Value: a.Value})
		}
	}
	return out
}

// TakenValues returns, for each lock plan p puts whose value other
// accounts hold while its lock is missing, those accounts. (Where the lock
// exists, the transaction's guarded put refuses the value, and says whose
// lock it is.)
func TakenValues(p model.Plan, lookup HolderLookup) []Taken {
	var out []Taken
	for i, a := range p.Actions {
		w := Wanted{a.Constraint, a.Value}
		if a.Role != model.RoleTakeLock || lookup.Locked[w] {
			continue
		}
		var others []string
		for _, id := range lookup.Holders[w] {
			if id != a.Account {
				others = append(others, id)
			}
		}
		if len(others) > 0 {
			out = append(out, Taken{Slot: i, Action: a, Holders: others})
		}
	}
	return out
}

// Findings says in words what lookup found of each value plan p would
// lock: locked (the guarded put will refuse it, whoever holds it), held by
// another account without its lock (refused before sending, TakenValues),
// or held by no other account; "no other account holds them" when no
// value is locked or taken. Raw text: whoever shows it escapes it.
func Findings(sc *model.Schema, p model.Plan, lookup HolderLookup) string {
	var out []string
	free := true
	for _, a := range p.Actions {
		if a.Role != model.RoleTakeLock {
			continue
		}
		w := Wanted{a.Constraint, a.Value}
		name := sc.Constraints[a.Constraint].Attr + "=" + a.Value
		holders := lookup.Holders[w]
		except := func(id string) string {
			return strings.Join(slices.DeleteFunc(slices.Clone(holders), func(h string) bool { return h == id }), ", ")
		}
		switch owner := lookup.Owners[w]; {
		case lookup.Locked[w] && owner != "":
			held := ""
			if others := except(owner); others != "" {
				held = "; held by " + others
			}
			out = append(out, name+" is locked by "+owner+" (its lock exists"+held+"): the guard will refuse it")
		case lookup.Locked[w] && len(holders) > 0:
			out = append(out, name+" is locked, held by "+strings.Join(holders, ", ")+" (its lock exists and names no owner): the guard will refuse it")
		case lookup.Locked[w]:
			out = append(out, name+" is locked (its lock exists, names no owner, and no account holds it): the guard will refuse it")
		case except(a.Account) != "":
			out = append(out, name+" is held by "+except(a.Account)+" without its lock: refused")
		default:
			out = append(out, name+": no other account holds it")
			continue
		}
		free = false
	}
	if free {
		return "no other account holds them"
	}
	return strings.Join(out, "; ")
}
