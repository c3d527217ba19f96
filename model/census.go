package model

import (
	"slices"
	"strings"
)

// Census accumulates what a scan saw, item by item, and reconciles it into
// problems. It keeps, per constraint and value, one small entry (the first
// holder, the lock's owner, flags) whose account ids are interned, so its
// memory grows with the values seen, not the items read, and no item is
// kept. A Census is not safe for concurrent use.
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
	ids         idTable
	values      []map[string]entry   // per constraint: value -> what was seen
	more        map[valueRef][]int32 // holders past the first (duplicates), by id
	invalid     []Problem
	// size estimates the bytes values and more hold (ids count their
	// own), which decides when a census with a budget spills.
	size  int64
	spill *spill // nil: no budget, everything stays in memory
	err   error  // the first spill failure; the census records nothing after it
}

// entry is what the census knows of one value of one constraint: the key
// is the normalized value for holders and the raw value (the key minus
// the prefix) for a lock, which are the same string for a healthy value.
type entry struct {
	holder int32 // the first holder's id, or -1
	owner  int32 // the lock's owner's id, or -1 when it names nobody
	locked bool  // a lock with this value was seen
}

// valueRef names a value of a constraint.
type valueRef struct {
	ci int
	v  string
}

// idTable interns account ids (holders and owners): each is kept once.
type idTable struct {
	byName map[string]int32
	names  []string
	size   int64 // estimated bytes, as Census.size
}

func (t *idTable) id(name string) int32 {
	if id, ok := t.byName[name]; ok {
		return id
	}
	if t.byName == nil {
		t.byName = map[string]int32{}
	}
	id := int32(len(t.names))
	t.names = append(t.names, name)
	t.byName[name] = id
	t.size += idBytes + int64(len(name))
	return id
}

// NewCensus returns an empty census for s.
func NewCensus(s *Schema) *Census {
	c := &Census{schema: s, values: make([]map[string]entry, len(s.Constraints))}
	for i := range s.Constraints {
		c.values[i] = map[string]entry{}
	}
	return c
}

// at returns the entry of value v of constraint ci, new when unseen.
func (c *Census) at(ci int, v string) entry {
	if e, ok := c.values[ci][v]; ok {
		return e
	}
	return entry{holder: -1, owner: -1}
}

// put stores the entry of value v of constraint ci, counting a new one.
func (c *Census) put(ci int, v string, e entry) {
	m := c.values[ci]
	n := len(m)
	m[v] = e
	if len(m) > n {
		c.size += entryBytes + int64(len(v))
	}
}

// addHolder records that account id holds value v of constraint ci.
func (c *Census) addHolder(ci int, v, id string) {
	e, n := c.at(ci, v), c.ids.id(id)
	switch {
	case e.holder == n:
		return // the same account again: nothing new to record
	case e.holder < 0:
		e.holder = n
	default:
		ref := valueRef{ci, v}
		if c.more == nil {
			c.more = map[valueRef][]int32{}
		}
		if more, ok := c.more[ref]; !slices.Contains(more, n) {
			if !ok {
				c.size += moreBytes
			}
			c.more[ref] = append(more, n)
			c.size += 4
		}
	}
	c.put(ci, v, e)
	c.spillPastBudget()
}

// addLock records the lock of raw value v of constraint ci, naming owner
// ("" for nobody).
func (c *Census) addLock(ci int, v, owner string) {
	e := c.at(ci, v)
	e.locked, e.owner = true, -1
	if owner != "" {
		e.owner = c.ids.id(owner)
	}
	c.put(ci, v, e)
	c.spillPastBudget()
}

// Add records one item read from table. A census with a memory budget
// (LimitMemory) may spill to disk here; Err reports a failure to.
func (c *Census) Add(table string, it Item) {
	if c.err != nil {
		return
	}
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
		c.addLock(e.Constraint, e.Value, e.Owner)
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

func (c *Census) addOther(it Item) { c.addShape(keyShape(it[c.schema.PK].S), 1) }

// addShape counts n other items of key shape; past maxShapes shapes, new
// ones are counted as "(other)".
func (c *Census) addShape(shape string, n int) {
	if c.Others == nil {
		c.Others = map[string]int{}
	}
	if _, ok := c.Others[shape]; !ok && len(c.Others) >= maxShapes {
		shape = "(other)"
	}
	c.Others[shape] += n
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
			c.addHolder(ci, v, id)
		case HoldsInvalid:
			c.invalid = append(c.invalid, Problem{
				Kind: InvalidValue, Constraint: con.Attr, Value: it[con.Attr].DynamoJSON(),
				Accounts: []string{id}, constraint: ci,
			})
		}
	}
}

// holders returns the accounts seen holding value v of constraint ci (e
// is its entry), sorted; never nil, as problems report them as an array.
func (c *Census) holders(ci int, v string, e entry) []string {
	ids := []string{} // never nil: "accounts" is an array
	if e.holder < 0 {
		return ids
	}
	ids = append(ids, c.ids.names[e.holder])
	for _, n := range c.more[valueRef{ci, v}] {
		ids = append(ids, c.ids.names[n])
	}
	slices.Sort(ids)
	return ids
}

// Problems reconciles what was seen into problems, in contract order. They
// are candidates until confirmed by consistent reads (see Confirm). A
// census with a memory budget is reconciled by Reconcile: part of it may
// be on disk.
func (c *Census) Problems() []Problem {
	if c.spilled() {
		panic("model: Problems of a census that spilled to disk; use Reconcile")
	}
	ps := append([]Problem{}, c.invalid...) // never nil: "problems" is an array
	for ci := range c.schema.Constraints {
		for v, e := range c.values[ci] {
			several := e.holder >= 0 && len(c.more[valueRef{ci, v}]) > 0
			// The healthy case, skipped without building a slice: one
			// holder and its lock, owned by that holder or by nobody.
			if e.holder >= 0 && !several && e.locked && (e.owner < 0 || e.owner == e.holder) {
				continue
			}
			h := c.holders(ci, v, e)
			if several {
				ps = append(ps, c.problem(DuplicateValue, ci, v, e, h))
			}
			switch {
			case e.holder >= 0 && !e.locked:
				ps = append(ps, c.problem(MissingLock, ci, v, e, h))
			case !e.locked:
			case e.holder < 0:
				ps = append(ps, c.problem(OrphanLock, ci, v, e, h))
			case e.owner >= 0 && !slices.Contains(h, c.ids.names[e.owner]):
				ps = append(ps, c.problem(ForeignLock, ci, v, e, h))
			}
		}
	}
	SortProblems(ps)
	return ps
}

// problem builds a problem of constraint ci about value v, with the lock and
// its owner filled in where the lock was seen.
func (c *Census) problem(kind ProblemKind, ci int, v string, e entry, holders []string) Problem {
	p := Problem{Kind: kind, Constraint: c.schema.Constraints[ci].Attr, Value: v, Accounts: holders, constraint: ci}
	if e.locked {
		p.LockTable, p.Lock = c.schema.lockRef(ci, v)
		if e.owner >= 0 {
			p.Owner = c.ids.names[e.owner]
		}
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
