package dynamo

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
)

// TestRawItemsDecodeAsTheSDKWould cuts the items out of Scan answers
// (members in any order, keys and strings holding braces, quotes and
// escapes) and decodes them: every item must come back as model.Item's
// own decoder reads it, with every attribute type, and what is left of
// the answer must be the answer with "Items":[].
func TestRawItemsDecodeAsTheSDKWould(t *testing.T) {
	items := `[
	  {"PK": {"S": "ACCT#1"}, "SK": {"S":"PROFILE"}, "email": {"S": "a\"}{@x.io"}, "username": {"S": "\u00e9l\u00e8ve"}},
	  {"PK":{"S":"UNIQ#EMAIL#ünï ✓"},"SK":{"S":"LOCK"},"owner":{"N":"12"}},
	  {"PK":{"S":"ACCT#2"},"SK":{"S":"PROFILE"},"email":{"NULL":true},"username":{"L":[{"S":"a"},{"M":{"k":{"BOOL":false}}}]},
	   "tags":{"SS":["x","y"]},"blob":{"B":"AAE="},"blobs":{"BS":["AQ=="]},"nums":{"NS":["1","2"]},"s2":{ "S" : "spaced" }},
	  {},
	  {"PK":{"S":"ACCT#3"},"SK":{"S":"PROFILE"},"email":{"S":""},"esc":{"S":"tab\tnew\nline\\"}}
	]`
	var want []model.Item
	if err := json.Unmarshal([]byte(items), &want); err != nil {
		t.Fatal(err)
	}
	for _, answer := range []string{
		`{"Count":5,"Items":` + items + `,"ScannedCount":5}`,
		` { "LastEvaluatedKey" : {"PK":{"S":"}\"Items\":[]"}} , "Items" :` + items + `,"Count":5}`,
		`{"ConsumedCapacity":{"TableName":"t","CapacityUnits":1.5},"Count":5,"ScannedCount":7,"Items":` + items + `}`,
	} {
		start, end, ok := itemsSpan([]byte(answer))
		if !ok {
			t.Fatalf("no items found in %s", answer)
		}
		var rest map[string]json.RawMessage
		if err := json.Unmarshal([]byte(answer[:start]+"[]"+answer[end:]), &rest); err != nil || string(rest["Items"]) != "[]" {
			t.Fatalf("the rest of %s: %v, %s", answer, err, rest["Items"])
		}
		var d itemDecoder
		for range 2 { // the second time, every item map is reused
			var got []model.Item
			err := d.eachRaw([]byte(answer[start:end]), func(it model.Item) {
				c := model.Item{}
				for k, v := range it {
					c[k] = v
				}
				got = append(got, c)
			})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decoded\n%v\nwant\n%v", got, want)
			}
		}
	}
}

// TestRawItemsRefuseWhatIsNotItems: a malformed array is an error, never
// items made up.
func TestRawItemsRefuseWhatIsNotItems(t *testing.T) {
	for _, raw := range []string{
		`{}`, `[`, `[{"PK":{"S":"a"}}`, `[{"PK":{"S":"a"}} {"PK":{"S":"b"}}]`, `[{"PK" {"S":"a"}}]`,
		`[{"PK":"a"}]`, `[{"PK":{"S":"a}]`, `[{"PK":{"X":"a"}}]`, `[{"PK":{"S":"a"},}]`,
	} {
		var d itemDecoder
		if err := d.eachRaw([]byte(raw), func(model.Item) {}); err == nil {
			t.Errorf("%s: decoded without an error", raw)
		}
	}
	if _, _, ok := itemsSpan([]byte(`{"Count":0}`)); ok {
		t.Error("items found in an answer without them")
	}
	if _, _, ok := itemsSpan([]byte(strings.Repeat("[", 3))); ok {
		t.Error("items found in what is not an object")
	}
}

// benchAnswer is a Scan answer of about 1 MB, the most one page holds, of
// accounts and their locks as a check reads them.
func benchAnswer() []byte {
	var b strings.Builder
	b.WriteString(`{"Count":0,"Items":[`)
	for i := 0; b.Len() < 1<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"PK":{"S":"ACCT#%06d"},"SK":{"S":"PROFILE"},"email":{"S":"user%d@example.com"},"username":{"S":"user\u00e9%d"}},`, i, i, i)
		fmt.Fprintf(&b, `{"PK":{"S":"UNIQ#EMAIL#user%d@example.com"},"SK":{"S":"LOCK"},"owner":{"S":"ACCT#%06d"}}`, i, i)
	}
	b.WriteString(`],"ScannedCount":0,"LastEvaluatedKey":{"PK":{"S":"ACCT#x"},"SK":{"S":"PROFILE"}}}`)
	return []byte(b.String())
}

// BenchmarkItemsSpan: finding the items of a full page, which reads it
// all, byte by byte.
func BenchmarkItemsSpan(b *testing.B) {
	answer := benchAnswer()
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		if _, _, ok := itemsSpan(answer); !ok {
			b.Fatal("no items")
		}
	}
}

// BenchmarkEachRaw: decoding a full page's items, as a check does.
func BenchmarkEachRaw(b *testing.B) {
	answer := benchAnswer()
	start, end, ok := itemsSpan(answer)
	if !ok {
		b.Fatal("no items")
	}
	raw := answer[start:end]
	b.SetBytes(int64(len(raw)))
	var d itemDecoder
	n := 0
	for b.Loop() {
		if err := d.eachRaw(raw, func(model.Item) { n++ }); err != nil {
			b.Fatal(err)
		}
	}
}
