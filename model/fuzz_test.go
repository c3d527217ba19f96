package model

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The fuzz targets run their seeds (f.Add and testdata/fuzz/FuzzXxx) with
// every go test; go test -run '^$' -fuzz '^FuzzXxx$' ./model/ explores.

// FuzzNormalize: every normalization is total, keeps valid UTF-8 valid,
// and is idempotent, since a lock key already normalized must be its own
// normal form (search and repair apply it to lock values again).
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"", "Ada@Lovelace.IO", "ǰ", "ΐ", "ß", "İ", "ﬃ", "e\u0301", "\u1e9e", "\xff",
		"ǰΐ\u1fbc\u0308", // issue 37: ᾼ̈ folds to α ι U+0308, which NFC composes to αϊ
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, n := range []Normalization{NormalizeNone, NormalizeLower, NormalizeCasefold} {
			once := n.Apply(v)
			if utf8.ValidString(v) && !utf8.ValidString(once) {
				t.Fatalf("%s(%q) = %q: not valid UTF-8", n, v, once)
			}
			if twice := n.Apply(once); utf8.ValidString(v) && twice != once {
				t.Fatalf("%s is not idempotent: %q -> %q -> %q", n, v, once, twice)
			}
		}
	})
}

// FuzzLockKey: the key LockKey builds for a value is classified back as
// the lock of that constraint with that value, and the key AccountKey
// builds as that account, whatever the prefixes and the value, in every
// valid schema.
func FuzzLockKey(f *testing.F) {
	f.Add("ACCT#", "UNIQ#EMAIL#", "UNIQ#HANDLE#", "ada@x.io", byte(0))
	f.Add("", "E#", "H#", "x", byte(2))
	f.Fuzz(func(t *testing.T, accountPrefix, prefix0, prefix1, v string, shape byte) {
		s := DefaultSchema(LayoutSingle)
		s.AccountPrefix = accountPrefix
		s.Constraints[0].Prefix, s.Constraints[1].Prefix = prefix0, prefix1
		if shape&1 != 0 {
			s.SK, s.AccountSK, s.LockSK = "", "", ""
		}
		if shape&2 != 0 {
			s.Constraints[1] = Constraint{Attr: "username", LockTable: "handles", KeyAttr: "Handle", Normalize: NormalizeNone}
		}
		if shape&4 != 0 {
			s.LockSK = s.AccountSK
		}
		if s.Validate() != nil {
			return
		}
		for ci := range s.Constraints {
			table, key := s.LockKey(ci, v)
			it := Item{s.OwnerAttr: S("ACCT#o")}
			for k, kv := range key {
				it[k] = S(kv)
			}
			e := Classifier{&s}.Classify(table, it)
			if e.Kind != EntryLock || e.Constraint != ci || e.Value != v || e.Owner != "ACCT#o" {
				t.Fatalf("schema %+v: LockKey(%d, %q) = %s %v, classified as %+v", s, ci, v, table, key, e)
			}
		}
		id := s.AccountPrefix + v
		it := Item{}
		for k, kv := range s.AccountKey(id) {
			it[k] = S(kv)
		}
		if e := (Classifier{&s}).Classify(s.Table, it); e.Kind != EntryAccount || e.ID != id {
			t.Fatalf("schema %+v: AccountKey(%q) classified as %+v", s, id, e)
		}
	})
}

// wantSafe fails unless out, what fn returned for in, may go to a
// terminal: valid UTF-8, nothing Hidden reports, no run of more than
// MaxCombiningMarks combining marks.
func wantSafe(t *testing.T, fn, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q: not valid UTF-8", fn, in, out)
	}
	for _, r := range out {
		if Hidden(r) {
			t.Fatalf("%s(%q) = %q holds %U", fn, in, out, r)
		}
	}
	if n := longestMarkRun(out); n > MaxCombiningMarks {
		t.Fatalf("%s(%q) = %q holds %d combining marks in a row", fn, in, out, n)
	}
}

// longestMarkRun returns the most combining marks in a row in s.
func longestMarkRun(s string) int {
	longest, n := 0, 0
	for _, r := range s {
		if !unicode.IsMark(r) {
			n = 0
			continue
		}
		n++
		longest = max(longest, n)
	}
	return longest
}

// FuzzPrintable: Printable's output is always safe (wantSafe), it is
// idempotent, and text that needs no escape comes out as it went in.
func FuzzPrintable(f *testing.F) {
	f.Add("ada@lovelace.io")
	f.Add("\x1b]0;pwned\x07")
	f.Fuzz(func(t *testing.T, s string) {
		out := Printable(s)
		wantSafe(t, "Printable", s, out)
		if again := Printable(out); again != out {
			t.Fatalf("Printable is not idempotent: %q -> %q -> %q", s, out, again)
		}
		if !strings.Contains(out, `\`) && out != s {
			t.Fatalf("Printable(%q) = %q changed text without an escape", s, out)
		}
		if one := OneLine(s); strings.ContainsAny(one, "\n\r") {
			t.Fatalf("OneLine(%q) = %q spans lines", s, one)
		}
	})
}

// FuzzEscapeJSON: a string marshalled by encoding/json and escaped is
// still valid JSON of the same string, holds no character Hidden
// reports nor a flood of combining marks, and is valid UTF-8.
func FuzzEscapeJSON(f *testing.F) {
	f.Add("ada")
	f.Add("\U000E0041\u2028")
	f.Fuzz(func(t *testing.T, s string) {
		doc, err := json.Marshal(map[string][]string{s: {s, ""}})
		if err != nil {
			t.Fatal(err)
		}
		out := EscapeJSON(string(doc))
		wantSafe(t, "EscapeJSON", string(doc), out)
		if !json.Valid([]byte(out)) {
			t.Fatalf("EscapeJSON(%s) = %q: not valid JSON", doc, out)
		}
		var want, got map[string][]string
		_ = json.Unmarshal(doc, &want)
		if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 {
			t.Fatalf("EscapeJSON(%s) = %s decodes to %v, %v", doc, out, got, err)
		}
		for k, v := range want {
			if g, ok := got[k]; !ok || len(g) != 2 || g[0] != v[0] || g[1] != "" {
				t.Fatalf("EscapeJSON(%s) = %s means %q, want %q", doc, out, got, want)
			}
		}
	})
}

// valueFrom builds a Value of any kind from fuzz input: a kind byte, then
// what the kind needs (a length byte and bytes for text, a count byte and
// members for sets, lists and maps), nesting up to depth.
func valueFrom(in []byte, depth int) (Value, []byte) {
	next := func() byte {
		if len(in) == 0 {
			return 0
		}
		b := in[0]
		in = in[1:]
		return b
	}
	text := func() string {
		n := min(int(next()), len(in))
		s := string(in[:n])
		in = in[n:]
		return s
	}
	kind := ValueKind(next() % byte(len(kindTags)))
	if depth == 0 && (kind == KindL || kind == KindM) {
		kind = KindS
	}
	v := Value{Kind: kind}
	switch kind {
	case KindS, KindN:
		v.S = text()
	case KindB:
		v.B = []byte(text())
	case KindBOOL:
		v.Bool = next()&1 == 1
	case KindSS, KindNS:
		for range next() % 4 {
			v.Strings = append(v.Strings, text())
		}
	case KindBS:
		for range next() % 4 {
			v.Binaries = append(v.Binaries, []byte(text()))
		}
	case KindL:
		for range next() % 4 {
			var e Value
			e, in = valueFrom(in, depth-1)
			v.List = append(v.List, e)
		}
	case KindM:
		v.Map = map[string]Value{}
		for range next() % 4 {
			k := text()
			v.Map[k], in = valueFrom(in, depth-1)
		}
	}
	return v, in
}

// FuzzDynamoJSON: every value renders as valid DynamoDB JSON, which reads
// back (UnmarshalJSON) as a value that renders the same, and which
// EscapeJSON keeps valid and the same.
func FuzzDynamoJSON(f *testing.F) {
	f.Add([]byte{byte(KindS), 3, 'a', 'd', 'a'})
	f.Add([]byte{byte(KindM), 1, 1, 'k', byte(KindB), 2, 0xff, 0x00})
	f.Fuzz(func(t *testing.T, in []byte) {
		v, _ := valueFrom(in, 32)
		out := v.DynamoJSON()
		if !json.Valid([]byte(out)) {
			t.Fatalf("DynamoJSON of %+v = %q: not valid JSON", v, out)
		}
		var back Value
		if err := json.Unmarshal([]byte(out), &back); err != nil {
			t.Fatalf("DynamoJSON of %+v = %s does not read back: %v", v, out, err)
		}
		// Invalid UTF-8 reads back as U+FFFD, which encoding/json wrote
		// as \ufffd the first time: the same meaning, not the same text.
		if again := back.DynamoJSON(); !jsonEqual(out, again) {
			t.Fatalf("DynamoJSON round trip: %s -> %+v -> %s", out, back, again)
		}
		if esc := EscapeJSON(out); !jsonEqual(out, esc) {
			t.Fatalf("EscapeJSON(%s) = %s does not mean the same", out, esc)
		}
	})
}

// jsonEqual reports whether two JSON documents mean the same.
func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	ja, _ := marshal(x)
	jb, _ := marshal(y)
	return string(ja) == string(jb)
}

// FuzzValueUnmarshalJSON: reading any bytes as DynamoDB JSON either fails
// with an error or gives a value whose rendering reads back the same.
func FuzzValueUnmarshalJSON(f *testing.F) {
	f.Add([]byte(`{"M":{"a":{"L":[{"N":"1"},{"NULL":true}]}}}`))
	f.Add([]byte(`{"BS":["AAEC/w=="]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var v Value
		if err := json.Unmarshal(in, &v); err != nil {
			return
		}
		out := v.DynamoJSON()
		var back Value
		if err := json.Unmarshal([]byte(out), &back); err != nil || back.DynamoJSON() != out {
			t.Fatalf("%s reads as %+v, rendered %s, which reads back as %s (%v)", in, v, out, back.DynamoJSON(), err)
		}
	})
}

// FuzzParseSchemaFlags: the parsers of the schema flags and Validate never
// panic; what they reject is a *SchemaError naming a field, and a --unique
// they accept reads back as the text it came from.
func FuzzParseSchemaFlags(f *testing.F) {
	f.Add("email=UNIQ#EMAIL#", "email=casefold", "single")
	f.Add("mac=@unique_macs/Mac", "mac", "tables")
	f.Fuzz(func(t *testing.T, unique, assignment, layout string) {
		flagError := func(err error) {
			t.Helper()
			var fe *SchemaError
			if err != nil && (!errors.As(err, &fe) || fe.Field == "") {
				t.Fatalf("error %v (%T) is not a *SchemaError naming a field", err, err)
			}
		}
		c, err := ParseUnique(unique)
		flagError(err)
		if err == nil {
			back := c.Attr + "=" + c.Template() // a scope reads back as ${ATTR}
			if !c.InAccountTable() {
				back = c.Attr + "=@" + c.LockTable + "/" + c.KeyAttr
			}
			if back != unique || c.Attr == "" {
				t.Fatalf("ParseUnique(%q) = %+v, which reads back as %q", unique, c, back)
			}
		}
		attr, val, err := ParseAssignment(FieldNormalize, assignment)
		flagError(err)
		if err == nil && (attr == "" || val == "" || attr+"="+val != assignment) {
			t.Fatalf("ParseAssignment(%q) = %q, %q", assignment, attr, val)
		}
		_, err = ParseNormalization(val)
		flagError(err)
		l, err := ParseLayout(layout)
		flagError(err)
		if err != nil {
			return
		}
		s := DefaultSchema(l)
		if c.Attr != "" {
			s.Constraints = append(s.Constraints, c)
		}
		s.AccountPrefix, s.LockSK = val, attr
		flagError(s.Validate())
	})
}

// FuzzEscapeText: the write form's text of any string is safe to show,
// and reads back as the same bytes.
func FuzzEscapeText(f *testing.F) {
	f.Add("\x1b[31mRED\u202eevil\x1b]0;pwned\x07\r\nX")
	f.Add(`a\x1b\\u202e\`)
	f.Add("\xff\ufffd\U000E0041")
	f.Fuzz(func(t *testing.T, s string) {
		out := EscapeText(s)
		wantSafe(t, "EscapeText", s, out)
		if back := UnescapeText(out); back != s {
			t.Fatalf("UnescapeText(EscapeText(%q)) = %q", s, back)
		}
		if strings.ContainsRune(out, utf8.RuneError) {
			t.Fatalf("EscapeText(%q) = %q keeps U+FFFD, which a field drops", s, out)
		}
	})
}
