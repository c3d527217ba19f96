package model

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable returns s safe to put on a terminal: text from a table is
// untrusted, so every C0 control and DEL becomes \xHH (no escape sequence
// survives), invalid UTF-8 bytes become \xHH, and C1 controls and invisible
// format characters (bidi overrides, zero-width characters, BOM) become
// \uHHHH. Everything else, including "\", is kept as it is.
func Printable(s string) string {
	if isPrintable(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case Hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isPrintable reports whether Printable would return s unchanged.
func isPrintable(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false
			}
		}
		if r < 0x20 || r == 0x7f || Hidden(r) {
			return false
		}
	}
	return true
}

// Hidden reports whether r is a C1 control or an invisible format
// character that can reorder or hide text: U+061C, U+200B..U+200F,
// U+202A..U+202E, U+2060..U+2069, U+FEFF.
func Hidden(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f,
		r == 0x061c,
		r >= 0x200b && r <= 0x200f,
		r >= 0x202a && r <= 0x202e,
		r >= 0x2060 && r <= 0x2069,
		r == 0xfeff:
		return true
	}
	return false
}

// OneLine is Printable on one line: runs of white space, newlines
// included, become one space. Error messages of the SDK span lines.
func OneLine(s string) string { return Printable(strings.Join(strings.Fields(s), " ")) }

// EscapeJSON writes DEL, C1 controls and invisible format characters in a
// JSON document as \u escapes (encoding/json already escapes C0). They can
// only stand inside strings, so the document means the same: every JSON
// document locktable writes (check --json, --dry-run, --json results, the
// audit log) goes through it.
func EscapeJSON(doc string) string {
	var out strings.Builder
	for _, r := range doc {
		if r == 0x7f || Hidden(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.WriteRune(r)
		}
	}
	return out.String()
}
