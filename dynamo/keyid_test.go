package dynamo

import (
	"maps"
	"slices"
	"testing"
)

// TestKeyID: the id of a key is its table then each attribute, sorted by
// name, whatever the size of the key; different keys never share one.
func TestKeyID(t *testing.T) {
	naive := func(table string, key map[string]string) string {
		id := table
		for _, k := range slices.Sorted(maps.Keys(key)) {
			id += "\x00" + k + "\x00" + key[k]
		}
		return id
	}
	keys := []map[string]string{
		{"PK": "ACCT#a1"},
		{"PK": "ACCT#a1", "SK": "PROFILE"},
		{"SK": "PROFILE", "PK": "ACCT#a1"},
		{"b": "1", "a": "2"},
		{"a": "1", "b": "2"},
		{"z": "1", "y": "2", "x": "3"},
		{},
	}
	seen := map[string]int{}
	for i, k := range keys {
		got := keyID("t", k)
		if want := naive("t", k); got != want {
			t.Errorf("keyID(%v) = %q, want %q", k, got, want)
		}
		if j, ok := seen[got]; ok && !maps.Equal(keys[j], k) {
			t.Errorf("keys %v and %v share the id %q", keys[j], k, got)
		}
		seen[got] = i
	}
}
