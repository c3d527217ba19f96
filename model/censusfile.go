package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// A part is a census written to a file by one process of a sharded check
// (check --segment-range A-B --partial FILE): what segments A..B of N held,
// and the schema it was read with, so that another process can merge the
// parts (check --merge) and confirm them as one check would. It is one
// line of JSON, the PartHeader, then the census's records as a census
// spills them (see appendRecord), then partEnd: written and read a record
// at a time,
// so that neither the process writing a part nor the one merging them
// holds more than its census's budget.
type PartHeader struct {
	Version  int    `json:"version"`
	Schema   Schema `json:"schema"` // partSchema: parts of another schema are refused
	Segments int    `json:"segments"`
	Now      int64  `json:"now"`  // the part's check started then (epoch seconds)
	From     int    `json:"from"` // segments From..To-1
	To       int    `json:"to"`

	Scanned     int            `json:"scanned"`
	Accounts    int            `json:"accounts"`
	Locks       int            `json:"locks"`
	ConsumedRCU float64        `json:"consumed_rcu"`
	Others      map[string]int `json:"others,omitempty"`
	Invalid     []Problem      `json:"invalid"`
	Warnings    []string       `json:"warnings,omitempty"` // items whose TTL is ignored (Census.warnings)
	Unwarned    int            `json:"unwarned,omitempty"`
}

// censusFileVersion changes when the format does: 1 was one JSON object
// holding every value; 2 had no TTLs; 3 named the schema by its flags.
const censusFileVersion = 4

// partEnd is the byte after a part's last record, which no record begins
// with (a record's flags are under 64): a part cut between two records is
// then as plainly cut short as one cut inside a record.
const partEnd = 0xff

// partSchema is what a census depends on of the schema it was read with:
// every setting but how holders are looked up (a constraint's Index) and
// how the schema was given (TTLGiven, KeysFromTable).
func partSchema(s *Schema) Schema {
	p := *s
	p.Constraints = slices.Clone(s.Constraints)
	for i := range p.Constraints {
		p.Constraints[i].Index = ""
	}
	p.TTLGiven, p.KeysFromTable = false, false
	return p
}

// schemaDiff names the settings in which the census schemas a and b
// differ (see partSchema), none when a census of one is one of the other.
func schemaDiff(a, b Schema) []SchemaField {
	var d []SchemaField
	add := func(f SchemaField, same bool) {
		if !same && !slices.Contains(d, f) {
			d = append(d, f)
		}
	}
	add(FieldPreset, a.Preset == b.Preset)
	add(FieldLayout, a.Layout == b.Layout)
	add(FieldTable, a.Table == b.Table)
	add(FieldPK, a.PK == b.PK)
	add(FieldSK, a.SK == b.SK)
	add(FieldAccountPrefix, a.AccountPrefix == b.AccountPrefix)
	add(FieldAccountSK, a.AccountSK == b.AccountSK)
	add(FieldLockSK, a.LockSK == b.LockSK && a.AltLockSK == b.AltLockSK)
	add(FieldLockSpelling, a.LockSpelling == b.LockSpelling)
	add(FieldOlderHead, a.OlderHead == b.OlderHead)
	add(FieldConstraintEntity, a.ConstraintEntity == b.ConstraintEntity)
	add(FieldOwnerAttr, a.OwnerAttr == b.OwnerAttr)
	add(FieldAccountType, a.AccountType == b.AccountType)
	add(FieldLockAttrs, slices.Equal(a.LockAttrs, b.LockAttrs))
	add(FieldIDAttr, a.IDAttr == b.IDAttr && a.IDPrefix == b.IDPrefix)
	add(FieldTTLAttr, a.TTLAttr == b.TTLAttr)
	add(FieldConstraints, len(a.Constraints) == len(b.Constraints))
	for i := range min(len(a.Constraints), len(b.Constraints)) {
		ca, cb := a.Constraints[i], b.Constraints[i]
		add(FieldNormalize, ca.Normalize == cb.Normalize)
		add(FieldScope, ca.Scope == cb.Scope && ca.Tail == cb.Tail)
		add(FieldTTLAttr, ca.TTLAttr == cb.TTLAttr)
		add(FieldLockAttrs, slices.Equal(ca.LockAttrs, cb.LockAttrs))
		ca.Normalize, ca.Scope, ca.Tail, ca.TTLAttr, ca.Index = cb.Normalize, cb.Scope, cb.Tail, cb.TTLAttr, cb.Index
		ca.LockAttrs, cb.LockAttrs = nil, nil
		add(FieldConstraints, reflect.DeepEqual(ca, cb))
	}
	return d
}

// PartSchemaError refuses a census part read with another schema than
// the merge's.
type PartSchemaError struct {
	Part   int
	Fields []SchemaField // the settings that differ
}

// Msg is the error's message, each field said by name.
func (e *PartSchemaError) Msg(name func(SchemaField) string) string {
	names := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		names[i] = name(f)
	}
	return fmt.Sprintf("part %d was read with another schema: its %s differ", e.Part, strings.Join(names, ", "))
}

func (e *PartSchemaError) Error() string {
	return e.Msg(func(f SchemaField) string { return string(f) })
}

// WritePart writes the census to w as segments [from, to) of segments. A
// census that spilled is copied from its partition files, never read back
// whole.
func (c *Census) WritePart(w io.Writer, segments, from, to int) error {
	if c.err != nil {
		return c.err
	}
	h := PartHeader{Version: censusFileVersion, Schema: partSchema(c.schema), Segments: segments, Now: c.now, From: from, To: to,
		Scanned: c.Scanned, Accounts: c.Accounts, Locks: c.Locks, ConsumedRCU: c.ConsumedRCU, Others: c.Others,
		Invalid: c.invalid, Warnings: c.warnings, Unwarned: c.unwarned}
	if h.Invalid == nil {
		h.Invalid = []Problem{}
	}
	line, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(line, '\n')); err != nil {
		return err
	}
	if !c.spilled() {
		err = c.eachRecord(func(_ int, _, record []byte) error {
			_, err := w.Write(record)
			return err
		})
	} else if err = c.readable(); err == nil {
		for i := range c.spill.files.Len() {
			if err = c.copyPart(w, i); err != nil {
				break
			}
		}
	}
	if err != nil {
		return err
	}
	_, err = w.Write([]byte{partEnd})
	return err
}

// copyPart copies partition file i to w.
func (c *Census) copyPart(w io.Writer, i int) error {
	f, err := c.openPart(i)
	if f == nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// A Merger builds one census from the parts of a sharded check, a record
// at a time, into a census that spills past its budget as a check's does.
// The parts must be of this schema, of one segment count, and cover every
// segment exactly once.
type Merger struct {
	schema  *Schema
	census  *Census
	parts   int
	covered []int // parts holding each segment; nil until the first part
	err     error // the first part refused: the merge is over
}

// NewMerger returns a merger for s whose census has a budget of about
// budget bytes (0: none; see Census.LimitMemory).
func NewMerger(s *Schema, budget int64) *Merger {
	c := NewCensus(s, 0) // judged at the earliest part's start (readPart)
	c.LimitMemory(budget)
	return &Merger{schema: s, census: c}
}

// ReadPart merges the next part, read from r (see WritePart). After an
// error the merge is over, and what it spilled is removed.
func (m *Merger) ReadPart(r io.Reader) error {
	if m.err != nil {
		return m.err
	}
	m.parts++
	m.err = m.readPart(bufio.NewReaderSize(r, 64<<10))
	if m.err == nil {
		m.err = m.census.Err()
	}
	if m.err != nil {
		m.census.Close() // the merge is over: what it spilled goes
	}
	return m.err
}

// readPart merges part number m.parts from r: its header, refused unless
// it fits the parts before it, then its records up to the part's end.
func (m *Merger) readPart(r *bufio.Reader) error {
	i := m.parts
	p, err := readPartHeader(r, i)
	if err != nil {
		return err
	}
	if err := m.cover(p, i); err != nil {
		return err
	}
	m.census.addHeader(p, i == 1)
	if err := m.addInvalid(p.Invalid, i); err != nil {
		return err
	}
	return m.census.replayPart(r, i)
}

// readPartHeader reads the header line of part i.
func readPartHeader(r *bufio.Reader, i int) (PartHeader, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return PartHeader{}, fmt.Errorf("part %d: no header: %w", i, noEOF(err))
	}
	// The version first, leniently: a part of another format says so
	// rather than which of its fields this one does not know.
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return PartHeader{}, fmt.Errorf("part %d: not a census part: %w", i, err)
	}
	if v.Version != censusFileVersion {
		return PartHeader{}, fmt.Errorf("part %d: census format %d, want %d: write the parts again with this version", i, v.Version, censusFileVersion)
	}
	var p PartHeader
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return PartHeader{}, fmt.Errorf("part %d: not a census part: %w", i, err)
	}
	return p, nil
}

// cover counts the segments part i holds, once it is known to be of the
// merge's schema and of the segment count the first part set.
func (m *Merger) cover(p PartHeader, i int) error {
	if m.covered == nil {
		m.covered = make([]int, max(p.Segments, 0))
	}
	if d := schemaDiff(p.Schema, partSchema(m.schema)); len(d) > 0 {
		return &PartSchemaError{Part: i, Fields: d}
	}
	switch n := len(m.covered); {
	case p.Segments != n || p.From < 0 || p.To > n || p.From >= p.To:
		return fmt.Errorf("part %d holds segments %d-%d of %d; the first part's are of %d", i, p.From, p.To-1, p.Segments, n)
	}
	for seg := p.From; seg < p.To; seg++ {
		m.covered[seg]++
	}
	return nil
}

// addInvalid adds part i's problems of invalid values, each tied back to
// its constraint, which JSON carries by attribute name only.
func (m *Merger) addInvalid(invalid []Problem, i int) error {
	for _, q := range invalid {
		q.constraint = m.schema.Constraint(q.Constraint)
		if q.constraint < 0 {
			return fmt.Errorf("part %d: a problem of %q, which the schema does not constrain", i, q.Constraint)
		}
		m.census.invalid = append(m.census.invalid, q)
	}
	return nil
}

// replayPart adds the records of part i from r, up to partEnd, which must
// be r's last byte: a part without it was cut short.
func (c *Census) replayPart(r *bufio.Reader, i int) error {
	for {
		next, err := r.Peek(1)
		switch {
		case err == io.EOF:
			return fmt.Errorf("part %d is cut short: it has no end", i)
		case err != nil:
			return fmt.Errorf("part %d: %w", i, err)
		case next[0] == partEnd:
			r.ReadByte()
			if _, err := r.ReadByte(); err != io.EOF {
				return fmt.Errorf("part %d has data after its end", i)
			}
			return nil
		}
		if err := c.replayRecord(r); err != nil {
			return fmt.Errorf("part %d: %w", i, noEOF(err))
		}
		if c.err != nil {
			return c.err
		}
	}
}

// addHeader adds the counts of part header p to the census, the first
// part's when first.
func (c *Census) addHeader(p PartHeader, first bool) {
	if first || p.Now < c.now {
		c.now = p.Now // the merged check started when its first part did
	}
	c.Scanned += p.Scanned
	c.Accounts += p.Accounts
	c.Locks += p.Locks
	c.ConsumedRCU += p.ConsumedRCU
	for _, shape := range slices.Sorted(maps.Keys(p.Others)) { // the same shapes kept, whatever the order
		c.addShape(shape, p.Others[shape])
	}
	for _, w := range p.Warnings {
		c.warn(w)
	}
	c.unwarned += p.Unwarned
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
