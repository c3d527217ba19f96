package model

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// AccountIDs are the ids of a schema's accounts: what their keys hold
// before the id, and the keys a signup gives a new account.
type AccountIDs struct{ Schema *Schema }

// KeyPrefix is what an account's key holds before its id: IDPrefix
// where given, else the account prefix.
func (s AccountIDs) KeyPrefix() string {
	if s.Schema.IDPrefix != "" {
		return s.Schema.IDPrefix
	}
	return s.Schema.AccountPrefix
}

// SignupKey is the key of a new account whose attributes attrs give its
// id in the id attribute: KeyPrefix and that id. False when the schema
// has no id attribute or attrs leave it empty.
func (s AccountIDs) SignupKey(attrs map[string]string) (string, bool) {
	if v := attrs[s.Schema.IDAttr]; s.Schema.IDAttr != "" && v != "" {
		return s.KeyPrefix() + v, true
	}
	return "", false
}

// New returns a fresh account key for a signup: the account prefix and
// 12 random hex digits.
func (s AccountIDs) New() string { return s.NewLike(nil) }

// NewLike returns a fresh account key that looks like ids, keys
// of the table: the account prefix, or when there is none the prefix most
// of ids share up to a separator (dev- of dev-7f3a91c2), then 12 random
// hex digits.
func (s AccountIDs) NewLike(ids []string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	if s.Schema.AccountSK == KeyInID && s.Schema.SK != "" {
		return newWholeKeyLike(ids, hex.EncodeToString(b))
	}
	prefix := s.KeyPrefix()
	if prefix == "" {
		prefix = commonIDPrefix(ids)
	}
	return prefix + hex.EncodeToString(b)
}

// commonIDPrefix is the part up to the first separator (- _ # : / .)
// that more than half of ids start with, "" when there is none.
func commonIDPrefix(ids []string) string {
	seen := map[string]int{}
	best := ""
	for _, id := range ids {
		i := strings.IndexAny(id, "-_#:/.")
		if i <= 0 {
			continue
		}
		p := id[:i+1]
		if seen[p]++; seen[p] > seen[best] {
			best = p
		}
	}
	if 2*seen[best] <= len(ids) {
		return ""
	}
	return best
}

// newWholeKeyLike is a whole key (PK|SK) like those of ids: the
// partition most of them share, and the head of their sort keys up to
// its last separator ($agent_1#id_) before fresh; with no id to go by,
// fresh as both.
func newWholeKeyLike(ids []string, fresh string) string {
	pks, heads := map[string]int{}, map[string]int{}
	for _, id := range ids {
		pk, sk, ok := SplitWholeKeyID(id)
		if !ok {
			continue
		}
		pks[pk]++
		heads[sk[:strings.LastIndexAny(sk, "-_#:/.")+1]]++
	}
	most := func(seen map[string]int, or string) string {
		best := or
		for k, n := range seen {
			if n > seen[best] || (n == seen[best] && k < best) {
				best = k
			}
		}
		return best
	}
	return WholeKeyID(most(pks, fresh), most(heads, "")+fresh)
}
