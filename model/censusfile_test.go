package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// part writes c as segments [from, to) of segments.
func part(t *testing.T, c *Census, segments, from, to int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := c.WritePart(&b, segments, from, to); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// merge merges parts under budget (0: none).
func merge(s *Schema, budget int64, parts ...[]byte) (*Census, error) {
	m := NewMerger(s, budget)
	for _, p := range parts {
		if err := m.ReadPart(bytes.NewReader(p)); err != nil {
			return nil, err
		}
	}
	return m.Census()
}

// TestMergeCensusIsOneCensus: rows split between parts, written and
// merged, give the problems one census of every row gives; parts that
// leave a segment out or hold one twice are refused.
func TestMergeCensusIsOneCensus(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	rows := []row{
		acct("ACCT#a", "email", "a@x", "username", "ada"), lock("UNIQ#EMAIL#a@x", "ACCT#a"), lock("UNIQ#HANDLE#ada", "ACCT#a"),
		acct("ACCT#b", "email", "dup@x", "username", "bob"), acct("ACCT#c", "email", "dup@x", "username", N("7")),
		lock("UNIQ#EMAIL#dup@x", "ACCT#b"), lock("UNIQ#EMAIL#old@x", "ACCT#gone"), lock("UNIQ#HANDLE#ghost"),
		row{"accounts", attrs("PK", "CONFIG", "SK", "X")},
	}
	one := NewCensus(&s, 0)
	parts := []*Census{NewCensus(&s, 0), NewCensus(&s, 0), NewCensus(&s, 0)}
	for i, r := range rows {
		one.Add(r.table, r.item)
		parts[i%3].Add(r.table, r.item) // an account and its locks fall in different parts
	}
	var files [][]byte
	for i, p := range parts {
		files = append(files, part(t, p, 3, i, i+1))
	}
	merged, err := merge(&s, 0, files...)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(one.Problems())
	got, _ := json.Marshal(merged.Problems())
	if string(got) != string(want) || merged.Scanned != one.Scanned || merged.Accounts != one.Accounts || merged.Locks != one.Locks ||
		!maps.Equal(merged.Others, one.Others) {
		t.Fatalf("merged:\n got %s\nwant %s", got, want)
	}
	if _, err := merge(&s, 0, files[:2]...); err == nil || !strings.Contains(err.Error(), "missing [2]") {
		t.Errorf("a missing part: %v", err)
	}
	if _, err := merge(&s, 0, append(files, files[0])...); err == nil || !strings.Contains(err.Error(), "twice or more [0]") {
		t.Errorf("a part twice: %v", err)
	}
}

// TestMergeRefusesBadParts: a part of another schema, another format, cut
// short or not a part at all is an error, never fewer problems.
func TestMergeRefusesBadParts(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	c := NewCensus(&s, 0)
	c.Add("accounts", Item{"PK": S("ACCT#a"), "SK": S("PROFILE"), "email": S("a@x"), "username": S("ada")})
	good := part(t, c, 1, 0, 1)
	other := DefaultSchema(LayoutTables)
	tests := []struct {
		name, want string
		part       []byte
	}{
		{"another schema", "another schema: its Layout, Table, PK, SK", part(t, NewCensus(&other, 0), 1, 0, 1)},
		// As version 1 wrote it: one JSON object of every value.
		{"format 1", "census format 1, want 4", []byte(`{"version":1,"schema":"x","segments":1,"from":0,"to":1,"holders":[{"a@x":["ACCT#a"]}],"locks_seen":[{}],"invalid":[]}` + "\n")},
		{"cut inside a record", "unexpected EOF", good[:len(good)-3]},
		{"cut between records", "cut short", good[:len(good)-1]},
		{"cut after its header", "cut short", good[:bytes.IndexByte(good, '\n')+1]},
		{"data after its end", "after its end", append(slices.Clone(good), 1)},
		{"no header", "no header", []byte("{")},
		{"not JSON", "not a census part", []byte("PK,SK\n")},
		{"a field this version does not know", "not a census part", []byte(`{"version":4,"holders":[]}` + "\n")},
		{"segments past its count", "holds segments 0-1 of 1", part(t, NewCensus(&s, 0), 1, 0, 2)},
		{"a problem of an attribute not unique", "does not constrain", bytes.Replace(good, []byte(`"invalid":[]`), []byte(`"invalid":[{"constraint":"bio"}]`), 1)},
	}
	for _, tt := range tests {
		if _, err := merge(&s, 0, tt.part); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

// TestMergedShapesAreCapped: each part keeps at most maxShapes key shapes
// of other items; merged, the census keeps that cap too (the rest counted
// as "(other)"), and loses no item.
func TestMergedShapesAreCapped(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	var files [][]byte
	total := 0
	for p := range 3 {
		c := NewCensus(&s, 0)
		for i := range maxShapes {
			c.Add(s.Table, Item{"PK": S(fmt.Sprintf("P%dS%d#x", p, i)), "SK": S("X")})
			total++
		}
		files = append(files, part(t, c, 3, p, p+1))
	}
	merged, err := merge(&s, 0, files...)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range merged.Others {
		n += k
	}
	if len(merged.Others) > maxShapes+1 || n != total || merged.Others["(other)"] == 0 {
		t.Fatalf("merged %d shapes holding %d items (want at most %d shapes, %d items, some (other)): %v", len(merged.Others), n, maxShapes+1, total, merged.Others)
	}
}

// TestMergeUnderABudget: parts merged under a budget the census outgrows
// spill, and reconcile to the problems of one census in memory.
func TestMergeUnderABudget(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	// The random stream repeats some keys (a lock with and without an
	// owner), which a table cannot: one census keeps the last, a merge
	// the last part's. One item per key, as a table holds.
	seen := map[string]bool{}
	var rows []row
	for _, r := range slices.Backward(randomRows(rand.New(rand.NewPCG(5, 5)), &s, 2000)) {
		if k := r.table + "\x00" + r.item["PK"].S + "\x00" + r.item["SK"].S; !seen[k] {
			seen[k] = true
			rows = append(rows, r)
		}
	}
	one := censusOf(&s, rows)
	parts := []*Census{NewCensus(&s, 0), NewCensus(&s, 0), NewCensus(&s, 0), NewCensus(&s, 0)}
	for i, r := range rows {
		parts[i%len(parts)].Add(r.table, r.item)
	}
	var files [][]byte
	for i, p := range parts {
		files = append(files, part(t, p, len(parts), i, i+1))
	}
	merged, err := merge(&s, 64<<10, files...)
	if err != nil {
		t.Fatal(err)
	}
	defer merged.Close()
	if merged.Spilled().Spills == 0 {
		t.Fatal("a merge past its budget did not spill")
	}
	got, want := problemsJSON(t, reconciled(t, merged)), problemsJSON(t, one.Problems())
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Fatalf("merged under a budget: %d problems, in memory %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
}

// TestMergeKeepsTTLs: random rows with TTLs, split between parts that
// started a few seconds apart, merge into what one census of every row
// judged at the earliest start finds: the same problems (expired and
// expiring locks with their expires_at), reservations and warnings.
func TestMergeKeepsTTLs(t *testing.T) {
	for _, s := range []Schema{withTTL(DefaultSchema(LayoutSingle)), withTTL(DefaultSchema(LayoutTables))} {
		rows := uniqueKeys(&s, randomRows(rand.New(rand.NewPCG(3, 5)), &s, 2000)) // each part past maxWarnings
		one := NewCensus(&s, testNow)
		parts := []*Census{NewCensus(&s, testNow+5), NewCensus(&s, testNow), NewCensus(&s, testNow+9)}
		for i, r := range rows {
			one.Add(r.table, r.item)
			parts[i%3].Add(r.table, r.item)
		}
		var files [][]byte
		for i, p := range parts {
			files = append(files, part(t, p, 3, i, i+1))
		}
		merged, err := merge(&s, 0, files...)
		if err != nil {
			t.Fatal(err)
		}
		want := problemsJSON(t, one.Problems())
		got := problemsJSON(t, reconciled(t, merged))
		kinds := map[ProblemKind]bool{}
		for _, p := range one.Problems() {
			kinds[p.Kind] = true
		}
		if !kinds[ExpiredLock] || !kinds[ExpiringLock] || one.Reservations() == 0 || len(one.Warnings()) == 0 {
			t.Fatalf("%s: the rows hold %v, %d reservations, warnings %q: not every TTL case", s.Layout, kinds, one.Reservations(), one.Warnings())
		}
		if merged.Now() != testNow {
			t.Errorf("%s: merged judges at %d, want the earliest start %d", s.Layout, merged.Now(), testNow)
		}
		// The warnings name the same items, whichever part read them, and
		// count those past the first ones alike.
		sortedWarnings := func(c *Census) []string { w := c.Warnings(); slices.Sort(w[:len(w)-1]); return w }
		if len(one.Warnings()) <= maxWarnings || !slices.Equal(sortedWarnings(merged)[maxWarnings:], sortedWarnings(one)[maxWarnings:]) {
			t.Errorf("%s: warnings past the first: merged %q, one census %q", s.Layout, merged.Warnings()[maxWarnings:], one.Warnings()[min(maxWarnings, len(one.Warnings())):])
		}
		if !slices.Equal(got, want) || merged.Reservations() != one.Reservations() || len(merged.Warnings()) != len(one.Warnings()) {
			t.Fatalf("%s: merged %d problems, %d reservations, %d warnings; one census %d, %d, %d:\n got %v\nwant %v", s.Layout,
				len(got), merged.Reservations(), len(merged.Warnings()), len(want), one.Reservations(), len(one.Warnings()), got, want)
		}
	}
}

// uniqueKeys keeps the last row of each key, as a table would hold it: a
// random stream may write a lock twice, and which write is last must not
// depend on how the rows are split.
func uniqueKeys(s *Schema, rows []row) []row {
	last := map[string]int{}
	for i, r := range rows {
		k, _ := json.Marshal(s.KeyOf(r.table, r.item))
		last[r.table+string(k)] = i
	}
	var out []row
	for i, r := range rows {
		if k, _ := json.Marshal(s.KeyOf(r.table, r.item)); last[r.table+string(k)] == i {
			out = append(out, r)
		}
	}
	return out
}
