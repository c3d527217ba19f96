package model

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ProblemKind names an integrity problem; the names are part of the JSON
// contract of `locktable check`.
type ProblemKind string

// The problem kinds, in the order the human report lists them.
const (
	MissingLock    ProblemKind = "missing_lock"
	OrphanLock     ProblemKind = "orphan_lock"
	ForeignLock    ProblemKind = "foreign_lock"
	DuplicateValue ProblemKind = "duplicate_value"
	InvalidValue   ProblemKind = "invalid_value"
	// ExpiredLock is a lock whose TTL has passed: it still blocks its
	// value until DynamoDB deletes it. Never also an orphan or foreign
	// lock, and its holders are reported by it, not by missing_lock.
	ExpiredLock ProblemKind = "expired_lock"
	// ExpiringLock is a reserved lock (TTL ahead) whose value has a holder
	// that does not expire with it: when the lock goes, the value is
	// unprotected.
	ExpiringLock ProblemKind = "expiring_lock"
)

// ProblemKinds lists every kind in report order.
var ProblemKinds = []ProblemKind{MissingLock, OrphanLock, ForeignLock, ExpiredLock, ExpiringLock, DuplicateValue, InvalidValue}

// Problem is one integrity problem of one constraint.
type Problem struct {
	Kind       ProblemKind `json:"kind"`
	Constraint string      `json:"constraint"`
	// Value is the normalized value for holder-based kinds, the lock's raw
	// value for orphan_lock and foreign_lock, and the attribute as DynamoDB
	// JSON for invalid_value.
	Value     string            `json:"value"`
	Lock      map[string]string `json:"lock,omitempty"`
	LockTable string            `json:"lock_table,omitempty"`
	Owner     string            `json:"owner,omitempty"`
	// Accounts are the holders of the value, sorted (never the owner).
	Accounts []string `json:"accounts"`
	// ExpiresAt is the lock's TTL, in epoch seconds, for expired_lock and
	// expiring_lock, in whose JSON it always is (0 too: long past), and
	// in no other's (see MarshalJSON).
	ExpiresAt int64 `json:"-"`

	constraint int // index in Schema.Constraints, for ordering
}

// problemJSON is a Problem as the JSON contract has it: expires_at only
// for the kinds about a TTL.
type problemJSON struct {
	plainProblem
	ExpiresAt *int64 `json:"expires_at,omitempty"`
}

// plainProblem is Problem without its methods, so that problemJSON
// marshals its fields rather than calling MarshalJSON again.
type plainProblem Problem

// TTLKind reports whether kind is about a lock's TTL: expired_lock or
// expiring_lock, the kinds that carry expires_at.
func TTLKind(kind ProblemKind) bool { return kind == ExpiredLock || kind == ExpiringLock }

// MarshalJSON writes p with expires_at where its kind is about a TTL.
func (p Problem) MarshalJSON() ([]byte, error) {
	j := problemJSON{plainProblem: plainProblem(p)}
	if TTLKind(p.Kind) {
		j.ExpiresAt = &p.ExpiresAt
	}
	return marshal(j) // HTML left unescaped, as the report's encoder does
}

// UnmarshalJSON reads p as MarshalJSON writes it.
func (p *Problem) UnmarshalJSON(b []byte) error {
	var j problemJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = Problem(j.plainProblem)
	if j.ExpiresAt != nil {
		p.ExpiresAt = *j.ExpiresAt
	}
	return nil
}

// ConstraintIndex returns the index of the problem's constraint in the schema.
func (p Problem) ConstraintIndex() int { return p.constraint }

// LeftToAPerson says why p is never repaired automatically, "" when a
// repair can be planned: a duplicate, an invalid value, and a missing or
// foreign lock with several holders need a person to decide.
func (p Problem) LeftToAPerson() string {
	switch {
	case p.Kind == DuplicateValue:
		return "two or more accounts hold the value: rename or delete one of them"
	case p.Kind == InvalidValue:
		return "the value cannot be locked as it is: fix the attribute (rename) or delete the account"
	case len(p.Accounts) > 1 && (p.Kind == MissingLock || p.Kind == ForeignLock):
		return fmt.Sprintf("%d accounts hold the value: a person decides which keeps it", len(p.Accounts))
	case TTLKind(p.Kind):
		return p.ttlLeft()
	}
	return ""
}

// ttlLeft is LeftToAPerson for an expired or expiring lock: repaired
// when nobody holds an expired lock's value (deleted), or when its owner
// holds the value, or, naming none, its one holder does (made permanent);
// a lock naming another account than the holders, or naming none with
// several holders, is a person's to decide.
func (p Problem) ttlLeft() string {
	switch {
	case len(p.Accounts) == 0:
		return "" // expired: deleted
	case p.Keeper() != "":
		return "" // made permanent for its keeper
	case p.Owner != "":
		return "the lock names " + Printable(p.Owner) + ", who does not hold the value: a person decides who keeps it"
	}
	return fmt.Sprintf("%d accounts hold the value and the lock names none of them: a person decides which keeps it", len(p.Accounts))
}

// Keeper is the account an expired or expiring lock is made permanent
// for: its owner, where the owner holds the value, or, where it names no
// owner, the value's one holder; "" for none.
func (p Problem) Keeper() string {
	switch {
	case p.Owner != "" && slices.Contains(p.Accounts, p.Owner):
		return p.Owner
	case p.Owner == "" && len(p.Accounts) == 1:
		return p.Accounts[0]
	}
	return ""
}

// Report is the result of `locktable check`.
type Report struct {
	Table        string `json:"table"`
	ScannedItems int    `json:"scanned_items"`
	Accounts     int    `json:"accounts"`
	Locks        int    `json:"locks"`
	// Reservations are the locks whose TTL is ahead and whose value has
	// no holder: signups in progress, not problems.
	Reservations int `json:"reservations"`
	// Reserved are the first of them (up to 1,000), each as the
	// expired_lock it becomes once its TTL passes, to be confirmed then
	// by consistent reads (a signup may have completed it): not part of
	// the JSON.
	Reserved []Problem `json:"-"`
	Problems []Problem `json:"problems"`
	// Warnings name the items whose TTL attribute DynamoDB ignores (not a
	// number, or in milliseconds), once each; they are judged as having
	// no TTL.
	Warnings []string `json:"warnings,omitempty"`
	// Now is the check's start in epoch seconds: what expired means.
	Now int64 `json:"now,omitempty"`
	// ConsumedRCU is the read capacity the check consumed, as DynamoDB
	// reported it (0 where a backend reports none).
	ConsumedRCU float64 `json:"consumed_rcu,omitempty"`
	// Others counts the account table's items that are neither accounts
	// nor locks, by key prefix (Census.Others); not part of the JSON.
	Others map[string]int `json:"-"`
	// Rekeyed are the orphan locks that locktable's casefold before
	// 2026-12 wrote for a value held now, which the rule keys otherwise:
	// said in words by the human report, not part of the JSON (whose
	// kinds are the contract's: orphan_lock, and missing_lock unless the
	// new key's lock is there).
	Rekeyed []Rekeyed `json:"-"`
}

// SchemaHint says, when the scan found no account but the account table
// holds other items, which key prefixes it saw: the sign of a wrong
// AccountPrefix or Layout, which it names as name says them. "" when
// there is nothing to say.
func (r Report) SchemaHint(s *Schema, name func(SchemaField) string) string {
	if r.Accounts > 0 || len(r.Others) == 0 {
		return ""
	}
	shapes := slices.Collect(maps.Keys(r.Others))
	slices.SortFunc(shapes, func(a, b string) int {
		if d := r.Others[b] - r.Others[a]; d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var seen []string
	for _, sh := range shapes[:min(len(shapes), 5)] {
		seen = append(seen, fmt.Sprintf("%s (%d)", Printable(sh), r.Others[sh]))
	}
	want := Printable(s.AccountPrefix)
	if s.SK != "" {
		want += " with " + s.SK + " " + Printable(s.AccountSK)
	}
	check := []SchemaField{FieldAccountPrefix, FieldAccountSK, FieldLayout}
	if s.AccountType.Attr != "" {
		want += " and " + Printable(s.AccountType.Attr) + "=" + Printable(s.AccountType.Value)
		check = []SchemaField{FieldAccountPrefix, FieldAccountSK, FieldAccountType, FieldPreset}
	}
	return fmt.Sprintf("no item of %s matches the accounts' key (%s); its other keys start with %s: check %s",
		Printable(s.Table), strings.TrimSpace(want), strings.Join(seen, ", "), sayAll(check, name))
}

// OtherItems is how many items of the account table the report found
// that are neither accounts nor locks (the sum of Others).
func (r Report) OtherItems() int {
	n := 0
	for _, c := range r.Others {
		n += c
	}
	return n
}

// Counts returns how many problems of each kind the report holds.
func (r Report) Counts() map[ProblemKind]int {
	n := map[ProblemKind]int{}
	for _, p := range r.Problems {
		n[p.Kind]++
	}
	return n
}

// Duplicates says which values the report found held by two or more
// accounts (its duplicate_value problems).
func (r Report) Duplicates() OthersHold {
	type held struct {
		ci int
		v  string
	}
	set := map[held]bool{}
	for _, p := range r.Problems {
		if p.Kind == DuplicateValue {
			set[held{p.constraint, p.Value}] = true
		}
	}
	return func(ci int, v string) bool { return set[held{ci, v}] }
}

// SortProblems orders problems as the contract says: constraint order,
// then value, then kind. The holders, then the lock, break the ties left
// (two locks whose owners are the same invalid value), so that the order
// does not depend on the order found: a census in memory and one that
// spilled to disk report the same list.
func SortProblems(ps []Problem) {
	slices.SortFunc(ps, func(a, b Problem) int {
		if c := cmp.Or(
			cmp.Compare(a.constraint, b.constraint),
			cmp.Compare(a.Value, b.Value),
			cmp.Compare(a.Kind, b.Kind),
			slices.Compare(a.Accounts, b.Accounts),
		); c != 0 {
			return c
		}
		return cmp.Compare(lockID(a), lockID(b))
	})
}

// same reports whether two problems are about the same thing: the
// identity confirmation matches on.
//
// A lock's TTL problem is the same problem whichever side of its expiry
// each read fell: a reservation read as expiring_lock that has lapsed
// since is confirmed as the expired_lock it is now.
// Identity is the one key by which a problem is the same problem as
// SameProblem says, as a string, for maps: the marks, the pins and the
// selection key by it. (The check compares with same, which builds no
// string.)
func (p Problem) Identity() string {
	kind := string(p.Kind)
	if TTLKind(p.Kind) {
		kind = "ttl"
	}
	id := kind + "\x00" + strconv.Itoa(p.constraint) + "\x00" + p.Value
	if p.Kind == InvalidValue {
		id += "\x00" + strings.Join(p.Accounts, "\x01") + "\x00" + p.Owner + "\x00" + lockID(p)
	}
	return id
}

func (p Problem) same(q Problem) bool {
	kind := p.Kind == q.Kind || TTLKind(p.Kind) && TTLKind(q.Kind)
	return kind && p.constraint == q.constraint && p.Value == q.Value &&
		(p.Kind != InvalidValue || slices.Equal(p.Accounts, q.Accounts) && p.Owner == q.Owner && lockID(p) == lockID(q))
}

func lockID(p Problem) string {
	if p.Lock == nil {
		return ""
	}
	b, _ := marshal(p.Lock)
	return p.LockTable + string(b)
}

// KeyRef is the primary key of one item in one table.
type KeyRef struct {
	Table string
	Key   map[string]string
}

// Involved returns the keys whose strongly consistent reads confirm or
// dismiss p: its lock (or the lock it lacks) in each spelling it may have,
// its owner and its holders.
func (s Classifier) Involved(p Problem) []KeyRef {
	var refs []KeyRef
	for _, id := range p.Accounts {
		refs = append(refs, KeyRef{s.Schema.Table, s.Schema.AccountKey(id)})
	}
	if p.Kind == InvalidValue {
		if p.Lock != nil {
			refs = append(refs, KeyRef{s.Schema.tableOr(p.LockTable), p.Lock})
		}
		return refs
	}
	refs = append(refs, s.Schema.LockKeys(p.constraint, p.Value)...)
	if s.Schema.NamesAccount(p.Owner) && !slices.Contains(p.Accounts, p.Owner) {
		refs = append(refs, KeyRef{s.Schema.Table, s.Schema.AccountKey(p.Owner)})
	}
	return refs
}

// LockProblem builds a problem about the lock of constraint ci for raw
// value v, as a check would report it with no holders.
func (s Classifier) LockProblem(kind ProblemKind, ci int, v, owner string) Problem {
	table, key := s.Schema.lockRef(ci, v)
	return Problem{Kind: kind, Constraint: s.Schema.Constraints[ci].Attr, Value: v, Lock: key, LockTable: table,
		Owner: owner, Accounts: []string{}, constraint: ci}
}

// HolderProblem builds a problem about value v of constraint ci held by
// accounts, with the lock's owner where one is named.
func (s Classifier) HolderProblem(kind ProblemKind, ci int, v, owner string, accounts []string) Problem {
	p := s.LockProblem(kind, ci, v, owner)
	if kind == MissingLock {
		p.Lock, p.LockTable = nil, ""
	}
	p.Accounts = append([]string{}, accounts...)
	return p
}

// sayAll says fields as name says each: "A, B and C".
func sayAll(fields []SchemaField, name func(SchemaField) string) string {
	said := make([]string, len(fields))
	for i, f := range fields {
		said[i] = name(f)
	}
	last := len(said) - 1
	return strings.Join(said[:last], ", ") + " and " + said[last]
}

// CapacityText says capacity units as every report of them does (the
// check's, the TUI's header): one decimal, as the check counts them in
// tenths, and thousands apart (8.0, 53.0, 2,193.4).
func CapacityText(units float64) string {
	text := strconv.FormatFloat(units, 'f', 1, 64)
	whole, tenth, _ := strings.Cut(text, ".")
	sign := ""
	if strings.HasPrefix(whole, "-") {
		sign, whole = "-", whole[1:]
	}
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return sign + whole + "." + tenth
}

// Tie ties p, read from JSON, which names its constraint by attribute
// only, back to s's constraint; false when s does not constrain it.
func (s *Schema) Tie(p Problem) (Problem, bool) {
	p.constraint = s.Constraint(p.Constraint)
	return p, p.constraint >= 0
}
