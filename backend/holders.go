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
	// Leases are what the TTL attribute of each existing lock says: a
	// guard that takes expired locks over may find the value free, and
	// then only its holders stop the write.
	Leases map[Wanted]model.Lease
}

// NewLookup is a HolderLookup with nothing found yet.
func NewLookup(method string) HolderLookup {
	return HolderLookup{Method: method, Holders: map[Wanted][]string{}, Locked: map[Wanted]bool{}, Owners: map[Wanted]string{},
		Leases: map[Wanted]model.Lease{}}
}

// FoundLock records what a lookup found at w's lock under schema sc:
// lock, read consistently (nil: none), its owner and its TTL.
func (l *HolderLookup) FoundLock(sc *model.Schema, w Wanted, lock model.Item) {
	if l.Locked[w] = lock != nil; lock == nil {
		return
	}
	l.Owners[w] = sc.NamedOwner(lock)
	l.Leases[w] = model.ReadLease(lock, sc.LockTTLAttr(w.Constraint))
}

// live reports whether the lock lookup found for w stops action a's
// guarded put: it exists, and is not an expired lock a's guard takes over.
func (l HolderLookup) live(a model.Action, w Wanted) bool {
	return l.Locked[w] && l.expired(a, w) == ""
}

// expired says, where a's guard takes over the expired lock lookup found
// for w, how long ago it expired ("expired 3 h ago"); "" otherwise.
func (l HolderLookup) expired(a model.Action, w Wanted) string {
	lease := l.Leases[w]
	c, takesOver := a.TakeOver()
	if !l.Locked[w] || !takesOver || lease.Verdict(c.Now) != model.TTLExpired {
		return ""
	}
	return model.TTLSaid(lease.At, c.Now)
}

// Taken is a new value of a signup or rename that another account holds.
type Taken struct {
	Slot    int // the action that puts the value's lock
	Action  model.Action
	Holders []string
	// Expired says how long ago the value's lock expired ("expired 3 h
	// ago"), where there is one and the guard would take it over; "":
	// the lock is missing.
	Expired string
}

// Reason says in words why the value is refused, naming its holders.
func (t Taken) Reason(s *model.Schema) model.Reason {
	attr := s.Constraints[t.Action.Constraint].Attr
	// Raw text: whoever shows it escapes it, once (the screen, the human
	// report, JSON).
	ids := t.Holders
	msg := fmt.Sprintf("%s %s is taken by %s, whose lock is missing (sending would make a duplicate_value; repair the missing lock, or rename that account)",
		attr, t.Action.Value, strings.Join(ids, ", "))
	if t.Expired != "" {
		msg = fmt.Sprintf("%s %s is taken by %s, whose lock %s (sending would take the expired lock over and make a duplicate_value; repair the expired lock, or rename that account)",
			attr, t.Action.Value, strings.Join(ids, ", "), t.Expired)
	}
	return model.Reason{Slot: t.Slot, Action: t.Action.Purpose(s), Code: "HeldWithoutLock", Message: msg}
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
// accounts hold while its lock is missing (or expired, where the guard
// takes expired locks over), those accounts. (Where the lock exists and
// stops the put, the transaction's guard refuses the value, and says
// whose lock it is.) p is the plan as prepared: its guards judge TTLs at
// the second the request was built.
func TakenValues(p model.Plan, lookup HolderLookup) []Taken {
	var out []Taken
	for i, a := range p.Actions {
		w := Wanted{a.Constraint, a.Value}
		if a.Role != model.RoleTakeLock || lookup.live(a, w) {
			continue
		}
		var others []string
		for _, id := range lookup.Holders[w] {
			if id != a.Account {
				others = append(others, id)
			}
		}
		if len(others) > 0 {
			out = append(out, Taken{Slot: i, Action: a, Holders: others, Expired: lookup.expired(a, w)})
		}
	}
	return out
}

// Findings says in words what lookup found of each value plan p (as
// prepared) would lock: locked (the guarded put will refuse it, whoever
// holds it), held by another account without its lock or with an expired
// one the guard takes over (refused before sending, TakenValues), or held
// by no other account (its expired lock, if any, taken over); "no other account holds them" when no
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
		live, expired := lookup.live(a, w), lookup.expired(a, w)
		switch owner := lookup.Owners[w]; {
		case live && owner != "":
			held := ""
			if others := except(owner); others != "" {
				held = "; held by " + others
			}
			out = append(out, name+" is locked by "+owner+" (its lock exists"+held+"): the guard will refuse it")
		case live && len(holders) > 0:
			out = append(out, name+" is locked, held by "+strings.Join(holders, ", ")+" (its lock exists and names no owner): the guard will refuse it")
		case live:
			out = append(out, name+" is locked (its lock exists, names no owner, and no account holds it): the guard will refuse it")
		case expired != "" && except(a.Account) != "":
			out = append(out, name+" is held by "+except(a.Account)+", whose lock "+expired+": refused")
		case except(a.Account) != "":
			out = append(out, name+" is held by "+except(a.Account)+" without its lock: refused")
		case expired != "":
			out = append(out, name+": its lock "+expired+", and the guard takes it over; no other account holds it")
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
