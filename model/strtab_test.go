package model

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestStrtab: a string interned again gets its first position, every
// string reads back as it went in, and the tails written beside them
// survive the growth of the index and new chunks.
func TestStrtab(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tab := strtab{tail: 4}
	want := map[string]uint32{}
	var order []string
	for i := range 60_000 {
		s := fmt.Sprintf("v%d", r.IntN(40_000))
		switch i % 1000 {
		case 0:
			s = "" // the empty string is a value like another
		case 1:
			s = strings.Repeat("x", 300<<10) + s // a string longer than a chunk's usual size
		case 2:
			s = "nul\x00" + s
		}
		pos, added, err := tab.intern(s)
		if err != nil {
			t.Fatal(err)
		}
		if old, seen := want[s]; seen {
			if added || pos != old {
				t.Fatalf("%.20q again: position %d (added %v), first %d", s, pos, added, old)
			}
			continue
		}
		if !added {
			t.Fatalf("%.20q: not added the first time", s)
		}
		want[s] = pos
		order = append(order, s)
		_, tail := tab.record(pos)
		copy(tail, fmt.Sprintf("%04d", len(order)%10_000))
	}
	i := 0
	tab.each(func(pos uint32, s, tail []byte) {
		if i >= len(order) || string(s) != order[i] || pos != want[order[i]] {
			t.Fatalf("each: string %d is %.20q at %d, want %.20q at %d", i, s, pos, order[i], want[order[i]])
		}
		if got := string(tab.bytes(pos)); got != order[i] {
			t.Fatalf("bytes(%d) = %.20q, want %.20q", pos, got, order[i])
		}
		i++
		if wantTail := fmt.Sprintf("%04d", i%10_000); !bytes.Equal(tail, []byte(wantTail)) {
			t.Fatalf("string %d: tail %q, want %q", i, tail, wantTail)
		}
	})
	if i != len(order) {
		t.Fatalf("each visited %d strings, want %d", i, len(order))
	}
}

// TestStrtabLimits: a string no chunk can hold, and an arena with no
// chunk left, are errors, never a wrong position.
func TestStrtabLimits(t *testing.T) {
	var tab strtab
	if _, _, err := tab.intern(strings.Repeat("x", chunkSize)); !errors.Is(err, errLongString) {
		t.Errorf("a 1 MiB string: %v, want errLongString", err)
	}
	tab.chunks = make([][]byte, maxChunks-2)
	if !tab.full() {
		t.Errorf("%d chunks of %d: not full", len(tab.chunks), maxChunks)
	}
	tab.chunks = make([][]byte, maxChunks)
	if _, _, err := tab.intern("one more"); !errors.Is(err, errArenaFull) {
		t.Errorf("no chunk left: %v, want errArenaFull", err)
	}
}

// TestCensusFull: a census whose arena is full stops recording and says
// why, as one that could not spill does.
func TestCensusFull(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	c := NewCensus(&s, 0)
	c.Add("accounts", Item{"PK": S("ACCT#1"), "SK": S("PROFILE"), "email": S("a@x.io"), "username": S("a")})
	c.ids.chunks = append(c.ids.chunks, make([][]byte, maxChunks)...)
	c.Add("accounts", Item{"PK": S("ACCT#2"), "SK": S("PROFILE"), "email": S("b@x.io"), "username": S("b")})
	if !errors.Is(c.Err(), errArenaFull) {
		t.Errorf("a full arena: Err() = %v, want errArenaFull", c.Err())
	}
	if _, err := c.Reconcile(); !errors.Is(err, errArenaFull) {
		t.Errorf("Reconcile of a full census: %v, want errArenaFull", err)
	}
}

// TestStrtabSize: what a table counts as held is what its slices hold.
func TestStrtabSize(t *testing.T) {
	tab := strtab{tail: entryBytes}
	for i := range 100_000 {
		if _, _, err := tab.intern(fmt.Sprint("value-", i)); err != nil {
			t.Fatal(err)
		}
	}
	want := int64(cap(tab.chunks))*24 + int64(len(tab.sub))*56
	for _, c := range tab.chunks {
		want += int64(cap(c))
	}
	for _, st := range tab.sub {
		want += int64(4*cap(st.pos) + cap(st.frag))
	}
	if got := tab.size(); got != want {
		t.Errorf("size() = %d, the slices hold %d", got, want)
	}
}

// TestFullCensusSpills: a census with a budget spills when one of its
// tables is nearly full, however far under the budget it is, and goes on.
func TestFullCensusSpills(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	s := DefaultSchema(LayoutSingle)
	c := NewCensus(&s, 0)
	c.LimitMemory(8 << 30)
	defer c.Close()
	c.Add("accounts", Item{"PK": S("ACCT#1"), "SK": S("PROFILE"), "email": S("a@x.io"), "username": S("a")})
	c.values[0].chunks = append(c.values[0].chunks, make([][]byte, maxChunks)...)[:maxChunks-2]
	c.Add("accounts", Item{"PK": S("ACCT#2"), "SK": S("PROFILE"), "email": S("b@x.io"), "username": S("b")})
	if c.Err() != nil || c.Spilled().Spills == 0 {
		t.Fatalf("a full table under a large budget: err %v, %d spills; want a spill", c.Err(), c.Spilled().Spills)
	}
	c.Add("accounts", Item{"PK": S("ACCT#3"), "SK": S("PROFILE"), "email": S("c@x.io"), "username": S("c")})
	ps, err := c.Reconcile()
	if err != nil || len(ps) != 6 || c.Accounts != 3 {
		t.Fatalf("after the spill: %v, %d problems of %d accounts; want 6 missing locks of 3", err, len(ps), c.Accounts)
	}
}
