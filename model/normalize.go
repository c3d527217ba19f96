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
	NormalizeCasefold Normalization = "casefold" // NFC, full Unicode case folding, NFC again
)

// ParseNormalization parses the right-hand side of --normalize.
func ParseNormalization(s string) (Normalization, error) {
	switch n := Normalization(s); n {
	case NormalizeNone, NormalizeLower, NormalizeCasefold:
		return n, nil
	}
	return "", NewSchemaError(FieldNormalize, "%q is not none, lower or casefold", s)
}

// Apply returns v in normal form. It is total: no value is rejected, and
// it is a closure: Apply(Apply(v)) == Apply(v), so two values it calls
// equal get one lock key.
//
// casefold is NFC, then full case folding (CaseFolding.txt, status C and
// F), then NFC again, and one pass is a fixpoint. The fold maps each rune
// on its own; the runes of a rune's fold, and of that fold's canonical
// decomposition, are their own folds; and a rune whose decomposition is
// all such runes folds to something canonically equivalent to itself.
// So every rune of Apply(v) is composed of folded runes, its fold is
// canonically equivalent to it, and NFC gives Apply(v) back.
// TestCasefoldOnePassSuffices checks these three facts over every
// assigned rune (an unassigned one has no fold and no decomposition).
func (n Normalization) Apply(v string) string {
	switch n {
	case NormalizeLower:
		return strings.ToLower(v)
	case NormalizeCasefold:
		return norm.NFC.String(casefoldBeforeNFC(v))
	}
	return v
}

// casefoldBeforeNFC is full case folding of NFC(v), not composed again:
// locktable's casefold before 2026-12, kept only to recognise the locks it
// wrote (Rekeying.KeyedBeforeNFC). Folding can leave a sequence NFC
// composes: U+1FBC U+0308 folds to U+03B1 U+03B9 U+0308, while U+03B1
// U+03CA, which NFC makes of it, folds to itself; so two values a
// caseless match calls equal took two lock keys, and a folded value was
// not its own fold.
func casefoldBeforeNFC(v string) string {
	// A Caser keeps state, so each call takes a fresh one.
	return strings.Map(foldCherokee, cases.Fold().String(norm.NFC.String(v)))
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
