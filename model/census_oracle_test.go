package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// oracle is the census as plainly as it can be written, Go maps of
// strings and no encoding (what the census was before it was made
// compact): the reference TestCensusMatchesTheOracle holds the census to.
type oracle struct {
	s       *Schema
	values  []map[string]*oracleValue
	invalid []Problem
}

type oracleValue struct {
	holders []string // in the order first seen
	locked  bool
	owner   string // "" for nobody
}

func newOracle(s *Schema) *oracle {
	o := &oracle{s: s}
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
				}
			case HoldsInvalid:
				o.invalid = append(o.invalid, Problem{Kind: InvalidValue, Constraint: con.Attr,
					Value: it[con.Attr].DynamoJSON(), Accounts: []string{e.ID}, constraint: ci})
			}
		}
	case EntryLock:
		ov := o.at(e.Constraint, e.Value)
		ov.locked, ov.owner = true, e.Owner
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
			if len(holders) > 1 {
				ps = append(ps, p(DuplicateValue))
			}
			switch {
			case len(holders) > 0 && !ov.locked:
				ps = append(ps, p(MissingLock))
			case !ov.locked:
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
		for _, s := range []Schema{single, tables} {
			for seed := range uint64(8) {
				t.Run(fmt.Sprintf("%s/%s/%d", s.Layout, n, seed), func(t *testing.T) {
					r := rand.New(rand.NewPCG(seed, 99))
					rows := randomRows(r, &s, 50+r.IntN(400))
					o := newOracle(&s)
					for _, row := range rows {
						o.add(row.table, row.item)
					}
					want := problemsJSON(t, o.problems())
					for _, budget := range []int64{0, 16 << 10} {
						c := NewCensus(&s, 0)
						c.LimitMemory(budget)
						for _, row := range rows {
							c.Add(row.table, row.item)
						}
						got := problemsJSON(t, reconciled(t, c))
						c.Close()
						if !slices.Equal(got, want) {
							t.Fatalf("budget %d: the census and the oracle differ:\n got %v\nwant %v", budget, got, want)
						}
					}
				})
			}
		}
	}
}
