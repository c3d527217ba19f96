package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// CensusFile is a census written to a file by one process of a sharded
// check (check --segment-range A-B --partial FILE): what segments A..B of
// N held, and the schema it was read with, so that another process can
// merge the parts (check --merge) and confirm them as one check would.
type CensusFile struct {
	Version  int    `json:"version"`
	Schema   string `json:"schema"` // Schema.Flags, joined: parts of another schema are refused
	Segments int    `json:"segments"`
	From     int    `json:"from"` // segments From..To-1
	To       int    `json:"to"`

	Scanned     int                   `json:"scanned"`
	Accounts    int                   `json:"accounts"`
	Locks       int                   `json:"locks"`
	ConsumedRCU float64               `json:"consumed_rcu"`
	Others      map[string]int        `json:"others,omitempty"`
	Holders     []map[string][]string `json:"holders"` // per constraint: normalized value -> account ids
	LockOwners  []map[string]string   `json:"locks_seen"`
	Invalid     []Problem             `json:"invalid"`
}

// censusFileVersion changes when the format does.
const censusFileVersion = 1

// schemaID names a schema for comparison: its flags.
func schemaID(s *Schema) string { return strings.Join(s.Flags(), " ") }

// File returns the census as segments [from, to) of segments wrote it.
// A census that spilled is read back whole: a part holds all of it.
func (c *Census) File(segments, from, to int) (CensusFile, error) {
	f := CensusFile{Version: censusFileVersion, Schema: schemaID(c.schema), Segments: segments, From: from, To: to,
		Scanned: c.Scanned, Accounts: c.Accounts, Locks: c.Locks, ConsumedRCU: c.ConsumedRCU, Others: c.Others,
		Invalid: c.invalid}
	if f.Invalid == nil {
		f.Invalid = []Problem{}
	}
	if c.err != nil {
		return CensusFile{}, c.err
	}
	var err error
	f.Holders, f.LockOwners, err = c.fileMaps()
	return f, err
}

// MergeCensus builds one census from the parts of a sharded check, all in
// memory (see Merger).
func MergeCensus(s *Schema, parts []CensusFile) (*Census, error) {
	m := NewMerger(s, 0)
	for _, p := range parts {
		if err := m.Add(p); err != nil {
			return nil, err
		}
	}
	return m.Census()
}

// A Merger builds one census from the parts of a sharded check, a part at
// a time, so that only the part being added is held besides the census,
// which spills past its budget as a check's does. The parts must be of
// this schema, of one segment count, and cover every segment exactly once.
type Merger struct {
	schema  *Schema
	id      string
	census  *Census
	parts   int
	covered []int // parts holding each segment; nil until the first part
	err     error // the first part refused: the merge is over
}

// NewMerger returns a merger for s whose census has a budget of about
// budget bytes (0: none; see Census.LimitMemory).
func NewMerger(s *Schema, budget int64) *Merger {
	c := NewCensus(s)
	c.LimitMemory(budget)
	return &Merger{schema: s, id: schemaID(s), census: c}
}

// Add merges the next part.
func (m *Merger) Add(p CensusFile) error {
	if m.err != nil {
		return m.err
	}
	m.parts++
	m.err = m.add(p)
	if m.err == nil {
		m.err = m.census.Err()
	}
	return m.err
}

func (m *Merger) add(p CensusFile) error {
	s, c, i := m.schema, m.census, m.parts
	if m.covered == nil {
		m.covered = make([]int, max(p.Segments, 0))
	}
	switch n := len(m.covered); {
	case p.Version != censusFileVersion:
		return fmt.Errorf("part %d: census format %d, want %d", i, p.Version, censusFileVersion)
	case p.Schema != m.id:
		return fmt.Errorf("part %d was read with other schema flags (%s), not %s", i, p.Schema, m.id)
	case p.Segments != n || p.From < 0 || p.To > n || p.From >= p.To:
		return fmt.Errorf("part %d holds segments %d-%d of %d; the first part's are of %d", i, p.From, p.To-1, p.Segments, n)
	case len(p.Holders) != len(s.Constraints) || len(p.LockOwners) != len(s.Constraints):
		return fmt.Errorf("part %d has %d constraints, the schema %d", i, len(p.Holders), len(s.Constraints))
	}
	for seg := p.From; seg < p.To; seg++ {
		m.covered[seg]++
	}
	c.Scanned += p.Scanned
	c.Accounts += p.Accounts
	c.Locks += p.Locks
	c.ConsumedRCU += p.ConsumedRCU
	for _, shape := range slices.Sorted(maps.Keys(p.Others)) { // the same shapes kept, whatever the order
		c.addShape(shape, p.Others[shape])
	}
	for ci := range s.Constraints {
		for v, ids := range p.Holders[ci] {
			for _, id := range ids {
				c.addHolder(ci, v, id)
			}
		}
		for v, owner := range p.LockOwners[ci] {
			c.addLock(ci, v, owner)
		}
	}
	for _, q := range p.Invalid {
		q.constraint = s.Constraint(q.Constraint)
		if q.constraint < 0 {
			return fmt.Errorf("part %d: a problem of %q, which the schema does not constrain", i, q.Constraint)
		}
		c.invalid = append(c.invalid, q)
	}
	return nil
}

// Census returns the merged census, once the parts cover every segment
// once. Its caller closes it (Census.Close), as one a scan filled.
func (m *Merger) Census() (*Census, error) {
	if m.err == nil && m.parts == 0 {
		m.err = fmt.Errorf("no census to merge")
	}
	if m.err != nil {
		m.census.Close()
		return nil, m.err
	}
	var missing, twice []string
	for seg, k := range m.covered {
		switch {
		case k == 0:
			missing = append(missing, fmt.Sprint(seg))
		case k > 1:
			twice = append(twice, fmt.Sprint(seg))
		}
	}
	if len(missing) > 0 || len(twice) > 0 {
		m.census.Close()
		return nil, fmt.Errorf("the parts must cover segments 0-%d once each: missing %v, twice or more %v", len(m.covered)-1, missing, twice)
	}
	return m.census, nil
}
