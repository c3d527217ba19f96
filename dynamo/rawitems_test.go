package dynamo

import (
	"encoding/json"
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
