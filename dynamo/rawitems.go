package dynamo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/locktable/locktable/model"
)

// rawItems takes the "Items" array out of a Scan's answer before the SDK
// decodes it, and keeps it as JSON in raw; the SDK decodes the rest (the
// count, LastEvaluatedKey, the consumed capacity), and its Items are
// empty. A check reads every item of a table and keeps a few strings of
// each: decoding a page into the SDK's maps of boxed values costs more
// CPU than the rest of the check and holds several times the page's size,
// where eachRawItem reads an item at a time into one reused map.
//
// It runs just inside the SDK's deserializer, so response checksums and
// error answers are handled as usual.
type rawItems struct {
	raw []byte
}

// option installs rawItems for one call.
func (c *rawItems) option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Deserialize.Insert(c, "OperationDeserializer", middleware.After)
	})
}

// ID names the middleware in the stack.
func (c *rawItems) ID() string { return "locktable.RawItems" }

// HandleDeserialize cuts the items out of a successful answer's body.
func (c *rawItems) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (
	middleware.DeserializeOutput, middleware.Metadata, error,
) {
	c.raw = nil // a retried call: only the last attempt's items count
	out, md, err := next.HandleDeserialize(ctx, in)
	if err != nil {
		return out, md, err
	}
	resp, ok := out.RawResponse.(*smithyhttp.Response)
	if !ok || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return out, md, err
	}
	// One buffer of the announced length: io.ReadAll would grow one by
	// doubling, for twice the garbage of a 1 MB page.
	buf := bytes.NewBuffer(make([]byte, 0, max(resp.ContentLength, 0)+bytes.MinRead))
	_, err = buf.ReadFrom(resp.Body)
	if cerr := resp.Body.Close(); cerr != nil && err == nil {
		// What the SDK does with a body that fails to close, a response
		// checksum that does not match among them: a warning in its log.
		middleware.GetLogger(ctx).Logf(logging.Warn, "closing a scan's answer: %v", cerr)
	}
	body := buf.Bytes()
	if err != nil {
		return out, md, &smithy.DeserializationError{Err: fmt.Errorf("read the scan's answer: %w", err)}
	}
	if start, end, ok := itemsSpan(body); ok {
		c.raw = body[start:end]
		// A new buffer for the rest: raw keeps the old one.
		rest := make([]byte, 0, len(body)-(end-start)+2)
		rest = append(append(append(rest, body[:start]...), "[]"...), body[end:]...)
		body = rest
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return out, md, nil
}

// itemsSpan finds the value of the member "Items" of the JSON object b:
// b[start:end]. ok is false when b is not an object or has no such member
// (the SDK's decoder then reports what is wrong).
func itemsSpan(b []byte) (start, end int, ok bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, 0, false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return 0, 0, false
		}
		keyEnd := skipValue(b, i)
		key := b[i:keyEnd]
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return 0, 0, false
		}
		i = skipSpace(b, i+1)
		valEnd := skipValue(b, i)
		if valEnd < 0 {
			return 0, 0, false
		}
		if string(key) == `"Items"` {
			return i, valEnd, true
		}
		i = skipSpace(b, valEnd)
		if i >= len(b) || b[i] != ',' {
			return 0, 0, false
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value that starts at b[i], or -1
// when it does not end in b. It checks only what it needs to find the end:
// the value is decoded (and validated) elsewhere.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipNested(b, i)
	}
	return skipScalar(b, i)
}

// skipString returns the end of the JSON string that starts at b[i], past
// its closing quote, or -1.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++ // an escaped character, a quote among them
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipNested returns the end of the JSON object or array that starts at
// b[i], or -1. Brackets inside strings are skipped with the strings, so
// only the nesting's own count.
func skipNested(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"':
			if i = skipString(b, i); i < 0 {
				return -1
			}
			continue
		}
		i++
	}
	return -1
}

// endsScalar holds the bytes that end a number, true, false or null: what
// may follow a value, blanks included.
var endsScalar = [256]bool{',': true, '}': true, ']': true, ' ': true, '\n': true, '\r': true, '\t': true}

// skipScalar returns the end of the number, true, false or null that
// starts at b[i].
func skipScalar(b []byte, i int) int {
	for i < len(b) && !endsScalar[b[i]] {
		i++
	}
	return i
}

// itemDecoder turns the items of pages into model items, one at a time,
// reusing what it can from one item to the next; it serves one goroutine.
type itemDecoder struct {
	names map[string]string // attribute names, each allocated once
	attrs []attr            // the item being read
	// shapes holds a map per set of attribute names seen (up to
	// maxShapes): an item with the same names is written over its map. A
	// model.Value is too large for a map to hold it in place, so each
	// insertion into an emptied map would allocate one.
	shapes []model.Item
	// keep gives every item a map of its own, which whoever it is handed
	// to may keep, rather than writing over one.
	keep bool
}

// maxShapes bounds the item maps an itemDecoder keeps: a table whose
// items all differ in their names gets a new map per item.
const maxShapes = 8

type attr struct {
	name string
	v    model.Value
}

// item returns d.attrs as a model item, which is valid until the next
// call unless d.keep. (DynamoDB never repeats a name within an item, so the same number
// of names, each in the map, is the map's set of names.)
func (d *itemDecoder) item() model.Item {
	if d.keep {
		m := make(model.Item, len(d.attrs))
		for _, a := range d.attrs {
			m[a.name] = a.v
		}
		return m
	}
	for _, m := range d.shapes {
		if len(m) == len(d.attrs) && d.sameNames(m) {
			for _, a := range d.attrs {
				m[a.name] = a.v
			}
			return m
		}
	}
	m := make(model.Item, len(d.attrs))
	for _, a := range d.attrs {
		m[a.name] = a.v
	}
	if len(d.shapes) < maxShapes && len(m) == len(d.attrs) {
		d.shapes = append(d.shapes, m)
	}
	return m
}

func (d *itemDecoder) sameNames(m model.Item) bool {
	for _, a := range d.attrs {
		if _, ok := m[a.name]; !ok {
			return false
		}
	}
	return true
}

// eachSDK hands visit the SDK's items, converted.
func (d *itemDecoder) eachSDK(items []map[string]types.AttributeValue, visit func(model.Item)) {
	for _, av := range items {
		d.attrs = d.attrs[:0]
		for k, v := range av {
			d.attrs = append(d.attrs, attr{k, valueFromSDK(v)})
		}
		visit(d.item())
	}
}

// eachRaw decodes raw, a JSON array of DynamoDB items (rawItems.raw), and
// hands visit each item. String attributes, which a check reads, are
// decoded here; any other type by model.Value's decoder.
func (d *itemDecoder) eachRaw(raw []byte, visit func(model.Item)) error {
	return d.eachRawSpan(raw, func(it model.Item, _ []byte) { visit(it) })
}

// eachRawSpan is eachRaw that also hands visit the item's own bytes in
// raw: a JSON object, which eachRaw reads again from an array of them.
func (d *itemDecoder) eachRawSpan(raw []byte, visit func(it model.Item, span []byte)) error {
	if d.names == nil {
		d.names = map[string]string{}
	}
	r := itemReader{b: raw, names: d.names}
	if !r.next('[') {
		return r.fail("an array of items")
	}
	if r.next(']') {
		return nil
	}
	for {
		d.attrs = d.attrs[:0]
		start := skipSpace(r.b, r.i)
		if err := r.item(&d.attrs); err != nil {
			return err
		}
		visit(d.item(), r.b[start:r.i])
		if r.next(']') {
			return nil
		}
		if !r.next(',') {
			return r.fail("',' or ']' after an item")
		}
	}
}

// itemReader reads a JSON array of DynamoDB items.
type itemReader struct {
	b     []byte
	i     int
	names map[string]string
}

// next consumes c, after blanks, if it comes next.
func (r *itemReader) next(c byte) bool {
	r.i = skipSpace(r.b, r.i)
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

func (r *itemReader) fail(want string) error {
	return &smithy.DeserializationError{Err: fmt.Errorf("scan answer: want %s at offset %d", want, r.i)}
}

// item decodes one item, {"name": {"S": "..."}, ...}, into attrs.
func (r *itemReader) item(attrs *[]attr) error {
	if !r.next('{') {
		return r.fail("an item")
	}
	if r.next('}') {
		return nil
	}
	for {
		name, err := r.name()
		if err != nil {
			return err
		}
		if !r.next(':') {
			return r.fail("':' after an attribute name")
		}
		v, err := r.value()
		if err != nil {
			return err
		}
		*attrs = append(*attrs, attr{name, v})
		if r.next('}') {
			return nil
		}
		if !r.next(',') {
			return r.fail("',' or '}' in an item")
		}
	}
}

// name decodes an attribute name, interned: the same few come back in
// every item.
func (r *itemReader) name() (string, error) {
	r.i = skipSpace(r.b, r.i)
	start, end := r.i, skipValue(r.b, r.i)
	if end < 0 || r.b[start] != '"' {
		return "", r.fail("an attribute name")
	}
	r.i = end
	if n, ok := r.names[string(r.b[start:end])]; ok {
		return n, nil
	}
	n, err := r.str(start, end)
	if err == nil && len(r.names) < 256 {
		r.names[string(r.b[start:end])] = n
	}
	return n, err
}

// value decodes one attribute value: {"S": "..."} here, any other type
// through model.Value.
func (r *itemReader) value() (model.Value, error) {
	r.i = skipSpace(r.b, r.i)
	start, end := r.i, skipValue(r.b, r.i)
	if end < 0 || r.b[start] != '{' {
		return model.Value{}, r.fail("an attribute value")
	}
	r.i = start + 1
	if r.next('"') && r.i+2 <= len(r.b) && r.b[r.i] == 'S' && r.b[r.i+1] == '"' {
		r.i += 2
		if r.next(':') {
			r.i = skipSpace(r.b, r.i)
			s, e := r.i, skipValue(r.b, r.i)
			if e > s && r.b[s] == '"' {
				r.i = e
				if r.next('}') && r.i == end {
					str, err := r.str(s, e)
					return model.S(str), err
				}
			}
		}
	}
	r.i = end
	var v model.Value
	if err := json.Unmarshal(r.b[start:end], &v); err != nil {
		return v, &smithy.DeserializationError{Err: fmt.Errorf("scan answer: attribute value %.40s: %w", r.b[start:end], err)}
	}
	return v, nil
}

// str decodes the JSON string b[start:end] (quotes included): copied
// as it is when it has no escapes and is valid UTF-8, as nearly every
// value is, else by encoding/json.
func (r *itemReader) str(start, end int) (string, error) {
	inner := r.b[start+1 : end-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	var s string
	if err := json.Unmarshal(r.b[start:end], &s); err != nil {
		return "", &smithy.DeserializationError{Err: fmt.Errorf("scan answer: string %.40s: %w", r.b[start:end], err)}
	}
	return s, nil
}
