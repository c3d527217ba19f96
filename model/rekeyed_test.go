package model

import (
	"slices"
	"testing"
)

// TestKeyedBeforeNFC: an orphan lock is recognised as the old casefold's
// key of a holder's value only where the old rule keyed that value so
// and the rule now keys it otherwise, on a constraint that casefolds.
func TestKeyedBeforeNFC(t *testing.T) {
	const (
		email = "\u1fbc\u0308@x.io"       // ᾼ̈@x.io
		then  = "\u03b1\u03b9\u0308@x.io" // the old casefold's key for it
		now   = "\u03b1\u03ca@x.io"       // the rule's
	)
	account := func(id, email string) Item {
		return Item{"PK": S(id), "SK": S("PROFILE"), "email": S(email)}
	}
	for _, tc := range []struct {
		name      string
		normalize Normalization
		old       string
		holders   []Item
		want      string // the account recognised, "" for none
	}{
		{"the old key of a holder's value", NormalizeCasefold, then, []Item{account("ACCT#b", "b@x.io"), account("ACCT#a", email)}, "ACCT#a"},
		{"a holder of the same value composed", NormalizeCasefold, then, []Item{account("ACCT#a", now)}, ""},
		{"nobody's old key", NormalizeCasefold, "\u03b1\u03b9\u0301@x.io", []Item{account("ACCT#a", email)}, ""},
		{"a key the rules agree on", NormalizeCasefold, now, []Item{account("ACCT#a", email)}, ""},
		{"no holders", NormalizeCasefold, then, nil, ""},
		{"a constraint that lowers", NormalizeLower, then, []Item{account("ACCT#a", email)}, ""},
		{"not an account", NormalizeCasefold, then, []Item{{"PK": S("UNIQ#EMAIL#x"), "SK": S("LOCK"), "email": S(email)}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := DefaultSchema(LayoutSingle)
			s.Constraints[0].Normalize = tc.normalize
			r, ok := Rekeying{&s}.KeyedBeforeNFC(0, tc.old, tc.holders)
			if got := map[bool]string{true: r.Account}[ok]; got != tc.want {
				t.Fatalf("KeyedBeforeNFC(%+q) = %+v, %v; want %q", tc.old, r, ok, tc.want)
			}
			if !ok {
				return
			}
			want := Rekeyed{Constraint: "email", Old: then, New: now, Account: "ACCT#a", Value: email,
				OldLock: map[string]string{"PK": "UNIQ#EMAIL#" + then, "SK": "LOCK"}, NewLock: map[string]string{"PK": "UNIQ#EMAIL#" + now, "SK": "LOCK"}}
			if r.Constraint != want.Constraint || r.Old != want.Old || r.New != want.New || r.Value != want.Value ||
				r.OldLock["PK"] != want.OldLock["PK"] || r.NewLock["PK"] != want.NewLock["PK"] || r.LockTable != "" {
				t.Errorf("got %+v, want %+v", r, want)
			}
			if c := r.Composed(); c != "'ϊ' (U+03CA) decomposed, as U+03B9 U+0308" {
				t.Errorf("Composed() = %q", c)
			}
		})
	}
}

// TestRekeyReads: a check reads the orphan's owner and the holders of
// the value the rule now keys, for orphans whose value is not NFC on a
// constraint that casefolds, and nothing else; FindRekeyed then names
// the orphan.
func TestRekeyReads(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	s.Constraints[0].Normalize = NormalizeCasefold
	then, now := "\u03b1\u03b9\u0308@x.io", "\u03b1\u03ca@x.io"
	c := Classifier{&s}
	problems := []Problem{
		c.LockProblem(OrphanLock, 0, then, "ACCT#o"),
		c.LockProblem(OrphanLock, 0, "plain@x.io", "ACCT#p"),
		c.HolderProblem(MissingLock, 0, now, "", []string{"ACCT#a"}),
		c.LockProblem(OrphanLock, 1, "h\u0308", "ACCT#u"), // username: none
	}
	var got []string
	for _, r := range (Rekeying{&s}).RekeyReads(problems) {
		got = append(got, r.Key["PK"])
	}
	if want := []string{"ACCT#o", "ACCT#a"}; !slices.Equal(got, want) {
		t.Errorf("RekeyReads = %q, want %q", got, want)
	}
	found := Rekeying{&s}.FindRekeyed(problems, []Item{{"PK": S("ACCT#a"), "SK": S("PROFILE"), "email": S("\u1fbc\u0308@x.io")}})
	if len(found) != 1 || found[0].Old != then || found[0].Account != "ACCT#a" {
		t.Errorf("FindRekeyed = %+v, want the orphan %+q held by ACCT#a", found, then)
	}
	s.Constraints[0].Normalize = NormalizeLower
	if refs := (Rekeying{&s}).RekeyReads(problems); len(refs) != 0 {
		t.Errorf("RekeyReads without casefold = %v, want none", refs)
	}
}
