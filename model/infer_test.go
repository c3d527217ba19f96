package model

import (
	"strings"
	"testing"
)

func item(kv ...string) Item {
	it := Item{}
	for i := 0; i+1 < len(kv); i += 2 {
		it[kv[i]] = S(kv[i+1])
	}
	return it
}

func TestInferSchemaSaysWhatItCannot(t *testing.T) {
	if _, _, err := InferSchema(Sample{Table: "t", PK: "pk", SK: "sk"}, nil); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty table: %v", err)
	}
	flat := Sample{Table: "t", PK: "pk", SK: "sk", Items: []Item{item("pk", "A#1", "sk", "x", "n", "q"), item("pk", "B#2", "sk", "y", "m", "r")}}
	if _, _, err := InferSchema(flat, nil); err == nil || !strings.Contains(err.Error(), "does not look like locks") {
		t.Errorf("no locks: %v", err)
	}
	if _, _, err := InferSchema(Sample{Table: "d", PK: "id", Items: []Item{item("id", "1", "a", "x")}}, nil); err == nil || !strings.Contains(err.Error(), "no lock tables") {
		t.Errorf("no lock tables: %v", err)
	}
}
