package model

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestMergeCensusIsOneCensus: rows split between parts, written to JSON
// and merged, give the problems one census of every row gives.
func TestMergeCensusIsOneCensus(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	rows := []row{
		acct("ACCT#a", "email", "a@x", "username", "ada"), lock("UNIQ#EMAIL#a@x", "ACCT#a"), lock("UNIQ#HANDLE#ada", "ACCT#a"),
		acct("ACCT#b", "email", "dup@x", "username", "bob"), acct("ACCT#c", "email", "dup@x", "username", N("7")),
		lock("UNIQ#EMAIL#dup@x", "ACCT#b"), lock("UNIQ#EMAIL#old@x", "ACCT#gone"), lock("UNIQ#HANDLE#ghost"),
		row{"accounts", attrs("PK", "CONFIG", "SK", "X")},
	}
	one := NewCensus(&s)
	parts := []*Census{NewCensus(&s), NewCensus(&s), NewCensus(&s)}
	for i, r := range rows {
		one.Add(r.table, r.item)
		parts[i%3].Add(r.table, r.item) // an account and its locks fall in different parts
	}
	var files []CensusFile
	for i, p := range parts {
		part, err := p.File(3, i, i+1)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(part)
		if err != nil {
			t.Fatal(err)
		}
		var f CensusFile
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	merged, err := MergeCensus(&s, files)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(one.Problems())
	got, _ := json.Marshal(merged.Problems())
	if string(got) != string(want) || merged.Scanned != one.Scanned || merged.Accounts != one.Accounts || merged.Locks != one.Locks {
		t.Fatalf("merged:\n got %s\nwant %s", got, want)
	}
	if _, err := MergeCensus(&s, files[:2]); err == nil || !strings.Contains(err.Error(), "missing [2]") {
		t.Errorf("a missing part: %v", err)
	}
	if _, err := MergeCensus(&s, append(files, files[0])); err == nil || !strings.Contains(err.Error(), "twice or more [0]") {
		t.Errorf("a part twice: %v", err)
	}
}

// TestMergedShapesAreCapped: each part keeps at most maxShapes key shapes
// of other items; merged, the census keeps that cap too (the rest counted
// as "(other)"), and loses no item.
func TestMergedShapesAreCapped(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	var files []CensusFile
	total := 0
	for p := range 3 {
		c := NewCensus(&s)
		for i := range maxShapes {
			c.Add(s.Table, Item{"PK": S(fmt.Sprintf("P%dS%d#x", p, i)), "SK": S("X")})
			total++
		}
		f, err := c.File(3, p, p+1)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	merged, err := MergeCensus(&s, files)
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
	parts := []*Census{NewCensus(&s), NewCensus(&s), NewCensus(&s), NewCensus(&s)}
	for i, r := range rows {
		parts[i%len(parts)].Add(r.table, r.item)
	}
	m := NewMerger(&s, 64<<10)
	for i, p := range parts {
		f, err := p.File(len(parts), i, i+1)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	merged, err := m.Census()
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
