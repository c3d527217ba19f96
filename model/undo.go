package model

import (
	"fmt"
	"maps"
	"strings"
)

// UndoItem is one item a write changes: as it was before the write (nil:
// absent) and as the write leaves it (nil: deleted).
type UndoItem struct {
	Table  string            `json:"table"`
	Key    map[string]string `json:"key"`
	Before Item              `json:"before"`
	After  Item              `json:"after"`
}

// UndoRecord is what undoing one write needs: every item it changes,
// before and after, keyed by the write's token.
type UndoRecord struct {
	Token     string     `json:"token"`
	Operation string     `json:"operation"`
	Table     string     `json:"table"`
	Endpoint  string     `json:"endpoint"`
	Keys      []string   `json:"keys"`
	Undoes    string     `json:"undoes,omitempty"` // an undo: the token it inverts
	Items     []UndoItem `json:"items"`
}

// After is the item an action leaves at its key when it applies to
// before (nil: absent): a put's item, nothing after a delete, an update's
// SETs and REMOVEs over before. A condition check leaves it as it was.
func After(a Action, before Item) Item {
	switch a.Kind {
	case ActPut:
		return maps.Clone(a.Item)
	case ActDelete:
		return nil
	case ActUpdate:
		after := maps.Clone(before)
		if after == nil {
			after = KeyItem(a.Key)
		}
		maps.Copy(after, a.Set)
		for _, k := range a.Remove {
			delete(after, k)
		}
		return after
	}
	return before
}

// UndoItems lists what plan p changes, for its undo record: each action
// that writes, with the item at its key as read just before the write
// (before) and as the action leaves it.
func UndoItems(p Plan, before func(table string, key map[string]string) Item) []UndoItem {
	var out []UndoItem
	for _, a := range p.Actions {
		if a.Kind == ActCheck {
			continue
		}
		b := before(a.Table, a.Key)
		out = append(out, UndoItem{Table: a.Table, Key: a.Key, Before: b, After: After(a, b)})
	}
	return out
}

// Undo plans the inverse of the write r records, as one guarded
// transaction: an item the write created is deleted, one it deleted is
// put back, one it updated is set back. Each action commits only if its
// item is still exactly as the write left it: every attribute the write
// left is compared, and every attribute now, the item as read by the
// undo (now), that the write did not leave must be absent. A lock the
// write deleted while locktable's claim was on it (a reclaimed orphan) is
// put back as it was before the claim, naming no owner.
func (s Planner) Undo(r UndoRecord, now func(table string, key map[string]string) Item) (Plan, error) {
	p := Plan{Operation: "undo", Keys: append([]string{}, r.Keys...), Undoes: r.Token,
		Note: fmt.Sprintf("undo of %s %s (token %s): each item is set back only if it is still as that write left it",
			r.Operation, Printable(strings.Join(r.Keys, ", ")), r.Token)}
	for _, it := range r.Items {
		a, ok := s.restore(it, now(it.Table, it.Key))
		if !ok {
			continue
		}
		if a.Kind == ActDelete && a.Constraint < 0 && a.Account != "" {
			p.MustType = a.Account // deleting an account: type its key back
		}
		p.Actions = append(p.Actions, a)
	}
	if len(p.Actions) == 0 {
		return p, &FieldError{"undo", "the write " + r.Token + " changed nothing to undo"}
	}
	return s.finish(p)
}

// restore is the action that sets one item back to how it was before the
// write, guarded by the item being as the write left it.
func (s Planner) restore(it UndoItem, now Item) (Action, bool) {
	e := Classifier(s).Classify(it.Table, firstItem(it.Before, it.After, KeyItem(it.Key)))
	a := Action{Role: RoleRestore, Table: it.Table, Key: it.Key, Constraint: -1}
	switch e.Kind {
	case EntryAccount:
		a.Account = e.ID
	case EntryLock:
		a.Constraint, a.Value, a.Account = e.Constraint, e.Value, e.Owner
	}
	pk := s.Schema.PK
	if a.Constraint >= 0 {
		pk = s.Schema.LockPK(a.Constraint)
	}
	switch {
	case it.Before == nil && it.After == nil:
		return a, false
	case it.After == nil: // deleted: put it back
		return s.putBack(a, e.Kind, it.Before, pk), true
	case it.Before == nil: // created: delete it
		a.Kind = ActDelete
	default: // updated: set it back
		a.Kind = ActUpdate
		a.Set, a.Remove = setBack(it)
		if len(a.Set) == 0 && len(a.Remove) == 0 {
			return a, false
		}
		a.Conds = []Cond{{Kind: CondExists, Attr: pk}}
	}
	a.Conds = append(a.Conds, asLeft(it, now)...)
	return a, true
}

// putBack makes a put back before, an item as it was before the write
// deleted it. It commits only where nothing holds the key now (for a lock,
// nothing unexpired), so an undo never overwrites what came after. A lock
// deleted while locktable's claim was on it goes back without the claim,
// naming no owner, as it was before the claim.
func (s Planner) putBack(a Action, kind EntryKind, before Item, pk string) Action {
	a.Kind, a.Item = ActPut, maps.Clone(before)
	if o, ok := a.Item[s.Schema.OwnerAttr]; kind == EntryLock && ok && o.Kind == KindS && IsClaim(o.S) {
		delete(a.Item, s.Schema.OwnerAttr)
		a.Account = ""
	}
	a.Conds = []Cond{{Kind: CondNotExists, Attr: pk}}
	if a.Constraint >= 0 { // a lock: an expired one there is no obstacle
		a.Conds = []Cond{s.freeLock(a.Constraint)}
	}
	switch {
	case kind == EntryAccount:
		a.Role = RoleCreateAccount
	case kind == EntryLock && a.Account != "":
		a.Role = RoleTakeLock // a holder lookup clears its value first
	}
	return a
}

// setBack is what sets an item the write updated back: the non-key
// attributes it had before with the value they had (where the write
// changed or removed them), and the removal of those the write added.
func setBack(it UndoItem) (set map[string]Value, remove []string) {
	set = map[string]Value{}
	for name, v := range it.Before {
		if _, isKey := it.Key[name]; isKey {
			continue
		}
		if av, ok := it.After[name]; !ok || av.DynamoJSON() != v.DynamoJSON() {
			set[name] = v
		}
	}
	for _, name := range it.After.SortedNames() {
		if _, was := it.Before[name]; !was {
			remove = append(remove, name)
		}
	}
	return set, remove
}

// asLeft is the conditions that an item is exactly as the write left it:
// each attribute it left equal, each other attribute now present absent.
func asLeft(it UndoItem, now Item) []Cond {
	var conds []Cond
	for _, name := range it.After.SortedNames() {
		if _, isKey := it.Key[name]; !isKey {
			conds = append(conds, Cond{Kind: CondEquals, Attr: name, Value: it.After[name]})
		}
	}
	for _, name := range now.SortedNames() {
		if _, left := it.After[name]; !left {
			if _, isKey := it.Key[name]; !isKey {
				conds = append(conds, Cond{Kind: CondEquals, Attr: name, Absent: true})
			}
		}
	}
	return conds
}

func firstItem(items ...Item) Item {
	for _, it := range items {
		if it != nil {
			return it
		}
	}
	return nil
}

// restoreNoun is what a restore action is about, in words.
func (a Action) restoreNoun() string {
	switch {
	case a.Constraint >= 0:
		return "lock"
	case a.Account != "":
		return "account"
	}
	return "item"
}

// restorePurpose is Purpose for RoleRestore.
func (a Action) restorePurpose(k string) string {
	n := a.restoreNoun()
	switch a.Kind {
	case ActPut:
		return "put " + n + " " + k + " back as it was"
	case ActDelete:
		return "delete " + n + " " + k + ", which that write created"
	}
	return "set " + n + " " + k + " back as it was"
}
