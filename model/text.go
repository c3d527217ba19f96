package model

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxCombiningMarks is how many combining marks in a row Printable and
// EscapeJSON keep as they are. No orthography stacks more than a few on
// one character; a flood of hundreds is drawn over the rows above and
// below it, and terminals keep a different number of them per cell (tmux
// about ten, xterm two), so the rest are written as escapes: still there
// to read, and each line keeps its width on every terminal.
const MaxCombiningMarks = 4

// Printable returns s safe to put on a terminal: text from a table is
// untrusted, so every C0 control and DEL becomes \xHH (no escape sequence
// survives), invalid UTF-8 bytes become \xHH, and every other character
// that Hidden reports becomes \uHHHH (\UHHHHHHHH beyond the BMP), as do
// the combining marks of a run past MaxCombiningMarks. Everything else,
// including "\", is kept as it is, so Printable(Printable(s)) ==
// Printable(s).
func Printable(s string) string {
	if printableASCII(s) {
		return s // nearly every key and value: nothing to look up
	}
	var b strings.Builder
	escaped := false // b holds s up to i, escaped
	var marks markRun
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		hide := marks.over(r) || Hidden(r)
		esc := ""
		switch {
		case r == utf8.RuneError && size == 1:
			esc = fmt.Sprintf(`\x%02x`, s[i])
		case r < 0x20 || r == 0x7f:
			esc = fmt.Sprintf(`\x%02x`, r)
		case hide && r > 0xffff:
			esc = fmt.Sprintf(`\U%08x`, r)
		case hide:
			esc = fmt.Sprintf(`\u%04x`, r)
		}
		switch {
		case esc == "" && escaped:
			b.WriteString(s[i : i+size])
		case esc != "":
			if !escaped {
				escaped = true
				b.Grow(len(s) + 16)
				b.WriteString(s[:i])
			}
			b.WriteString(esc)
		}
		i += size
	}
	if !escaped {
		return s
	}
	return b.String()
}

// printableASCII reports whether s is printable ASCII only, which
// Printable keeps as it is.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// markRun counts the combining marks in a row.
type markRun int

// over counts r and reports whether it is a combining mark past
// MaxCombiningMarks in a row.
func (n *markRun) over(r rune) bool {
	if r < 0x300 || !unicode.IsMark(r) { // no mark comes before U+0300
		*n = 0
		return false
	}
	*n++
	return *n > MaxCombiningMarks
}

// Hidden reports whether r must not reach a terminal or a reader raw: it
// is not a letter, mark, number, punctuation, symbol or space (Unicode
// categories L, M, N, P, S, Zs; the tables of unicode.Version). That
// leaves controls (Cc: C0, DEL, C1), format characters (Cf: bidi
// overrides and isolates, zero-width characters, BOM, soft hyphen, tag
// characters), line and paragraph separators (Zl, Zp), surrogates (Cs),
// private use (Co), and code points these tables do not assign (Cn,
// noncharacters included): a terminal with newer tables may draw those
// as anything. It also reports the few graphic characters that draw
// nothing at all (blank letters and symbols), with which two keys that
// differ look the same.
func Hidden(r rune) bool {
	if r >= 0x20 && r < 0x7f {
		return false
	}
	return !unicode.IsGraphic(r) || blank(r)
}

// blank reports the letters, marks and symbols that terminals draw as
// nothing: the Hangul fillers (Lo), the Khmer inherent vowels (Mn) and the
// blank braille pattern (So).
func blank(r rune) bool {
	switch r {
	case 0x115f, 0x1160, 0x3164, 0xffa0, // Hangul fillers
		0x17b4, 0x17b5, // Khmer inherent vowels
		0x2800: // braille pattern blank
		return true
	}
	return false
}

// Quote is Printable between double quotes, with a quote inside written
// \": each escape once, where %q would escape Printable's backslashes
// again.
func Quote(s string) string { return `"` + strings.ReplaceAll(Printable(s), `"`, `\"`) + `"` }

// QuoteWord is s printable among words: quoted (Quote) only where it is
// empty or has a space or a quote.
func QuoteWord(s string) string {
	if p := Printable(s); p != "" && !strings.ContainsAny(p, " \"") {
		return p
	}
	return Quote(s)
}

// OneLine is Printable on one line: runs of white space, newlines
// included, become one space. Error messages of the SDK span lines.
func OneLine(s string) string { return Printable(strings.Join(strings.Fields(s), " ")) }

// EscapeJSON writes every character Hidden reports in a JSON document as a
// \u escape (a surrogate pair beyond the BMP), and the combining marks of
// a run past MaxCombiningMarks too. Such characters can only stand inside
// strings, where the escape means the same character, so the document
// means the same; C0 controls stay, since outside strings they are white
// space and inside them encoding/json has escaped them already. Every JSON
// document locktable writes (check --json, --dry-run, --json results, the
// audit log) goes through it.
func EscapeJSON(doc string) string {
	var out strings.Builder
	out.Grow(len(doc))
	var marks markRun
	for _, r := range doc {
		switch hide := marks.over(r) || Hidden(r); {
		case r < 0x20 || !hide:
			out.WriteRune(r)
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&out, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return out.String()
}

// EscapeText writes s as a field of the write form holds it: as Printable
// does, and also a backslash as \\ and U+FFFD as \ufffd, so that an escape
// and the same characters typed differ on screen, and UnescapeText gives
// s back byte for byte.
func EscapeText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	var marks markRun
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		hide := marks.over(r) || Hidden(r)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case (hide || r == utf8.RuneError) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case hide || r == utf8.RuneError:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// UnescapeText reads text written as EscapeText writes it: \\ is a
// backslash, \xHH the byte HH, \uHHHH and \UHHHHHHHH the character; a
// backslash that starts none of these stands for itself, so that text
// typed with a lone backslash means what it shows.
func UnescapeText(text string) string {
	if !strings.Contains(text, `\`) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '\\' || i+1 == len(text) {
			b.WriteByte(c)
			continue
		}
		if text[i+1] == '\\' {
			b.WriteByte('\\')
			i++
			continue
		}
		digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[text[i+1]]
		if digits == 0 || i+2+digits > len(text) {
			b.WriteByte(c)
			continue
		}
		n, err := strconv.ParseUint(text[i+2:i+2+digits], 16, 32)
		switch {
		case err != nil:
			b.WriteByte(c)
			continue
		case digits == 2:
			b.WriteByte(byte(n))
		case utf8.ValidRune(rune(n)):
			b.WriteRune(rune(n))
		default:
			b.WriteByte(c)
			continue
		}
		i += 1 + digits
	}
	return b.String()
}

// Oddities says in words what s holds that a reader would not see as
// text: "control characters", "bidi overrides" (which reorder what
// follows them on screen), "invalid UTF-8", joined with "and"; "" for
// none.
func Oddities(s string) string {
	var control, bidi, invalid bool
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\ufffd"):
			invalid = true
		case unicode.IsControl(r):
			control = true
		case r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			bidi = true
		}
	}
	var says []string
	for _, w := range []struct {
		on   bool
		says string
	}{{control, "control characters"}, {bidi, "bidi overrides"}, {invalid, "invalid UTF-8"}} {
		if w.on {
			says = append(says, w.says)
		}
	}
	return strings.Join(says, " and ")
}
