package model

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
)

// strtab interns strings. Each distinct string is kept once, as a record
// in an arena of 1 MiB chunks: its length, its bytes, then tail bytes the
// owner of the table keeps beside it (a value's entry). A string's id is
// its record's position in the arena. The index that finds a position by
// its string is split by hash into subtables that grow one at a time.
//
// So the census of a large table costs little more than its strings:
// 6 to 11 bytes of index per string, no pointer for the garbage collector
// to walk, and no large array copied when it grows (a growth doubling one
// array would be resident twice at that moment: the peak, not the
// average, is what a process is charged). A Go map of strings costs about
// 75 bytes per string beyond its bytes.
type strtab struct {
	tail   int   // bytes kept after each string
	held   int64 // bytes allocated: chunks, subtables (size)
	chunks [][]byte
	sub    []subtable // by the hash's top bits; nil until the first intern
	seed   maphash.Seed
}

// subtable is open addressing with linear probing over positions+1 (0:
// empty), with 8 more bits of each string's hash beside them so that most
// probes of another string do not read the arena: so it can fill to 7/8
// before it doubles.
type subtable struct {
	pos  []uint32
	frag []uint8
	n    int
}

const (
	chunkBits = 20 // 1 MiB: a DynamoDB item, and so any string of one, is at most 400 KB
	chunkSize = 1 << chunkBits
	// maxChunks keeps every position below noPos-1, the entries' markers.
	maxChunks    = 1<<(32-chunkBits) - 1
	subtableBits = 4
	firstSlots   = 8
)

// noPos is no position: what an entry holds for no holder, or no lock.
const noPos = ^uint32(0)

// errArenaFull is what interning reports past 3.25 GiB of strings, which
// a census with a budget never reaches: it spills first (full).
var errArenaFull = errors.New("more than 3 GiB of one attribute's distinct values (or of account ids): give the check a lower --max-memory, so that it spills to disk before")

// errLongString is what interning reports for a string that no chunk can
// hold: longer than any attribute of a DynamoDB item can be.
var errLongString = errors.New("a value or account id longer than 1 MiB")

// full reports that the table may not have room for another item's
// strings: two more chunks (an item adds at most two strings to a table,
// an id and an owner) would pass maxChunks.
func (t *strtab) full() bool { return len(t.chunks) >= maxChunks-2 }

// size is the bytes the table holds, spare capacity included.
func (t *strtab) size() int64 { return t.held + int64(cap(t.chunks))*24 }

// record returns the string at pos and the tail kept after it, without a
// copy: views into the arena, to be neither kept past the table's next
// intern nor changed (the tail may be).
func (t *strtab) record(pos uint32) (s, tail []byte) {
	c := t.chunks[pos>>chunkBits][pos&(chunkSize-1):]
	n, w := binary.Uvarint(c)
	end := w + int(n)
	return c[w:end], c[end : end+t.tail]
}

// bytes returns the string at pos, as record does.
func (t *strtab) bytes(pos uint32) []byte {
	s, _ := t.record(pos)
	return s
}

// each visits every string, in the order interned, with its tail.
func (t *strtab) each(visit func(pos uint32, s, tail []byte)) {
	for ci, c := range t.chunks {
		for off := 0; off < len(c); {
			n, w := binary.Uvarint(c[off:])
			start, end := off+w, off+w+int(n)
			visit(uint32(ci)<<chunkBits|uint32(off), c[start:end], c[end:end+t.tail])
			off = end + t.tail
		}
	}
}

// find looks for s (of hash h) in st: its position, or noPos and the slot
// where it would go.
func (t *strtab) find(st *subtable, h uint64, s string) (uint32, int) {
	mask, frag := len(st.pos)-1, uint8(h>>(64-subtableBits-8))
	for i := int(h) & mask; ; i = (i + 1) & mask {
		p := st.pos[i]
		if p == 0 {
			return noPos, i
		}
		if st.frag[i] == frag && string(t.bytes(p-1)) == s {
			return p - 1, i
		}
	}
}

// intern returns the position of s, adding it (with a zero tail) when new;
// added reports that it was.
func (t *strtab) intern(s string) (pos uint32, added bool, err error) {
	if t.sub == nil {
		t.seed = maphash.MakeSeed()
		t.sub = make([]subtable, 1<<subtableBits)
		t.held += int64(len(t.sub)) * 56
	}
	h := maphash.String(t.seed, s)
	st := &t.sub[h>>(64-subtableBits)]
	if len(st.pos) == 0 {
		st.pos, st.frag = make([]uint32, firstSlots), make([]uint8, firstSlots)
		t.held += 5 * firstSlots
	}
	pos, slot := t.find(st, h, s)
	if pos != noPos {
		return pos, false, nil
	}
	if pos, err = t.append(s); err != nil {
		return noPos, false, err
	}
	st.pos[slot], st.frag[slot] = pos+1, uint8(h>>(64-subtableBits-8))
	if st.n++; 8*st.n > 7*len(st.pos) {
		t.grow(st)
	}
	return pos, true, nil
}

// append writes s's record to the arena, in a new chunk when the last one
// has no room for it.
func (t *strtab) append(s string) (uint32, error) {
	need := binary.MaxVarintLen64 + len(s) + t.tail
	if need > chunkSize {
		return noPos, errLongString
	}
	last := len(t.chunks) - 1
	if last < 0 || cap(t.chunks[last])-len(t.chunks[last]) < need {
		if len(t.chunks) >= maxChunks {
			return noPos, errArenaFull
		}
		// Chunks start small and double, so that a small census (the
		// partitions of one that spilled, the census of a few consistent
		// reads) stays small.
		// They stop doubling at 256 KiB, as a chunk's spare room is
		// resident (the runtime clears memory it hands out again), up to
		// a thousand of them; past that, 1 MiB: 3.25 GiB in all (full
		// reports when one more chunk would pass it).
		size := 1 << 10
		switch {
		case last >= 1<<10:
			size = chunkSize
		case last >= 0:
			size = min(2*cap(t.chunks[last]), chunkSize/4)
		}
		size = max(size, need)
		t.chunks = append(t.chunks, make([]byte, 0, size))
		t.held += int64(size)
		last++
	}
	c := t.chunks[last]
	pos := uint32(last)<<chunkBits | uint32(len(c))
	c = binary.AppendUvarint(c, uint64(len(s)))
	c = append(c, s...)
	t.chunks[last] = append(c, make([]byte, t.tail)...)
	return pos, nil
}

// grow doubles st, placing each string again by its hash.
func (t *strtab) grow(st *subtable) {
	n := 2 * len(st.pos)
	pos, frag := make([]uint32, n), make([]uint8, n)
	mask := n - 1
	for _, p := range st.pos {
		if p == 0 {
			continue
		}
		h := maphash.Bytes(t.seed, t.bytes(p-1))
		i := int(h) & mask
		for pos[i] != 0 {
			i = (i + 1) & mask
		}
		pos[i], frag[i] = p, uint8(h>>(64-subtableBits-8))
	}
	t.held += int64(5 * (n - len(st.pos)))
	st.pos, st.frag = pos, frag
}
