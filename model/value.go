package model

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
)

// ValueKind is the DynamoDB type of a Value: its DynamoDB JSON tag.
type ValueKind uint8

// The DynamoDB attribute types.
const (
	KindS ValueKind = iota
	KindN
	KindB
	KindBOOL
	KindNULL
	KindSS
	KindNS
	KindBS
	KindL
	KindM
)

var kindTags = [...]string{"S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"}

// String returns the DynamoDB JSON tag of the kind ("S", "N", ...).
func (k ValueKind) String() string { return kindTags[k] }

// Value is one DynamoDB attribute value. It mirrors the wire format so that
// model code can judge items without importing the SDK.
type Value struct {
	Kind     ValueKind
	S        string // S, and the decimal text of N
	B        []byte
	Bool     bool
	Strings  []string // SS and NS
	Binaries [][]byte
	List     []Value
	Map      map[string]Value
}

// Item is one DynamoDB item.
type Item map[string]Value

// S returns a string value.
func S(s string) Value { return Value{Kind: KindS, S: s} }

// KeyItem is the item of a key alone: its attributes as strings.
func KeyItem(key map[string]string) Item {
	it := Item{}
	for k, v := range key {
		it[k] = S(v)
	}
	return it
}

// N returns a number value from its decimal text.
func N(n string) Value { return Value{Kind: KindN, S: n} }

// Null returns the NULL value.
func Null() Value { return Value{Kind: KindNULL} }

// MarshalJSON renders v as DynamoDB JSON ({"S":"..."}, {"N":"42"}, ...),
// the format of the AWS CLI and of the articles.
func (v Value) MarshalJSON() ([]byte, error) {
	var body any
	switch v.Kind {
	case KindS, KindN:
		body = v.S
	case KindB:
		body = base64.StdEncoding.EncodeToString(v.B)
	case KindBOOL:
		body = v.Bool
	case KindNULL:
		body = true
	case KindSS, KindNS:
		body = nonNil(v.Strings)
	case KindBS:
		bs := make([]string, len(v.Binaries))
		for i, b := range v.Binaries {
			bs[i] = base64.StdEncoding.EncodeToString(b)
		}
		body = bs
	case KindL:
		body = nonNil(v.List)
	case KindM:
		if v.Map == nil {
			body = map[string]Value{}
		} else {
			body = v.Map
		}
	}
	return marshal(map[string]any{v.Kind.String(): body})
}

// MarshalJSON renders the item as DynamoDB JSON with its attributes sorted.
func (it Item) MarshalJSON() ([]byte, error) { return marshal(map[string]Value(it)) }

// DynamoJSON renders v as compact DynamoDB JSON, the form invalid_value
// problems report.
func (v Value) DynamoJSON() string {
	b, _ := v.MarshalJSON() // cannot fail: only strings, bools and slices
	return string(b)
}

// marshal is json.Marshal without HTML escaping: values are shown to people
// and compared in tests, and "<" must stay "<".
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// SortedNames returns the attribute names of it in order.
func (it Item) SortedNames() []string {
	names := make([]string, 0, len(it))
	for k := range it {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// UnmarshalJSON reads one DynamoDB JSON value ({"S":"..."}, {"N":"42"}, ...).
func (v *Value) UnmarshalJSON(data []byte) error {
	var tagged map[string]json.RawMessage
	if err := json.Unmarshal(data, &tagged); err != nil {
		return err
	}
	if len(tagged) != 1 {
		return fmt.Errorf("a DynamoDB JSON value has exactly one type key, got %d", len(tagged))
	}
	for tag, raw := range tagged {
		switch tag {
		case "S", "N":
			v.Kind = KindS
			if tag == "N" {
				v.Kind = KindN
			}
			return json.Unmarshal(raw, &v.S)
		case "B":
			v.Kind = KindB
			return json.Unmarshal(raw, &v.B) // encoding/json reads base64 into []byte
		case "BOOL":
			v.Kind = KindBOOL
			return json.Unmarshal(raw, &v.Bool)
		case "NULL":
			v.Kind = KindNULL
			return nil
		case "SS", "NS":
			v.Kind = KindSS
			if tag == "NS" {
				v.Kind = KindNS
			}
			return json.Unmarshal(raw, &v.Strings)
		case "BS":
			v.Kind = KindBS
			return json.Unmarshal(raw, &v.Binaries)
		case "L":
			v.Kind = KindL
			return json.Unmarshal(raw, &v.List)
		case "M":
			v.Kind = KindM
			return json.Unmarshal(raw, &v.Map)
		default:
			return fmt.Errorf("unknown DynamoDB type %q", tag)
		}
	}
	return nil
}
