package model

import (
	"slices"
	"strings"
)

// Census accumulates what a scan saw, item by item, and reconciles it into
// problems. It keeps per constraint the holders of each normalized value and
// the lock of each raw value, so memory grows with accounts, not items read.
// A Census is not safe for concurrent use.
type Census struct {
	schema   *Schema
	Scanned  int // every item added
	Accounts int
	Locks    int
	// Others counts the items of the account table that are neither
	// accounts nor locks, by the prefix of their key (see keyShape), so
	// that a schema that matches nothing can say what the table holds.
	Others map[string]int
	// ConsumedRCU is the read capacity the scans that filled it consumed.
	ConsumedRCU float64
	holders     []map[string][]string // per constraint: normalized value -> account ids
	locks       []map[string]seenLock // per constraint: raw value -> lock
	invalid     []Problem
}

type seenLock struct{ owner string }

// NewCensus returns an empty census for s.
func NewCensus(s *Schema) *Census {
	c := &Census{schema: s}
	c.holders = make([]map[string][]string, len(s.Constraints))
	c.locks = make([]map[string]seenLock, len(s.Constraints))
	for i := range s.Constraints {
		c.holders[i] = map[string][]string{}
		c.locks[i] = map[string]seenLock{}
	}
	return c
}

// Add records one item read from table.
func (c *Census) Add(table string, it Item) {
	c.Scanned++
	e := c.schema.Classify(table, it)
	switch e.Kind {
	case EntryAccount:
		c.Accounts++
		c.addAccount(e.ID, it)
	case EntryOther:
		if table == c.schema.Table {
			c.addOther(it)
		}
	case EntryLock:
		c.Locks++
		c.locks[e.Constraint][e.Value] = seenLock{owner: e.Owner}
		if e.OwnerInvalid != nil {
			lt, key := c.schema.lockRef(e.Constraint, e.Value)
			c.invalid = append(c.invalid, Problem{
				Kind: InvalidValue, Constraint: c.schema.Constraints[e.Constraint].Attr,
				Value: e.OwnerInvalid.DynamoJSON(), Lock: key, LockTable: lt,
				Accounts: []string{}, constraint: e.Constraint,
			})
		}
	}
}

// maxShapes bounds the prefixes Others keeps: a table of random keys
// must not grow the census.
const maxShapes = 16

func (c *Census) addOther(it Item) {
	if c.Others == nil {
		c.Others = map[string]int{}
	}
	shape := keyShape(it[c.schema.PK].S)
	if _, ok := c.Others[shape]; !ok && len(c.Others) >= maxShapes {
		shape = "(other)"
	}
	c.Others[shape]++
}

// keyShape is the prefix of a key value up to and including its last "#"
// (ACCT#a1 -> "ACCT#", UNIQ#EMAIL#x -> "UNIQ#EMAIL#"), or "(no prefix)".
func keyShape(key string) string {
	if i := strings.LastIndexByte(key, '#'); i >= 0 && i < 40 {
		return key[:i+1]
	}
	return "(no prefix)"
}

func (c *Census) addAccount(id string, it Item) {
	for ci, con := range c.schema.Constraints {
		switch h, v := c.schema.Held(ci, it); h {
		case HoldsValue:
			c.holders[ci][v] = append(c.holders[ci][v], id)
		case HoldsInvalid:
			c.invalid = append(c.invalid, Problem{
				Kind: InvalidValue, Constraint: con.Attr, Value: it[con.Attr].DynamoJSON(),
				Accounts: []string{id}, constraint: ci,
			})
		}
	}
}

// Holders returns the accounts seen holding normalized value v of
// constraint ci, sorted; never nil, as problems report them as an array.
func (c *Census) Holders(ci int, v string) []string {
	ids := append([]string{}, c.holders[ci][v]...) // not slices.Clone: it keeps nil
	slices.Sort(ids)
	return slices.Compact(ids)
}

// Problems reconciles what was seen into problems, in contract order. They
// are candidates until confirmed by consistent reads (see Confirm).
func (c *Census) Problems() []Problem {
	ps := append([]Problem{}, c.invalid...) // never nil: "problems" is an array
	for ci := range c.schema.Constraints {
		// A value with one holder and its lock (owned by that holder, or by
		// nobody) is the healthy case: skip it without sorting a copy.
		for v, ids := range c.holders[ci] {
			_, locked := c.locks[ci][v]
			if len(ids) == 1 && locked {
				continue
			}
			h := c.Holders(ci, v)
			if len(h) >= 2 {
				ps = append(ps, c.problem(DuplicateValue, ci, v, h))
			}
			if !locked {
				ps = append(ps, c.problem(MissingLock, ci, v, h))
			}
		}
		for v, l := range c.locks[ci] {
			if ids := c.holders[ci][v]; len(ids) == 1 && (l.owner == "" || l.owner == ids[0]) {
				continue
			}
			h := c.Holders(ci, v)
			switch {
			case len(h) == 0:
				ps = append(ps, c.problem(OrphanLock, ci, v, h))
			case l.owner != "" && !slices.Contains(h, l.owner):
				ps = append(ps, c.problem(ForeignLock, ci, v, h))
			}
		}
	}
	SortProblems(ps)
	return ps
}

// problem builds a problem of constraint ci about value v, with the lock and
// its owner filled in where the lock was seen.
func (c *Census) problem(kind ProblemKind, ci int, v string, holders []string) Problem {
	p := Problem{Kind: kind, Constraint: c.schema.Constraints[ci].Attr, Value: v, Accounts: holders, constraint: ci}
	if l, ok := c.locks[ci][v]; ok {
		p.LockTable, p.Lock = c.schema.lockRef(ci, v)
		p.Owner = l.owner
	}
	return p
}

// lockRef is LockKey with the table left empty when it is the account
// table, as the JSON contract reports it.
func (s *Schema) lockRef(ci int, v string) (string, map[string]string) {
	table, key := s.LockKey(ci, v)
	if table == s.Table {
		table = ""
	}
	return table, key
}

// KeyRef is the primary key of one item in one table.
type KeyRef struct {
	Table string
	Key   map[string]string
}

// Involved returns the keys whose strongly consistent reads confirm or
// dismiss p: its lock (or the lock it lacks), its owner and its holders.
func (s *Schema) Involved(p Problem) []KeyRef {
	var refs []KeyRef
	for _, id := range p.Accounts {
		refs = append(refs, KeyRef{s.Table, s.AccountKey(id)})
	}
	if p.Kind == InvalidValue {
		if p.Lock != nil {
			refs = append(refs, KeyRef{s.tableOr(p.LockTable), p.Lock})
		}
		return refs
	}
	table, key := s.LockKey(p.constraint, p.Value)
	refs = append(refs, KeyRef{table, key})
	if p.Owner != "" && !slices.Contains(p.Accounts, p.Owner) {
		refs = append(refs, KeyRef{s.Table, s.AccountKey(p.Owner)})
	}
	return refs
}

func (s *Schema) tableOr(t string) string {
	if t == "" {
		return s.Table
	}
	return t
}

// NeedsRescan reports whether p can be confirmed only by looking for
// holders by value: an orphan lock that names no owner.
func NeedsRescan(p Problem) bool { return p.Kind == OrphanLock && (p.Owner == "" || IsClaim(p.Owner)) }

// Confirm keeps the candidates that fresh, a census of consistent reads of
// the involved keys, still shows; each as fresh shows it now.
func Confirm(candidates []Problem, fresh *Census) []Problem {
	now := fresh.Problems()
	confirmed := []Problem{}
	for _, cand := range candidates {
		for _, p := range now {
			if p.same(cand) {
				confirmed = append(confirmed, p)
				break
			}
		}
	}
	SortProblems(confirmed)
	return confirmed
}

// LockProblem builds a problem about the lock of constraint ci for raw
// value v, as a check would report it with no holders.
func (s *Schema) LockProblem(kind ProblemKind, ci int, v, owner string) Problem {
	table, key := s.lockRef(ci, v)
	return Problem{Kind: kind, Constraint: s.Constraints[ci].Attr, Value: v, Lock: key, LockTable: table,
		Owner: owner, Accounts: []string{}, constraint: ci}
}

// HolderProblem builds a problem about value v of constraint ci held by
// accounts, with the lock's owner where one is named.
func (s *Schema) HolderProblem(kind ProblemKind, ci int, v, owner string, accounts []string) Problem {
	p := s.LockProblem(kind, ci, v, owner)
	if kind == MissingLock {
		p.Lock, p.LockTable = nil, ""
	}
	p.Accounts = append([]string{}, accounts...)
	return p
}
