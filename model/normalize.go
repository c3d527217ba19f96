package model

import (
	"fmt"
	"strings"

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
	return "", &FlagError{Flag: "normalize", Msg: fmt.Sprintf("%q is not none, lower or casefold", s)}
}

// Apply returns v in normal form. It is total: no value is rejected.
func (n Normalization) Apply(v string) string {
	switch n {
	case NormalizeLower:
		return strings.ToLower(v)
	case NormalizeCasefold:
		// A Caser keeps state, so each call takes a fresh one.
		return cases.Fold().String(norm.NFC.String(v))
	}
	return v
}
