package model

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/locktable/locktable/model/spill"
)

// A census with a memory budget (LimitMemory) keeps what it sees in memory
// until its estimate passes the budget, then spills: it appends every
// value it holds, with the value's holders, lock and owner, to one of a
// set of partition files chosen by a hash of (constraint, value), and
// starts afresh. Every problem joins only what is known of one value of
// one constraint (its holders, its lock, the lock's owner compared with
// the holders; invalid values join nothing and stay in memory), so each
// partition is reconciled alone, one at a time, and the union of their
// problems is the problems of one census of everything.

// maxSpillDepth bounds how often a partition too large for the budget is
// split again (with another hash): a value held by millions of accounts
// can never be split, and is then reconciled in memory as it must be (its
// duplicate_value problem lists every holder).
const maxSpillDepth = 3

// SpillStats says how much a census spilled.
type SpillStats struct {
	Spills     int   // how often the census wrote what it held to disk
	Partitions int   // partition files (of the first level)
	Bytes      int64 // bytes written, over every level of partitioning
}

// spillBudget is a census's budget and, once it has spilled, its
// partition files.
type spillBudget struct {
	budget int64      // what the census may hold, in estimated bytes
	depth  int        // 0 for the census of a check; partitions split again are deeper
	under  string     // where to make the files' directory: "" for the system's temporary directory
	files  *spill.Set // nil until the first spill
	stats  SpillStats
}

// LimitMemory gives the census a budget of about bytes (0: none, the
// census stays in memory). Half of it is for the census: the rest is
// headroom for the garbage collector, the pages being read and the
// partition being reconciled. Past it the census spills to partition files
// in a temporary directory, which Close removes. It is set before the
// first Add.
func (c *Census) LimitMemory(bytes int64) {
	if bytes <= 0 {
		c.spill = nil
		return
	}
	parts := int(min(max(bytes/(256<<10), 4), 256))
	share := max(bytes/2-int64(parts*spill.Buffer), bytes/4)
	c.spill = &spillBudget{budget: share}
	c.spill.stats.Partitions = parts
}

// Spilled reports how much the census spilled, over every level.
func (c *Census) Spilled() SpillStats {
	if c.spill == nil {
		return SpillStats{}
	}
	return c.spill.stats
}

// spilled reports whether part of the census is on disk.
func (c *Census) spilled() bool { return c.spill != nil && c.spill.files != nil }

// Err returns the error that stopped the census recording (a spill that
// could not be written), nil if none.
func (c *Census) Err() error { return c.err }

// spillPastBudget spills the census when it holds more than its budget,
// or when one of its tables is full, as one of a long attribute's values
// can be under a budget of gigabytes.
func (c *Census) spillPastBudget() {
	if c.spill == nil || c.err != nil || c.size() <= c.spill.budget && !c.full() {
		return
	}
	if err := c.spillAll(); err != nil {
		c.fail(err)
	}
}

// fail stops the census recording: it keeps err and forgets what it held.
func (c *Census) fail(err error) {
	c.err = err
	c.forget()
}

// forget drops what the census holds in memory (not its counts, nor its
// invalid values). New tables, not cleared ones, so that their memory is
// given back.
func (c *Census) forget() {
	c.values = make([]strtab, len(c.schema.Constraints))
	for i := range c.values {
		c.values[i].tail = entryBytes
	}
	c.more, c.others, c.ttls, c.ids, c.moreBytes = nil, nil, nil, strtab{}, 0
}

// spillAll appends every value the census holds to its partition file and
// forgets them. The files' buffers are flushed by readable, before they
// are read: a census that spills often writes each buffer once it is full.
func (c *Census) spillAll() error {
	sp := c.spill
	if sp.files == nil {
		files, err := spill.Create(sp.under, sp.stats.Partitions)
		if err != nil {
			return fmt.Errorf("spill the census: %w", err)
		}
		sp.files = files
	}
	err := c.eachRecord(func(ci int, v, record []byte) error {
		if err := sp.files.Write(ci, v, record); err != nil {
			return fmt.Errorf("spill the census to %w", err)
		}
		sp.stats.Bytes += int64(len(record))
		return nil
	})
	if err != nil {
		return err
	}
	sp.stats.Spills++
	c.forget()
	return nil
}

// readable spills what the census holds and closes the partition files,
// so that each holds every record of its values.
func (c *Census) readable() error {
	if err := c.spillAll(); err != nil {
		return err
	}
	if err := c.spill.files.Flush(); err != nil {
		return fmt.Errorf("spill the census to %w", err)
	}
	return nil
}

// openPart opens partition file i of a census that spilled, to read it
// back: nil and no error when no value fell in it.
func (c *Census) openPart(i int) (*os.File, error) {
	f, err := c.spill.files.Open(i)
	if err != nil {
		return nil, fmt.Errorf("read back the census: %w", err)
	}
	return f, nil
}

// eachRecord hands write each value the census holds in memory, as a
// record (appendRecord), with its constraint and value. The record is
// valid only during the call.
func (c *Census) eachRecord(write func(ci int, v, record []byte) error) error {
	var buf []byte
	for ci := range c.values {
		var err error
		c.values[ci].each(func(vi uint32, v, tail []byte) {
			if err == nil {
				buf = c.appendRecord(buf[:0], ci, v, c.entry(ci, vi, tail), c.more[valueRef{uint32(ci), vi}])
				err = write(ci, v, buf)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// A record is one value of one constraint as the census knew it when it
// spilled: flags, the constraint index, the value, the lock's owner when
// named (recordOwned), the lock's TTL (recordLockTTL) and the holders'
// latest (recordHolderTTL) where they have one, then the number of
// holders and each holder's id. Numbers are uvarints; strings are a
// uvarint length and the bytes.
const (
	recordLocked = 1 << iota
	recordOwned
	// recordOwnedByHolder: the owner is the first holder and is not
	// written again, the case of every healthy value.
	recordOwnedByHolder
	recordLockTTL
	recordHolderTTL
	recordAlt // the lock is in its constraint's other spelling
)

func (c *Census) appendRecord(buf []byte, ci int, v []byte, e entry, more []uint32) []byte {
	var flags byte
	if e.locked() {
		flags |= recordLocked
	}
	if e.alt {
		flags |= recordAlt
	}
	switch {
	case e.owned() && e.owner == e.holder:
		flags |= recordOwnedByHolder
	case e.owned():
		flags |= recordOwned
	}
	if e.lock.set {
		flags |= recordLockTTL
	}
	if e.held() && e.holders.set {
		flags |= recordHolderTTL
	}
	buf = append(buf, flags)
	buf = binary.AppendUvarint(buf, uint64(ci))
	buf = appendString(buf, v)
	if flags&recordOwned != 0 {
		buf = c.appendIDString(buf, e.owner)
	}
	if flags&recordLockTTL != 0 {
		buf = binary.AppendVarint(buf, e.lock.at)
	}
	if flags&recordHolderTTL != 0 {
		buf = binary.AppendVarint(buf, e.holders.at)
	}
	if !e.held() {
		return binary.AppendUvarint(buf, 0)
	}
	buf = binary.AppendUvarint(buf, uint64(1+len(more)))
	buf = c.appendIDString(buf, e.holder)
	for _, n := range more {
		buf = c.appendIDString(buf, n)
	}
	return buf
}

// appendIDString appends the account id at pos as appendString would.
func (c *Census) appendIDString(buf []byte, pos uint32) []byte {
	return c.appendID(binary.AppendUvarint(buf, uint64(c.idLen(pos))), pos)
}

func appendString(buf []byte, s []byte) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// replay reads partition file i of from and adds each record to c, as
// from had added it.
func (c *Census) replay(from *spill.Set, i int) error {
	path := from.Path(i)
	f, err := from.Open(i)
	if err != nil {
		err = fmt.Errorf("read back the census: %w", err)
	}
	if f == nil && err == nil {
		return nil // no value of the census fell in this partition
	}
	if err != nil {
		return fmt.Errorf("read back the census: %w", err)
	}
	defer f.Close()
	if err := c.replayRecords(bufio.NewReaderSize(f, 64<<10)); err != nil {
		return fmt.Errorf("read back the census from %s: %w", path, err)
	}
	return nil
}

// replayRecords adds every record r holds to c, to its end.
func (c *Census) replayRecords(r *bufio.Reader) error {
	for {
		err := c.replayRecord(r)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if c.err != nil {
			return c.err
		}
	}
}

// replayRecord reads one record from r into c: io.EOF when there is none.
func (c *Census) replayRecord(r *bufio.Reader) error {
	flags, err := r.ReadByte()
	if err != nil {
		return err // io.EOF only here, between records
	}
	ci, err := binary.ReadUvarint(r)
	if err != nil || ci >= uint64(len(c.values)) {
		return errors.Join(errors.New("a record of no constraint"), noEOF(err))
	}
	v, err := readString(r)
	if err != nil {
		return err
	}
	owner := ""
	if flags&recordOwned != 0 {
		if owner, err = readString(r); err != nil {
			return err
		}
	}
	var ttls ttlPair // the holders' latest TTL is each holder's, so their merge is it again
	for _, t := range []struct {
		flag byte
		dst  *expiry
	}{{recordLockTTL, &ttls.lock}, {recordHolderTTL, &ttls.holders}} {
		if flags&t.flag != 0 {
			at, err := binary.ReadVarint(r)
			if err != nil || at > MaxTTL {
				return errors.Join(errors.New("a record with a TTL out of range"), noEOF(err))
			}
			*t.dst = expiry{at, true}
		}
	}
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return noEOF(err)
	}
	for i := range n {
		id, err := readString(r)
		if err != nil {
			return err
		}
		if i == 0 && flags&recordOwnedByHolder != 0 {
			owner = id
		}
		c.addHolder(int(ci), v, id, ttls.holders)
	}
	if flags&recordLocked != 0 {
		c.addLock(int(ci), v, owner, ttls.lock, flags&recordAlt != 0) // after the holders: the owner may be the first
	}
	return nil
}

// noEOF turns an end of file inside a record into the error it is.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// maxRecordString bounds a string read back: an attribute is at most
// 400 KB, so a longer length is a damaged file, not a reason to allocate.
const maxRecordString = 1 << 20

func readString(r *bufio.Reader) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return "", noEOF(err)
	}
	if n > maxRecordString {
		return "", fmt.Errorf("a string of %d bytes", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", noEOF(err)
	}
	return string(b), nil
}

// Reconcile is Problems for a census that may have spilled: it reconciles
// each partition alone, in memory (splitting again one too large for the
// budget), and reports every problem as one census in memory would, in
// contract order. It may be called again, and the census added to after.
func (c *Census) Reconcile() ([]Problem, error) {
	if c.err != nil {
		return nil, c.err
	}
	if !c.spilled() {
		return c.Problems(), nil
	}
	if err := c.readable(); err != nil {
		return nil, err
	}
	ps := append([]Problem{}, c.invalid...)
	c.reservations, c.reserved = 0, nil
	err := c.eachPartition(true, func(part *Census) error {
		more, err := part.Reconcile()
		ps = append(ps, more...)
		c.reservations += part.reservations
		c.reserved = append(c.reserved, part.reserved[:min(len(part.reserved), maxReserved-len(c.reserved))]...)
		return err
	})
	if err != nil {
		return nil, err
	}
	SortProblems(ps)
	SortProblems(c.reserved)
	return ps, nil
}

// eachPartition reads each partition of a census that spilled back into a
// census of its own and hands it to visit. With split, that census has the
// same budget (and spills in turn, with another hash, into a directory
// under this one); without, it holds the whole partition.
func (c *Census) eachPartition(split bool, visit func(part *Census) error) error {
	sp := c.spill
	for i := range sp.files.Len() {
		part := NewCensus(c.schema, c.now)
		if split && sp.depth < maxSpillDepth {
			part.spill = &spillBudget{budget: sp.budget, depth: sp.depth + 1, under: sp.files.Dir()}
			part.spill.stats.Partitions = sp.files.Len()
		}
		err := part.replay(sp.files, i)
		if err == nil {
			err = visit(part)
		}
		sp.stats.Spills += part.Spilled().Spills
		sp.stats.Bytes += part.Spilled().Bytes
		err = errors.Join(err, part.Close())
		if err != nil {
			return err
		}
	}
	return nil
}

// errClosed is what a census that spilled and was closed reports: what it
// held is gone.
var errClosed = errors.New("the census was closed: what it spilled is removed")

// Close removes the partition files of a census that spilled, which can
// then no longer be reconciled. Close on a nil census does nothing, so
// that a caller may defer it before knowing whether a census was made.
func (c *Census) Close() error {
	if c == nil || !c.spilled() {
		return nil
	}
	err := c.spill.files.Remove()
	c.spill.files = nil
	c.forget()
	c.err = errClosed
	return err
}
