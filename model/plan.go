package model

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxActions is DynamoDB's limit of actions in one transaction.
const MaxActions = 100

// ActionKind is what one action of a transaction does; the names are the
// TransactItems member names of the API.
type ActionKind string

// The kinds of transaction action.
const (
	ActPut    ActionKind = "Put"
	ActUpdate ActionKind = "Update"
	ActDelete ActionKind = "Delete"
	ActCheck  ActionKind = "ConditionCheck"
)

// Role says what an action is for, so that a failed condition can be told
// in words a person acts on.
type Role uint8

// The roles of actions.
const (
	RoleCreateAccount Role = iota // put a new account: it must not exist
	RoleAccount                   // update, delete or check a loaded account: it must be unchanged
	RoleTakeLock                  // put a lock: the value must be free
	RoleReleaseLock               // delete a lock the account holds
	RoleKeepLock                  // a lock left to others: it must be unchanged
	RoleOrphanLock                // repair: delete an orphan lock, unchanged
	RoleOwnerGone                 // repair: the orphan's owner still does not hold the value
	RoleHandLock                  // repair: give a foreign lock to its holder
	RoleClaimLock                 // repair: claim an ownerless orphan lock (step 1 of Reclaim)
	RoleGiveBack                  // repair: remove a claim from a lock someone holds (step 3 of Reclaim)
	RoleRestore                   // undo: set an item back, if it is still as the write left it
	RoleExpiredLock               // repair: delete an expired lock nobody holds, still expired
	RoleKeepForGood               // repair: remove an expired or expiring lock's TTL, for its holder
	RoleNoAltLock                 // the value has no lock in its constraint's other spelling: it must be free
)

// CondKind is one kind of condition the pattern uses.
type CondKind uint8

// The condition kinds.
const (
	CondNotExists       CondKind = iota // attribute_not_exists(Attr)
	CondEquals                          // Attr = Value, or attribute_not_exists(Attr) when Absent
	CondAbsentOrDiffers                 // attribute_not_exists(Key) OR Attr <> Value
	CondExists                          // attribute_exists(Attr)
	CondNotAfter                        // Attr <= Value: a TTL that has passed by then
	CondFreeOrExpired                   // attribute_not_exists(Attr) OR TTL <= Now: no lock, or an expired one
)

// Cond is one condition of an action; an action's conditions are ANDed.
type Cond struct {
	Kind   CondKind
	Attr   string
	Value  Value
	Absent bool   // CondEquals: the attribute was loaded absent
	Key    string // CondAbsentOrDiffers: the item's partition key attribute
	// TTL and Now are CondFreeOrExpired's: the lock table's TTL attribute,
	// and the epoch second a lock's TTL is compared with, which
	// dynamo.Store.Prepare sets to the time it builds the request.
	TTL string
	Now int64
	// Seen marks a guard on what a person was shown rather than one the
	// pattern requires: the first to go when an expression would be too
	// long (see Unseen).
	Seen bool
}

// Action is one action of a guarded transaction.
type Action struct {
	Kind   ActionKind
	Role   Role
	Table  string
	Key    map[string]string
	Item   Item             // Put: the whole item
	Set    map[string]Value // Update: SET
	Remove []string         // Update: REMOVE
	Conds  []Cond
	// Constraint and Value say which lock a lock action is about
	// (Constraint is -1 for account actions); Account names the account.
	Constraint int
	Value      string
	Account    string
}

// KeyText is the action's item key as a person reads it: the partition key
// value, with its table when that is not the account table.
func (a Action) KeyText(s *Schema) string {
	if a.Table == s.Table && s.AccountSK == KeyInID && s.SK != "" {
		return WholeKeyID(a.Key[s.PK], a.Key[s.SK]) // items share partition keys: the whole key
	}
	for name, v := range a.Key {
		if name == s.PK && a.Table == s.Table {
			return v
		}
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(a.Key)) {
		parts = append(parts, a.Key[k])
	}
	return a.Table + "/" + strings.Join(parts, "/")
}

// Purpose says in words what the action does, e.g. "put lock
// UNIQ#EMAIL#ada@lovelace.io (owner ACCT#a1f9c3)". It says nothing of the
// action's conditions: the preview says those from the request itself
// (Cond.Sentence), so no text can promise a guard that is not sent.
func (a Action) Purpose(s *Schema) string {
	k := a.KeyText(s)
	switch a.Role {
	case RoleCreateAccount:
		return "put account " + k
	case RoleAccount:
		verb := map[ActionKind]string{ActUpdate: "update", ActDelete: "delete", ActCheck: "check"}[a.Kind]
		return verb + " account " + k
	case RoleTakeLock:
		return a.takePurpose(s, k)
	case RoleReleaseLock:
		return "delete lock " + k + ", released by " + a.Account
	case RoleKeepLock:
		return "check lock " + k + ": not " + a.Account + "'s to release, left to its holders"
	case RoleOrphanLock:
		return "delete orphan lock " + k
	case RoleOwnerGone:
		return "check account " + k + ", the orphan's owner"
	case RoleHandLock:
		return "set the owner of lock " + k + " to " + a.Account
	case RoleClaimLock:
		return "claim lock " + k + " (owner " + a.Account + ")"
	case RoleGiveBack:
		return "give lock " + k + " back: remove locktable's claim"
	case RoleRestore:
		return a.restorePurpose(k)
	case RoleExpiredLock:
		return "delete expired lock " + k + " (DynamoDB would, eventually)"
	case RoleKeepForGood:
		return "keep lock " + k + " for good, for " + a.Account
	case RoleNoAltLock:
		return "check lock " + k + ", the value's lock in the other spelling"
	}
	return string(a.Kind) + " " + k
}

// takePurpose is Purpose of the put of a lock keyed k: whose it is, and
// how the value is compared where the key holds it normalized (ElectroDB
// lower-cases the keys it composes).
func (a Action) takePurpose(s *Schema, k string) string {
	p := "put lock " + k + " (owner " + a.Account + ")"
	if s.OwnerlessLocks {
		p = "put lock " + k + " for " + a.Account + " (no owner written, as the library writes none)"
	}
	if a.Constraint >= 0 && a.Constraint < len(s.Constraints) {
		if c := s.Constraints[a.Constraint]; c.Normalize != NormalizeNone {
			p += "; " + c.Attr + " compared " + string(c.Normalize) + "-normalized, as the key holds it: " + a.Value
		}
	}
	return p
}

// Plan is one guarded transaction, built before anything is sent.
type Plan struct {
	Operation string   // signup, rename, delete, repair
	Keys      []string // the keys involved, for reports and the audit log
	Actions   []Action
	Note      string // what a person should know, e.g. why an action is missing
	// Reclaim is set on the repair of an ownerless orphan lock, which is
	// more than one transaction: the actions are its first step.
	Reclaim *Reclaim
	// MustType is what a person confirming the plan types back, where y
	// is not enough: the account's key for a delete, the owner a lock
	// still names for a repair that takes the lock from it; "" otherwise.
	MustType string
	// Undoes is, for an undo, the token of the write it inverts.
	Undoes string
}

// TypeBack is MustType as a person is asked to type it: written as the
// write form shows a value (EscapeText), so that a key holding a control
// character, which no key and no paste can give raw, can still be typed
// back, and a backslash shown is one typed.
func (p Plan) TypeBack() string { return EscapeText(p.MustType) }

// WCUPerItem is the write capacity a transaction takes for each item it
// writes (a put, an update or a delete of up to 1 KB); a condition check
// writes nothing. --max-wcu paces transactions by it.
const WCUPerItem = 2

// PaceSaid says what plans take of a write budget of wcu units a second
// (--max-wcu): "8 write capacity units, at least 4 s".
func PaceSaid(plans []Plan, wcu float64) string {
	units := 0.0
	for _, p := range plans {
		units += p.WriteUnits()
	}
	return fmt.Sprintf("%s write capacity units, at least %s", strconv.FormatFloat(units, 'f', -1, 64), Until(int64(math.Ceil(units/wcu)), 0))
}

// WriteUnits is the write capacity the plan's transactions take
// (WCUPerItem for each item they write): its own, and for the claim of
// a reclaim, the transaction of step 3 that Execute sends after it
// (delete the lock or give it back: one item).
func (p Plan) WriteUnits() float64 {
	n := 0
	for _, a := range p.Actions {
		if a.Kind != ActCheck {
			n++
		}
	}
	if p.Reclaim != nil && !p.Reclaim.Resume {
		n++
	}
	return float64(WCUPerItem * n)
}

// TypedBack reports whether text, as typed, is MustType: read as the
// write form reads a field (UnescapeText), or byte for byte, as `c`
// copies a key that holds a backslash but nothing to escape.
func (p Plan) TypedBack(text string) bool {
	return text == p.MustType || UnescapeText(text) == p.MustType
}

// ErrNoChange is a rename whose values are the ones the account has:
// nothing to do.
var ErrNoChange = errors.New("nothing changes")

// FieldError is invalid input to a write, named by its field.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// ValidateText rejects a new value that must not be written: not UTF-8,
// or with control characters.
func ValidateText(field, v string) error {
	if !utf8.ValidString(v) {
		return &FieldError{field, "not valid UTF-8"}
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return &FieldError{field, fmt.Sprintf("contains the control character U+%04X", r)}
		}
	}
	return nil
}

// validateKey checks a key value against DynamoDB's size limits.
func validateKey(field, v string, limit int) error {
	switch {
	case v == "":
		return &FieldError{field, "a key must not be empty"}
	case len(v) > limit:
		return &FieldError{field, fmt.Sprintf("key is %d bytes; DynamoDB allows %d", len(v), limit)}
	}
	return nil
}

// Planner builds the guarded transactions (Plan) of the pattern's writes
// for a schema: signup, rename, delete, the repairs, their reclaim steps
// and undo. Nothing is sent: package dynamo prepares and sends a plan.
type Planner struct{ Schema *Schema }

// validateAccountID checks an account key value for this schema.
func (s Planner) validateAccountID(id string) error {
	if err := ValidateText("account", id); err != nil {
		return err
	}
	if pk, sk, ok := SplitWholeKeyID(id); s.Schema.AccountSK == KeyInID && (!ok || pk == "" || sk == "") {
		return &FieldError{"account", fmt.Sprintf("%q: accounts here are named by their whole key, PK%sSK", id, IDKeySep)}
	}
	if !strings.HasPrefix(id, s.Schema.AccountPrefix) {
		return &FieldError{"account", fmt.Sprintf("%q does not start with the account prefix %q", id, s.Schema.AccountPrefix)}
	}
	return validateKey("account", id, MaxPartitionKeyBytes)
}

// newLock builds the guarded put of the lock of constraint ci for the
// normalized value v, owned by id, whose item acct holds the value.
func (s Planner) newLock(ci int, v, id string, acct Item) (Action, error) {
	c := s.Schema.Constraints[ci]
	table, key := s.Schema.LockKey(ci, v)
	pk := s.Schema.LockPK(ci)
	if err := validateKey(c.Attr, key[pk], MaxPartitionKeyBytes); err != nil {
		return Action{}, err
	}
	item := Item{}
	if !s.Schema.OwnerlessLocks {
		item[s.Schema.OwnerAttr] = S(id)
	}
	for _, a := range s.Schema.LockAttrs {
		item[a.Attr] = S(a.Value)
	}
	for _, a := range c.LockAttrsFor(acct[c.Attr].S, v) {
		item[a.Attr] = S(a.Value)
	}
	for k, kv := range key {
		item[k] = S(kv)
	}
	return Action{Kind: ActPut, Role: RoleTakeLock, Table: table, Key: key, Item: item,
		Conds: []Cond{s.freeLock(ci)}, Constraint: ci, Value: v, Account: id}, nil
}

// freeLock is the guard of a put of constraint ci's lock: no lock there
// (attribute_not_exists of its partition key), or, where its lock table
// has a TTL attribute, an expired one. DynamoDB deletes an expired item
// only eventually, and until then it would block the value; the put
// replaces it with a lock that has no TTL.
func (s Planner) freeLock(ci int) Cond {
	pk := s.Schema.LockPK(ci)
	if ttl := s.Schema.LockTTLAttr(ci); ttl != "" {
		return Cond{Kind: CondFreeOrExpired, Attr: pk, TTL: ttl}
	}
	return Cond{Kind: CondNotExists, Attr: pk}
}

// loadedCond is "attr = :loaded" for an account attribute exactly as it
// was loaded, never normalized (absent: attribute_not_exists).
func loadedCond(it Item, attr string) Cond {
	v, ok := it[attr]
	return Cond{Kind: CondEquals, Attr: attr, Value: v, Absent: !ok}
}

func (s Planner) finish(p Plan) (Plan, error) {
	if len(p.Actions) == 0 {
		return p, &FieldError{"plan", "nothing to do"}
	}
	if len(p.Actions) > MaxActions {
		return p, &FieldError{"plan", fmt.Sprintf("%d actions; a transaction holds at most %d", len(p.Actions), MaxActions)}
	}
	return p, nil
}

// Signup plans a new account id with attributes attrs and a lock, owned by
// the account, for each unique attribute it holds.
func (s Planner) Signup(id string, attrs map[string]string) (Plan, error) {
	if err := s.validateAccountID(id); err != nil {
		return Plan{}, err
	}
	key := s.Schema.AccountKey(id)
	item := KeyItem(key)
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		if _, isKey := key[name]; isKey || name == "" {
			return Plan{}, &FieldError{name, "is a key attribute: the account's id gives it"}
		}
		if err := ValidateText(name, attrs[name]); err != nil {
			return Plan{}, err
		}
		if name == s.Schema.AccountType.Attr && attrs[name] != s.Schema.AccountType.Value {
			return Plan{}, &FieldError{name, fmt.Sprintf("is the type attribute: accounts have %s=%s", name, s.Schema.AccountType.Value)}
		}
		if attrs[name] != "" {
			item[name] = S(attrs[name])
		}
	}
	s.typeAccount(item)
	if s.Schema.IDAttr != "" {
		prefix := AccountIDs(s).KeyPrefix()
		want, ok := strings.CutPrefix(id, prefix)
		if !ok {
			return Plan{}, &FieldError{s.Schema.IDAttr, fmt.Sprintf("is the account's id after %q in its key; %q does not start with it", prefix, id)}
		}
		if v := attrs[s.Schema.IDAttr]; v != "" && v != want {
			return Plan{}, &FieldError{s.Schema.IDAttr, fmt.Sprintf("is the account's id, its key without %q: %q, not %q", prefix, want, v)}
		}
		if want != "" {
			item[s.Schema.IDAttr] = S(want)
		}
	}
	p := Plan{Operation: "signup", Keys: []string{id}}
	p.Actions = append(p.Actions, Action{Kind: ActPut, Role: RoleCreateAccount, Table: s.Schema.Table, Key: key, Item: item,
		Conds: []Cond{{Kind: CondNotExists, Attr: s.Schema.PK}}, Constraint: -1, Account: id})
	for ci, c := range s.Schema.Constraints {
		switch h, v := s.Schema.Held(ci, item); h {
		case HoldsInvalid:
			return Plan{}, &FieldError{c.Attr, "lock key would exceed 2048 bytes"}
		case HoldsValue:
			take, err := s.takeLock(ci, v, id, item)
			if err != nil {
				return Plan{}, err
			}
			p.Actions = append(p.Actions, take...)
			p.Keys = append(p.Keys, take[0].KeyText(s.Schema))
		}
	}
	return s.finish(p)
}

// typeAccount writes on a new account's item what the library tells
// its accounts by: the type attribute, and the other attributes it
// writes there where the signup gave none.
func (s Planner) typeAccount(item Item) {
	if s.Schema.AccountType.Attr != "" {
		item[s.Schema.AccountType.Attr] = S(s.Schema.AccountType.Value)
	}
	for _, a := range s.Schema.AccountAttrs {
		if _, given := item[a.Attr]; !given {
			item[a.Attr] = S(a.Value)
		}
	}
}

// OthersHold says whether accounts other than the one being changed are
// known to hold value v of constraint ci.
type OthersHold func(ci int, v string) bool

// release plans what happens to account a's lock of constraint ci when it
// stops holding the value: deleted when it names a, or names nobody while a
// is the only holder known; otherwise left to its holders and checked to be
// unchanged. A lock that was not there needs nothing.
func (s Planner) release(a AccountView, ci int, others OthersHold) (Action, bool) {
	l := a.Locks[ci]
	if l.Item == nil || l.Value == "" {
		return Action{}, false
	}
	table, key := s.Schema.LockKeyAs(ci, l.Value, l.Alt)
	act := Action{Table: table, Key: key, Constraint: ci, Value: l.Value, Account: a.ID}
	owner, hasOwner := l.Item[s.Schema.OwnerAttr]
	ownerCond := Cond{Kind: CondEquals, Attr: s.Schema.OwnerAttr, Value: owner, Absent: !hasOwner}
	switch {
	case hasOwner && owner.Kind == KindS && owner.S == a.ID,
		!hasOwner && (others == nil || !others(ci, l.Value)):
		act.Kind, act.Role = ActDelete, RoleReleaseLock
	default:
		act.Kind, act.Role = ActCheck, RoleKeepLock
	}
	act.Conds = []Cond{ownerCond}
	return act, true
}

// Rename plans changing unique attributes of the loaded account a to the
// values in changes ("" removes the value): the account updated if each
// changed attribute is as loaded, each new value's lock put, each old
// lock released. A change that normalizes to the same lock only updates
// the account (and puts the lock if it was missing: the rename then also
// repairs it).
//
// seen is the account as a person was shown it (nil headless): then the
// update is guarded on every unique attribute as seen, changed or not,
// so that "unchanged since it was loaded" holds of what was on screen.
func (s Planner) Rename(a AccountView, changes map[string]string, others OthersHold, seen Item) (Plan, error) {
	p := Plan{Operation: "rename", Keys: []string{a.ID}}
	upd := Action{Kind: ActUpdate, Role: RoleAccount, Table: s.Schema.Table, Key: s.Schema.AccountKey(a.ID),
		Set: map[string]Value{}, Constraint: -1, Account: a.ID}
	var locks []Action
	for _, attr := range slices.Sorted(maps.Keys(changes)) {
		nv := changes[attr]
		ci := s.Schema.Constraint(attr)
		if ci < 0 {
			return Plan{}, &FieldError{attr, "is not a unique attribute of the schema"}
		}
		if err := ValidateText(attr, nv); err != nil {
			return Plan{}, err
		}
		if old, ok := a.Item[attr]; ok && old.Kind == KindS && old.S == nv {
			continue // unchanged
		}
		upd.Conds = append(upd.Conds, loadedCond(firstItem(seen, a.Item), attr))
		if nv == "" {
			upd.Remove = append(upd.Remove, attr)
		} else {
			upd.Set[attr] = S(nv)
		}
		moved, keys, same, err := s.relock(a, ci, attr, nv, others)
		if err != nil {
			return Plan{}, err
		}
		if same {
			p.Note = "a change that normalizes to the same lock only updates the account"
		}
		locks = append(locks, moved...)
		p.Keys = append(p.Keys, keys...)
	}
	if len(upd.Conds) == 0 {
		return Plan{}, ErrNoChange
	}
	upd.Conds = s.renameGuards(upd.Conds, seen)
	p.Actions = append([]Action{upd}, locks...)
	return s.finish(p)
}

// relock plans the locks that follow account a's attr, of constraint ci,
// to its new value nv: the new value's lock taken, the old one released;
// keys names the locks, for the plan's keys. same reports a value that
// normalizes to the lock a already holds, which needs no lock action.
func (s Planner) relock(a AccountView, ci int, attr, nv string, others OthersHold) (locks []Action, keys []string, same bool, err error) {
	next := maps.Clone(a.Item) // the scope, if any, stays the account's
	if next == nil {
		next = Item{}
	}
	next[attr] = S(nv)
	switch nh, nn := s.Schema.Held(ci, next); {
	case nh == HoldsInvalid:
		return nil, nil, false, &FieldError{attr, "lock key would exceed 2048 bytes"}
	case nh == HoldsValue && nn == a.Locks[ci].Value && a.Locks[ci].Item != nil:
		return nil, nil, true, nil
	case nh == HoldsValue:
		take, err := s.takeLock(ci, nn, a.ID, next)
		if err != nil {
			return nil, nil, false, err
		}
		locks, keys = take, []string{take[0].KeyText(s.Schema)}
	}
	if rel, ok := s.release(a, ci, others); ok {
		locks = append(locks, rel)
		keys = append(keys, rel.KeyText(s.Schema))
	}
	return locks, keys, false, nil
}

// renameGuards completes the conditions of a rename's update, conds (one
// per changed attribute): where a person was shown the account (seen
// non-nil), every other unique attribute is guarded as seen too; and any
// "attribute absent" is joined by the account's key existing.
func (s Planner) renameGuards(conds []Cond, seen Item) []Cond {
	if seen != nil {
		for _, c := range s.Schema.Constraints {
			if !slices.ContainsFunc(conds, func(k Cond) bool { return k.Attr == c.Attr }) {
				g := loadedCond(seen, c.Attr)
				g.Seen = true
				conds = append(conds, g)
			}
		}
	}
	if slices.ContainsFunc(conds, func(c Cond) bool { return c.Absent }) {
		// "attr absent" alone would also hold for a deleted account,
		// and the update would create a stub of it.
		conds = append([]Cond{{Kind: CondExists, Attr: s.Schema.PK}}, conds...)
	}
	return conds
}

// Delete plans deleting the loaded account a, if each unique attribute is
// as loaded (as seen, where a person was shown it: seen non-nil), and
// releasing each of its locks by the rule of Rename.
func (s Planner) Delete(a AccountView, others OthersHold, seen Item) (Plan, error) {
	del := Action{Kind: ActDelete, Role: RoleAccount, Table: s.Schema.Table, Key: s.Schema.AccountKey(a.ID), Constraint: -1, Account: a.ID}
	for _, c := range s.Schema.Constraints {
		del.Conds = append(del.Conds, loadedCond(firstItem(seen, a.Item), c.Attr))
	}
	p := Plan{Operation: "delete", Keys: []string{a.ID}, Actions: []Action{del}, MustType: a.ID}
	for ci := range s.Schema.Constraints {
		if rel, ok := s.release(a, ci, others); ok {
			p.Actions = append(p.Actions, rel)
			p.Keys = append(p.Keys, rel.KeyText(s.Schema))
		}
	}
	return s.finish(p)
}

// RepairOrphan plans deleting a confirmed orphan lock, as loaded; where it
// names an owner, the transaction also checks that the owner still does not
// hold the value.
//
// A lock that names no owner cannot be deleted safely in one transaction
// (see Reclaim): it is claimed with claim as its owner, and a claim left
// by an interrupted repair is resumed.
func (s Planner) RepairOrphan(p Problem, lock Item, claim string) (Plan, error) {
	switch owner, named := lock[s.Schema.OwnerAttr]; {
	case !named:
		return s.Reclaim(p, claim, false)
	case owner.Kind == KindS && IsClaim(owner.S):
		return s.Reclaim(p, owner.S, true)
	}
	ci := p.constraint
	table, key := s.Schema.LockOf(p) // in the spelling it has
	owner, hasOwner := lock[s.Schema.OwnerAttr]
	del := Action{Kind: ActDelete, Role: RoleOrphanLock, Table: table, Key: key, Constraint: ci, Value: p.Value,
		Conds: []Cond{{Kind: CondEquals, Attr: s.Schema.OwnerAttr, Value: owner, Absent: !hasOwner}}}
	plan := Plan{Operation: "repair", Actions: []Action{del}, MustType: s.Schema.NamedOwner(lock)}
	plan.Keys = []string{del.KeyText(s.Schema)}
	if hasOwner && owner.Kind == KindS && s.Schema.NamesAccount(owner.S) {
		plan.Actions = append(plan.Actions, Action{Kind: ActCheck, Role: RoleOwnerGone, Table: s.Schema.Table,
			Key: s.Schema.AccountKey(owner.S), Constraint: ci, Value: p.Value, Account: owner.S,
			Conds: []Cond{{Kind: CondAbsentOrDiffers, Attr: s.Schema.Constraints[ci].Attr, Value: S(p.Value), Key: s.Schema.PK}}})
		plan.Keys = append(plan.Keys, owner.S)
	}
	return s.finish(plan)
}

// RepairMissing plans putting the missing lock of a problem with exactly
// one holder, checking that the holder still holds the value as loaded.
func (s Planner) RepairMissing(p Problem, holder AccountView) (Plan, error) {
	attr := s.Schema.Constraints[p.constraint].Attr
	take, err := s.takeLock(p.constraint, p.Value, holder.ID, holder.Item)
	if err != nil {
		return Plan{}, err
	}
	check := Action{Kind: ActCheck, Role: RoleAccount, Table: s.Schema.Table, Key: s.Schema.AccountKey(holder.ID),
		Conds: []Cond{loadedCond(holder.Item, attr)}, Constraint: -1, Account: holder.ID}
	return s.finish(Plan{Operation: "repair", Keys: []string{take[0].KeyText(s.Schema), holder.ID}, Actions: append(take, check)})
}

// RepairForeign plans handing a foreign lock, as loaded, to the one account
// that holds its value, checking that it still does.
func (s Planner) RepairForeign(p Problem, lock Item, holder AccountView) (Plan, error) {
	ci := p.constraint
	attr := s.Schema.Constraints[ci].Attr
	table, key := s.Schema.LockOf(p) // in the spelling it has
	owner, hasOwner := lock[s.Schema.OwnerAttr]
	hand := Action{Kind: ActUpdate, Role: RoleHandLock, Table: table, Key: key, Constraint: ci, Value: p.Value,
		Set: map[string]Value{s.Schema.OwnerAttr: S(holder.ID)}, Account: holder.ID,
		Conds: []Cond{{Kind: CondEquals, Attr: s.Schema.OwnerAttr, Value: owner, Absent: !hasOwner}}}
	check := Action{Kind: ActCheck, Role: RoleAccount, Table: s.Schema.Table, Key: s.Schema.AccountKey(holder.ID),
		Conds: []Cond{loadedCond(holder.Item, attr)}, Constraint: -1, Account: holder.ID}
	return s.finish(Plan{Operation: "repair", Keys: []string{hand.KeyText(s.Schema), holder.ID}, Actions: []Action{hand, check},
		MustType: s.Schema.NamedOwner(lock)})
}

// RepairExpired plans deleting an expired lock whose value nobody holds,
// as DynamoDB's TTL will eventually: only while it is still expired at
// now (its TTL, not renewed meanwhile, is not after now), which no signup
// that took the value over leaves it (a new lock has no TTL).
func (s Planner) RepairExpired(p Problem, lock Item, now int64) (Plan, error) {
	ci := p.constraint
	attr := s.Schema.LockTTLAttr(ci)
	if attr == "" {
		return Plan{}, fmt.Errorf("%s locks have no TTL attribute", s.Schema.Constraints[ci].Attr)
	}
	table, key := s.Schema.LockOf(p) // in the spelling it has
	del := Action{Kind: ActDelete, Role: RoleExpiredLock, Table: table, Key: key, Constraint: ci, Value: p.Value,
		Conds: []Cond{{Kind: CondNotAfter, Attr: attr, Value: N(strconv.FormatInt(now, 10))}}}
	return s.finish(Plan{Operation: "repair", Keys: []string{del.KeyText(s.Schema)}, Actions: []Action{del}})
}

// RepairForGood plans making an expired or expiring lock permanent for
// holder, the lock's owner (or, where it names none, the value's one
// holder): its TTL removed while the lock still names that owner and
// still has the TTL read, and the holder still holds the value as loaded.
func (s Planner) RepairForGood(p Problem, lock Item, holder AccountView) (Plan, error) {
	ci := p.constraint
	attr := s.Schema.LockTTLAttr(ci)
	ttl, ok := lock[attr]
	if attr == "" || !ok {
		return Plan{}, fmt.Errorf("lock %s has no TTL to remove", Printable(p.Value))
	}
	table, key := s.Schema.LockOf(p) // in the spelling it has
	owner, hasOwner := lock[s.Schema.OwnerAttr]
	keep := Action{Kind: ActUpdate, Role: RoleKeepForGood, Table: table, Key: key, Constraint: ci, Value: p.Value,
		Remove: []string{attr}, Account: holder.ID,
		Conds: []Cond{{Kind: CondEquals, Attr: s.Schema.OwnerAttr, Value: owner, Absent: !hasOwner}, {Kind: CondEquals, Attr: attr, Value: ttl}}}
	check := Action{Kind: ActCheck, Role: RoleAccount, Table: s.Schema.Table, Key: s.Schema.AccountKey(holder.ID),
		Conds: []Cond{loadedCond(holder.Item, s.Schema.Constraints[ci].Attr)}, Constraint: -1, Account: holder.ID}
	return s.finish(Plan{Operation: "repair", Keys: []string{keep.KeyText(s.Schema), holder.ID}, Actions: []Action{keep, check}})
}

// Applied reports whether now, the item at an action's key read after the
// transaction, shows the action's effect: a put item there as put, a
// deleted item gone, an update's values set and removals gone.
func Applied(a Action, now Item) bool {
	switch a.Kind {
	case ActPut:
		if now == nil || len(now) != len(a.Item) {
			return false
		}
		for k, v := range a.Item {
			if nv, ok := now[k]; !ok || nv.DynamoJSON() != v.DynamoJSON() {
				return false
			}
		}
		return true
	case ActDelete:
		return now == nil
	case ActUpdate:
		if now == nil {
			return false
		}
		for k, v := range a.Set {
			if nv, ok := now[k]; !ok || nv.DynamoJSON() != v.DynamoJSON() {
				return false
			}
		}
		for _, k := range a.Remove {
			if _, ok := now[k]; ok {
				return false
			}
		}
		return true
	}
	return true
}
