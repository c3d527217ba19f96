package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// oracle is the census as plainly as it can be written, Go maps of
// strings and no encoding (what the census was before it was made
// compact): the reference TestCensusMatchesTheOracle holds the census to.
type oracle struct {
	s            *Schema
	values       []map[string]*oracleValue
	invalid      []Problem
	now          int64
	reservations int
}

type oracleValue struct {
	holders  []string          // in the order first seen
	expiries map[string]*int64 // each holder's TTL, nil for none
	locked   bool
	owner    string // "" for nobody
	lockTTL  *int64 // nil for none
}

// oracleTTL is the TTL attribute attr of it, nil when it has none that
// DynamoDB honours.
func oracleTTL(it Item, attr string) *int64 {
	v, ok := it[attr]
	if attr == "" || !ok || v.Kind != KindN {
		return nil
	}
	f, err := strconv.ParseFloat(v.S, 64)
	if err != nil || f > 1e11 {
		return nil
	}
	n := int64(math.Ceil(f))
	return &n
}

func newOracle(s *Schema, now int64) *oracle {
	o := &oracle{s: s, now: now}
	for range s.Constraints {
		o.values = append(o.values, map[string]*oracleValue{})
	}
	return o
}

func (o *oracle) at(ci int, v string) *oracleValue {
	if o.values[ci][v] == nil {
		o.values[ci][v] = &oracleValue{}
	}
	return o.values[ci][v]
}

func (o *oracle) add(table string, it Item) {
	e := Classifier{o.s}.Classify(table, it)
	switch e.Kind {
	case EntryAccount:
		for ci, con := range o.s.Constraints {
			switch h, v := o.s.Held(ci, it); h {
			case HoldsValue:
				if ov := o.at(ci, v); !slices.Contains(ov.holders, e.ID) {
					ov.holders = append(ov.holders, e.ID)
					if ov.expiries == nil {
						ov.expiries = map[string]*int64{}
					}
					ov.expiries[e.ID] = oracleTTL(it, o.s.TTLAttr)
				}
			case HoldsInvalid:
				o.invalid = append(o.invalid, Problem{Kind: InvalidValue, Constraint: con.Attr,
					Value: it[con.Attr].DynamoJSON(), Accounts: []string{e.ID}, constraint: ci})
			}
		}
	case EntryLock:
		ov := o.at(e.Constraint, e.Value)
		ov.locked, ov.owner = true, e.Owner
		ov.lockTTL = oracleTTL(it, o.s.LockTTLAttr(e.Constraint))
		if e.OwnerInvalid != nil {
			lt, key := o.s.lockRef(e.Constraint, e.Value)
			o.invalid = append(o.invalid, Problem{Kind: InvalidValue, Constraint: o.s.Constraints[e.Constraint].Attr,
				Value: e.OwnerInvalid.DynamoJSON(), Lock: key, LockTable: lt, Accounts: []string{}, constraint: e.Constraint})
		}
	}
}

// problems applies the rules of PATTERN.md to each value, one by one.
func (o *oracle) problems() []Problem {
	ps := append([]Problem{}, o.invalid...)
	for ci, m := range o.values {
		for v, ov := range m {
			holders := slices.Sorted(slices.Values(ov.holders))
			if holders == nil {
				holders = []string{}
			}
			p := func(kind ProblemKind) Problem {
				q := Problem{Kind: kind, Constraint: o.s.Constraints[ci].Attr, Value: v, Accounts: holders, constraint: ci}
				if ov.locked {
					q.LockTable, q.Lock = o.s.lockRef(ci, v)
					q.Owner = ov.owner
				}
				return q
			}
			expired := ov.lockTTL != nil && *ov.lockTTL <= o.now
			reserved := ov.lockTTL != nil && *ov.lockTTL > o.now
			outlived := false // a holder never expires, or expires after the lock
			for _, at := range ov.expiries {
				outlived = outlived || at == nil || reserved && *at > *ov.lockTTL
			}
			if reserved && len(holders) == 0 {
				o.reservations++
				continue
			}
			if len(holders) > 1 {
				ps = append(ps, p(DuplicateValue))
			}
			ttlProblem := func(kind ProblemKind) Problem {
				q := p(kind)
				q.ExpiresAt = *ov.lockTTL
				return q
			}
			switch {
			case len(holders) > 0 && !ov.locked:
				ps = append(ps, p(MissingLock))
			case !ov.locked:
			case expired:
				ps = append(ps, ttlProblem(ExpiredLock))
			case reserved && outlived:
				ps = append(ps, ttlProblem(ExpiringLock))
			case len(holders) == 0:
				ps = append(ps, p(OrphanLock))
			case ov.owner != "" && !slices.Contains(holders, ov.owner):
				ps = append(ps, p(ForeignLock))
			}
		}
	}
	SortProblems(ps)
	return ps
}

// TestCensusMatchesTheOracle: on random streams of every kind of item,
// in both layouts and every normalization, in memory and spilled, the
// compact census finds exactly what the plain one does.
func TestCensusMatchesTheOracle(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for _, n := range []Normalization{NormalizeNone, NormalizeLower, NormalizeCasefold} {
		single, tables := DefaultSchema(LayoutSingle), DefaultSchema(LayoutTables)
		single.Constraints[0].Normalize, tables.Constraints[1].Normalize = n, n
		for _, s := range []Schema{single, tables, withTTL(single), withTTL(tables)} {
			for seed := range uint64(8) {
				t.Run(fmt.Sprintf("%s/%s/ttl=%v/%d", s.Layout, n, s.HasTTL(), seed), func(t *testing.T) {
					t.Parallel()
					r := rand.New(rand.NewPCG(seed, 99))
					rows := randomRows(r, &s, 50+r.IntN(400))
					o := newOracle(&s, testNow)
					for _, row := range rows {
						o.add(row.table, row.item)
					}
					want := problemsJSON(t, o.problems())
					for _, budget := range []int64{0, 16 << 10} {
						c := NewCensus(&s, testNow)
						c.LimitMemory(budget)
						for _, row := range rows {
							c.Add(row.table, row.item)
						}
						got := problemsJSON(t, reconciled(t, c))
						c.Close()
						if !slices.Equal(got, want) {
							t.Fatalf("budget %d: the census and the oracle differ:\n got %v\nwant %v", budget, got, want)
						}
						if c.Reservations() != o.reservations {
							t.Fatalf("budget %d: %d reservations, the oracle %d", budget, c.Reservations(), o.reservations)
						}
						// Each reservation listed is the expired_lock it
						// becomes, its TTL ahead (spilled or not).
						reserved := c.Report(nil).Reserved
						if len(reserved) != min(o.reservations, maxReserved) {
							t.Fatalf("budget %d: %d reservations listed, want %d", budget, len(reserved), o.reservations)
						}
						for _, p := range reserved {
							if p.Kind != ExpiredLock || p.ExpiresAt <= testNow || p.Lock == nil || len(p.Accounts) != 0 {
								t.Fatalf("budget %d: reservation listed as %+v", budget, p)
							}
						}
					}
				})
			}
		}
	}
}
