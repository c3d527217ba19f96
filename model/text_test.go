package model

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPrintable(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text is kept", "ada@lovelace.io", "ada@lovelace.io"},
		{"letters and marks of any script are kept", "José 日本 ﷺ e\u0301", "José 日本 ﷺ e\u0301"},
		{"a backslash is kept", `a\x1b`, `a\x1b`},
		{"space separators are kept", "a\u00a0b\u3000c", "a\u00a0b\u3000c"},
		{"symbols beyond the BMP are kept", "😀 𝔸", "😀 𝔸"},
		{"a well-formed U+FFFD is kept", "\ufffd", "\ufffd"},
		{"OSC title sequence", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"newline, tab and DEL", "a\nb\tc\x7f", `a\x0ab\x09c\x7f`},
		{"invalid UTF-8 bytes", "a\xff\xc3b", `a\xff\xc3b`},
		{"an encoded surrogate is invalid UTF-8", "\xed\xa0\x80", `\xed\xa0\x80`},
		{"C1 CSI", "\u009b2J", `\u009b2J`},
		{"bidi override", "\u202eKCAB", `\u202eKCAB`},
		{"zero width joiner and BOM", "a\u200db\ufeff", `a\u200db\ufeff`},
		{"line separator (Zl)", "a\u2028b", `a\u2028b`},
		{"paragraph separator (Zp)", "a\u2029b", `a\u2029b`},
		{"tag character (Cf beyond the BMP)", "a\U000E0041b", `a\U000e0041b`},
		{"soft hyphen (Cf)", "ad\u00ada", `ad\u00ada`},
		{"deprecated format characters U+206A..U+206F", "\u206a\u206f", `\u206a\u206f`},
		{"arabic letter mark, mongolian vowel separator", "\u061c\u180e", `\u061c\u180e`},
		{"private use", "\ue000\U000F0000", `\ue000\U000f0000`},
		{"unassigned", "\u0378\U0001FFFD", `\u0378\U0001fffd`},
		{"noncharacters", "\ufdd0\ufffe\U0010FFFF", `\ufdd0\ufffe\U0010ffff`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Printable(tt.in); got != tt.want {
				t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestPrintableCombiningFlood: a base character keeps a few combining
// marks; the rest of a flood is shown as escapes, so no cell of the
// screen holds hundreds of marks.
func TestPrintableCombiningFlood(t *testing.T) {
	flood := "e" + strings.Repeat("\u0301", 300) + "x"
	got := Printable(flood)
	want := "e" + strings.Repeat("\u0301", MaxCombiningMarks) + strings.Repeat(`\u0301`, 300-MaxCombiningMarks) + "x"
	if got != want {
		t.Errorf("Printable(e + 300 x U+0301 + x) = %q, want %q", got, want)
	}
	// Text with as many marks as a real script uses is kept.
	vietnamese := "Việt Nam ệ\u0323\u0302"
	if got := Printable(vietnamese); got != vietnamese {
		t.Errorf("Printable(%q) = %q", vietnamese, got)
	}
}

func TestHidden(t *testing.T) {
	hidden := []rune{
		0x00, 0x1b, 0x7f, 0x85, 0x9b, // Cc
		0x00ad, 0x0600, 0x061c, 0x200b, 0x200e, 0x202e, 0x2066, 0x206a, 0xfeff, 0xfff9, 0xe0001, 0xe0041, 0xe007f, // Cf
		0x2028,                            // Zl
		0x2029,                            // Zp
		0xe000, 0xf8ff, 0xf0000, 0x10fffd, // Co
		0x0378, 0x2065, 0x1fffd, 0xe0080, // Cn, unassigned
		0xfdd0, 0xfdef, 0xfffe, 0xffff, 0x1fffe, 0x10ffff, // noncharacters
		0x115f, 0x1160, 0x3164, 0xffa0, 0x17b4, 0x17b5, 0x2800, // graphic, but blank
	}
	for _, r := range hidden {
		if !Hidden(r) {
			t.Errorf("Hidden(%U) = false, want true", r)
		}
	}
	shown := []rune{' ', 'a', '\\', 0xa0, 0xe9, 0x0301, 0x05d0, 0x0627, 0x3000, 0x4e2d, 0xfe0f, 0xfffd, 0x1f600, 0x1d538}
	for _, r := range shown {
		if Hidden(r) {
			t.Errorf("Hidden(%U) = true, want false", r)
		}
	}
}

func TestEscapeJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "ada", `"ada"`},
		{"C0 as encoding/json writes it", "a\x1b", `"a\u001b"`},
		{"DEL", "a\x7f", `"a\u007f"`},
		{"C1", "a\u009b", `"a\u009b"`},
		{"bidi override", "\u202e", `"\u202e"`},
		{"line and paragraph separators", "\u2028\u2029", `"\u2028\u2029"`},
		{"soft hyphen and U+206A", "\u00ad\u206a", `"\u00ad\u206a"`},
		{"tag character as a surrogate pair", "\U000E0041", `"\udb40\udc41"`},
		{"private use beyond the BMP", "\U00100000", `"\udbc0\udc00"`},
		{"noncharacter", "\uffff", `"\uffff"`},
		{"letters, emoji and marks are kept", "é😀e\u0301", `"é😀e` + "\u0301" + `"`},
		{"marks past the fourth in a row", "e" + strings.Repeat("\u0301", 6), `"e` + strings.Repeat("\u0301", 4) + `\u0301\u0301"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got := EscapeJSON(string(doc))
			if got != tt.want {
				t.Errorf("EscapeJSON(%s) = %s, want %s", doc, got, tt.want)
			}
			var back string
			if err := json.Unmarshal([]byte(got), &back); err != nil || back != tt.in {
				t.Errorf("%s decodes to %q, %v; want %q", got, back, err, tt.in)
			}
		})
	}
}

// TestEscapeJSONDocument: a whole document keeps its structure and
// meaning; only the strings inside change form.
func TestEscapeJSONDocument(t *testing.T) {
	in := map[string]any{"k\u2028": []any{"\U000E0041", 1.5, true, nil, map[string]any{"\u00ad": "x"}}}
	doc, _ := json.Marshal(in)
	got := EscapeJSON(string(doc))
	if !json.Valid([]byte(got)) || !utf8.ValidString(got) {
		t.Fatalf("EscapeJSON made an invalid document: %s", got)
	}
	for _, r := range got {
		if Hidden(r) {
			t.Errorf("EscapeJSON left %U raw in %s", r, got)
		}
	}
	var back any
	_ = json.Unmarshal([]byte(got), &back)
	again, _ := json.Marshal(back)
	if string(again) != string(doc) {
		t.Errorf("the escaped document means %s, want %s", again, doc)
	}
}

func TestEscapeText(t *testing.T) {
	for _, c := range []struct{ in, text string }{
		{"ada@x.io", "ada@x.io"},
		{"\x1b[31m", `\x1b[31m`},
		{`\x1b`, `\\x1b`}, // four characters, not an escape: shown apart
		{"a\u202eb\t", `a\u202eb\x09`},
		{"\xff", `\xff`},
	} {
		if got := EscapeText(c.in); got != c.text {
			t.Errorf("EscapeText(%q) = %q, want %q", c.in, got, c.text)
		}
		if back := UnescapeText(c.text); back != c.in {
			t.Errorf("UnescapeText(%q) = %q, want %q", c.text, back, c.in)
		}
	}
	// Typed: a backslash that starts no escape stands for itself.
	for text, want := range map[string]string{`a\b`: `a\b`, `\x4`: `\x4`, `\u00e9`: "é", `end\`: `end\`, `\xzz`: `\xzz`} {
		if got := UnescapeText(text); got != want {
			t.Errorf("UnescapeText(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestOddities(t *testing.T) {
	for in, want := range map[string]string{
		"ada@x.io":       "",
		"\x1b[31m":       "control characters",
		"a\u202eb":       "bidi overrides",
		"\x07\u2066\xff": "control characters and bidi overrides and invalid UTF-8",
		"\ufffd":         "",
	} {
		if got := Oddities(in); got != want {
			t.Errorf("Oddities(%q) = %q, want %q", in, got, want)
		}
	}
}
