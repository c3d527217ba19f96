package model

import (
	"maps"
	"testing"
)

// TestKeyRefID: a key's id does not depend on the order of its attributes,
// and two different keys (of one, two or more attributes) never share one,
// even when their values hold NUL and would run into each other.
func TestKeyRefID(t *testing.T) {
	keys := []map[string]string{
		{"PK": "ACCT#a1"},
		{"PK": "ACCT#a1", "SK": "PROFILE"},
		{"b": "1", "a": "2"},
		{"a": "1", "b": "2"},
		{"z": "1", "y": "2", "x": "3"},
		{},
		{"PK": "a\x00SK\x00b", "SK": "c"},
		{"PK": "a", "SK": "b\x00SK\x00c"},
		{"PK": "a\x00"},
	}
	seen := map[string]int{}
	for i, k := range keys {
		got := KeyRef{"t", k}.ID()
		if j, ok := seen[got]; ok && !maps.Equal(keys[j], k) {
			t.Errorf("keys %q and %q share the id %q", keys[j], k, got)
		}
		seen[got] = i
	}
	a := KeyRef{"t", map[string]string{"PK": "x", "SK": "y"}}.ID()
	if b := (KeyRef{"t", map[string]string{"SK": "y", "PK": "x"}}).ID(); a != b {
		t.Errorf("one key, two ids: %q and %q", a, b)
	}
	if (KeyRef{"t", keys[0]}).ID() == (KeyRef{"u", keys[0]}).ID() {
		t.Error("one key in two tables shares an id")
	}
}
