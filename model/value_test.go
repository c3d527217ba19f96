package model

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestValueMarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		v    Value
		want string
	}{
		{"string", S("ada@lovelace.io"), `{"S":"ada@lovelace.io"}`},
		{"empty string", S(""), `{"S":""}`},
		{"string with HTML characters is not escaped", S("<b>&co</b>"), `{"S":"<b>&co</b>"}`},
		{"string with quote and unicode", S(`"é"`), `{"S":"\"é\""}`},
		{"number", N("42"), `{"N":"42"}`},
		{"decimal number", N("-1.5e3"), `{"N":"-1.5e3"}`},
		{"binary as base64", Value{Kind: KindB, B: []byte{0, 1, 2, 255}}, `{"B":"AAEC/w=="}`},
		{"empty binary", Value{Kind: KindB}, `{"B":""}`},
		{"bool true", Value{Kind: KindBOOL, Bool: true}, `{"BOOL":true}`},
		{"bool false", Value{Kind: KindBOOL}, `{"BOOL":false}`},
		{"null", Null(), `{"NULL":true}`},
		{"string set", Value{Kind: KindSS, Strings: []string{"a", "<b>"}}, `{"SS":["a","<b>"]}`},
		{"nil string set", Value{Kind: KindSS}, `{"SS":[]}`},
		{"number set", Value{Kind: KindNS, Strings: []string{"1", "2.5"}}, `{"NS":["1","2.5"]}`},
		{"binary set", Value{Kind: KindBS, Binaries: [][]byte{{1}, {2, 3}}}, `{"BS":["AQ==","AgM="]}`},
		{"nil binary set", Value{Kind: KindBS}, `{"BS":[]}`},
		{"list", Value{Kind: KindL, List: []Value{S("a"), N("1"), Null()}}, `{"L":[{"S":"a"},{"N":"1"},{"NULL":true}]}`},
		{"empty list", Value{Kind: KindL, List: []Value{}}, `{"L":[]}`},
		{"nil list", Value{Kind: KindL}, `{"L":[]}`},
		{"map, keys sorted", Value{Kind: KindM, Map: map[string]Value{"b": N("1"), "a": S("<x>")}}, `{"M":{"a":{"S":"<x>"},"b":{"N":"1"}}}`},
		{"nil map", Value{Kind: KindM}, `{"M":{}}`},
		{"nested", Value{Kind: KindL, List: []Value{{Kind: KindM, Map: map[string]Value{"k": {Kind: KindSS, Strings: []string{"<"}}}}}}, `{"L":[{"M":{"k":{"SS":["<"]}}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.v.MarshalJSON()
			if err != nil {
				t.Fatalf("MarshalJSON: %v", err)
			}
			if string(b) != tt.want {
				t.Errorf("MarshalJSON = %s, want %s", b, tt.want)
			}
			if got := tt.v.DynamoJSON(); got != tt.want {
				t.Errorf("DynamoJSON = %s, want %s", got, tt.want)
			}
			if !json.Valid(b) {
				t.Errorf("not valid JSON: %s", b)
			}
		})
	}
}

func TestValueKindString(t *testing.T) {
	tests := []struct {
		k    ValueKind
		want string
	}{
		{KindS, "S"}, {KindN, "N"}, {KindB, "B"}, {KindBOOL, "BOOL"}, {KindNULL, "NULL"},
		{KindSS, "SS"}, {KindNS, "NS"}, {KindBS, "BS"}, {KindL, "L"}, {KindM, "M"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("ValueKind(%d).String() = %q, want %q", tt.k, got, tt.want)
		}
	}
}

func TestItemMarshalJSON(t *testing.T) {
	tests := []struct {
		name      string
		it        Item
		want      string
		wantNames []string
	}{
		{"empty", Item{}, `{}`, []string{}},
		{
			"attributes sorted, no HTML escaping",
			Item{"SK": S("LOCK"), "PK": S("UNIQ#EMAIL#<a>@x.io"), "owner": S("ACCT#a1")},
			`{"PK":{"S":"UNIQ#EMAIL#<a>@x.io"},"SK":{"S":"LOCK"},"owner":{"S":"ACCT#a1"}}`,
			[]string{"PK", "SK", "owner"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.it.MarshalJSON()
			if err != nil {
				t.Fatalf("MarshalJSON: %v", err)
			}
			if string(b) != tt.want {
				t.Errorf("MarshalJSON = %s, want %s", b, tt.want)
			}
			if got := tt.it.SortedNames(); !reflect.DeepEqual(got, tt.wantNames) {
				t.Errorf("SortedNames = %q, want %q", got, tt.wantNames)
			}
		})
	}
}
