package dynamo

import (
	"maps"
	"testing"
)

// TestKeyID: a key's id does not depend on the order of its attributes,
// and two different keys (of one, two or more attributes) never share one,
// even when their values hold NUL and would run into each other.
func TestKeyID(t *testing.T) {
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
		got := keyID("t", k)
		if j, ok := seen[got]; ok && !maps.Equal(keys[j], k) {
			t.Errorf("keys %q and %q share the id %q", keys[j], k, got)
		}
		seen[got] = i
	}
	if a, b := keyID("t", map[string]string{"PK": "x", "SK": "y"}), keyID("t", map[string]string{"SK": "y", "PK": "x"}); a != b {
		t.Errorf("one key, two ids: %q and %q", a, b)
	}
	if keyID("t", keys[0]) == keyID("u", keys[0]) {
		t.Error("one key in two tables shares an id")
	}
}
