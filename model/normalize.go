package model

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Normalization maps an attribute value to the form its lock key uses.
type Normalization string

// The normalizations --normalize accepts.
const (
	NormalizeNone     Normalization = "none"     // identity
	NormalizeLower    Normalization = "lower"    // strings.ToLower
	NormalizeCasefold Normalization = "casefold" // NFC, then full Unicode case folding
)

// ParseNormalization parses the right-hand side of --normalize.
func ParseNormalization(s string) (Normalization, error) {
	switch n := Normalization(s); n {
	case NormalizeNone, NormalizeLower, NormalizeCasefold:
		return n, nil
	}
	return "", NewSchemaError(FieldNormalize, "%q is not none, lower or casefold", s)
}

// Apply returns v in normal form. It is total: no value is rejected.
func (n Normalization) Apply(v string) string {
	switch n {
	case NormalizeLower:
		return strings.ToLower(v)
	case NormalizeCasefold:
		// A Caser keeps state, so each call takes a fresh one.
		return strings.Map(foldCherokee, cases.Fold().String(norm.NFC.String(v)))
	}
	return v
}

// foldCherokee mends cases.Fold (x/text v0.44.0) for Cherokee: Unicode's
// CaseFolding.txt folds the lower case syllables (U+AB70..U+ABBF,
// U+13F8..U+13FD) to the upper case ones, which fold to themselves;
// cases.Fold lowers the upper case ones instead, so "Ꭰ" and "ꭰ" folded to
// each other, took two locks, and a folded value was not its own fold.
func foldCherokee(r rune) rune {
	if (r >= 0xab70 && r <= 0xabbf) || (r >= 0x13f8 && r <= 0x13fd) {
		return unicode.ToUpper(r)
	}
	return r
}
