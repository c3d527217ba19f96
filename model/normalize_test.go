package model

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestCasefoldSharesKeys: values a caseless match calls equal get one
// key, whichever way they are written; the first row is issue 37's.
func TestCasefoldSharesKeys(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{"\u1fbc\u0308", "\u03b1\u03ca", "\u03b1\u03ca"},       // ᾼ̈, αϊ
		{"\u1fbc\u0308", "\u0391\u0345\u0308", "\u03b1\u03ca"}, // ᾼ̈, Α + ypogegrammeni + diaeresis
		{"\u0390", "\u03b9\u0308\u0301", "\u0390"},             // ΐ, ι + diaeresis + acute
		{"\u01f0", "J\u030c", "\u01f0"},                        // ǰ, J + caron
		{"Straße", "STRASSE", "strasse"},
		{"\ufb03", "FFI", "ffi"},
		{"\u13a0", "\uab70", "\u13a0"}, // Cherokee folds to its upper case
		{"e\u0301", "\u00c9", "\u00e9"},
	} {
		ka, kb := NormalizeCasefold.Apply(tc.a), NormalizeCasefold.Apply(tc.b)
		if ka != tc.want || kb != tc.want {
			t.Errorf("casefold(%+q) = %+q, casefold(%+q) = %+q, want both %+q", tc.a, ka, tc.b, kb, tc.want)
		}
	}
}

// foldRune is the fold Apply applies to a rune of an NFC string.
func foldRune(r rune) string { return casefoldBeforeNFC(string(r)) }

// folded reports whether each rune of s is its own fold.
func folded(s string) bool {
	for _, r := range s {
		if foldRune(r) != string(r) {
			return false
		}
	}
	return true
}

// TestCasefoldOnePassSuffices checks, over every rune, the three facts
// Apply's comment proves one pass a fixpoint from: (1) each rune of a
// rune's fold is its own fold, (2) so is each rune of that fold's
// canonical decomposition, and (3) a rune whose decomposition is all
// such runes folds to something canonically equivalent to itself. The
// fold maps rune by rune, so checking single runes covers every string.
func TestCasefoldOnePassSuffices(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !assigned(r) {
			continue // no fold, no decomposition
		}
		f := foldRune(r)
		if !folded(f) || !folded(norm.NFD.String(f)) {
			t.Errorf("%U folds to %+q, which is not its own fold (or its NFD is not)", r, f)
		}
		if d := norm.NFD.String(string(r)); folded(d) && norm.NFD.String(f) != d {
			t.Errorf("%U decomposes to folded %+q but folds to %+q", r, d, f)
		}
	}
}

// assigned reports whether Go's Unicode tables (unicode.Version) assign r.
func assigned(r rune) bool {
	// unicode.C holds the unassigned runes too, so its assigned parts.
	return utf8.ValidRune(r) && unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Co)
}

// closureInputs returns every assigned rune alone; each Greek and Latin
// letter followed by U+0308, and by orders of U+0308 with U+0301 and
// U+0345; and each rune the fold changes, or that decomposes to runes the
// fold changes, followed by each mark of U+0300..U+036F and U+0345.
func closureInputs() []string {
	marks := []rune{0x345}
	for m := rune(0x300); m <= 0x36f; m++ {
		marks = append(marks, m)
	}
	var in []string
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !assigned(r) {
			continue
		}
		s := string(r)
		in = append(in, s)
		if unicode.IsLetter(r) && unicode.In(r, unicode.Greek, unicode.Latin) {
			for _, ms := range []string{"\u0308", "\u0308\u0301", "\u0301\u0308", "\u0345\u0308", "\u0308\u0345", "\u0345\u0308\u0301"} {
				in = append(in, s+ms)
			}
		}
		if foldRune(r) == s && folded(norm.NFD.String(s)) {
			continue // the fold leaves it and all it is made of alone
		}
		for _, m := range marks {
			in = append(in, s+string(m))
		}
	}
	return in
}

// TestNormalizeIsAClosure: over closureInputs, every normalization is its
// own fixpoint, and an input's NFC and NFD forms get the same key.
func TestNormalizeIsAClosure(t *testing.T) {
	in := closureInputs()
	for _, n := range []Normalization{NormalizeNone, NormalizeLower, NormalizeCasefold} {
		bad := 0
		for _, v := range in {
			once := n.Apply(v)
			if twice := n.Apply(once); twice != once {
				if bad++; bad <= 10 {
					t.Errorf("%s(%+q) = %+q, but %s(%+q) = %+q", n, v, once, n, once, twice)
				}
			}
			if n != NormalizeCasefold {
				continue // none and lower keep what the user typed, composed or not
			}
			if c, d := n.Apply(norm.NFC.String(v)), n.Apply(norm.NFD.String(v)); c != d {
				if bad++; bad <= 10 {
					t.Errorf("%s(NFC %+q) = %+q, %s(NFD) = %+q", n, v, c, n, d)
				}
			}
		}
		if bad > 10 {
			t.Errorf("%s: %d failures in all", n, bad)
		}
	}
	t.Logf("%d inputs, Unicode %s", len(in), unicode.Version)
}

// python3 returns the path of python3. Without it the test is skipped on
// a developer's machine and fails in CI, where every machine has it.
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 not found: %v", err)
		}
		t.Skipf("python3 not found: %v", err)
	}
	return p
}

// pythonCasefold is what Python 3 application code writes as the key:
// each input line is a string as hex code points; the answer line is its
// key the same way, or "-" when Python's Unicode does not assign one of
// its code points. The first line answered is unicodedata.unidata_version.
const pythonCasefold = `
import sys, unicodedata as u
n = lambda s: u.normalize("NFC", s)
out = [u.unidata_version]
for line in sys.stdin:
    s = "".join(chr(int(h, 16)) for h in line.split())
    if any(u.category(c) == "Cn" for c in s):
        out.append("-")
    else:
        out.append(" ".join("%x" % ord(c) for c in n(n(s).casefold())))
sys.stdout.write("\n".join(out) + "\n")
`

// hexRunes writes s as hex code points, space separated.
func hexRunes(s string) string {
	var b strings.Builder
	for i, r := range []rune(s) {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(int64(r), 16))
	}
	return b.String()
}

// TestCasefoldMatchesPython holds casefold to an implementation written
// apart from x/text: Python's unicodedata.normalize("NFC",
// unicodedata.normalize("NFC", s).casefold()), the code the README gives
// Python applications, over closureInputs whose code points both
// Unicode versions assign. Python's str.casefold is full case folding
// (CaseFolding.txt C and F), Cherokee included (it folds to the upper
// case, as foldCherokee mends x/text to do), so no difference is
// expected, and none is excused.
func TestCasefoldMatchesPython(t *testing.T) {
	py := python3(t)
	in := closureInputs()
	var stdin strings.Builder
	for _, v := range in {
		stdin.WriteString(hexRunes(v))
		stdin.WriteByte('\n')
	}
	var out bytes.Buffer
	cmd := exec.Command(py, "-c", pythonCasefold)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin.String()), &out, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("python3: %v", err)
	}
	got := make([]string, len(in)) // while Python works
	for i, v := range in {
		got[i] = hexRunes(NormalizeCasefold.Apply(v))
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("python3: %v", err)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	sc.Scan()
	pyVersion := sc.Text()
	compared, bad, i := 0, 0, 0
	for ; sc.Scan(); i++ {
		if i >= len(in) {
			t.Fatalf("python3 answered more lines than the %d asked", len(in))
		}
		want := sc.Text()
		if want == "-" {
			continue
		}
		compared++
		if got[i] != want {
			if bad++; bad <= 10 {
				t.Errorf("casefold(%+q) = [%s], Python says [%s]", in[i], got[i], want)
			}
		}
	}
	if i != len(in) || compared == 0 || sc.Err() != nil {
		t.Fatalf("python3 answered %d lines of %d, %d comparable (%v)", i, len(in), compared, sc.Err())
	}
	if bad > 10 {
		t.Errorf("%d differences in all", bad)
	}
	t.Logf("compared %d of %d inputs: Go Unicode %s (x/text %s), Python Unicode %s",
		compared, len(in), unicode.Version, norm.Version, pyVersion)
}
