package writes

import (
	"fmt"
	"strings"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// Lookup is what a write's holder lookup did and found, to be said before
// the write is sent (PATTERN.md, "Other holders").
type Lookup struct {
	Ran     bool // it looked
	Skipped bool // it was asked not to look
	Found   backend.HolderLookup
	// values names the values looked for (attr=value), findings says what
	// was found of each (backend.Findings).
	values   []string
	findings string
}

// String says how the lookup looked, how much it read and what it found
// of each value, on one line, escaped: "holder lookup for
// email=eve@x.io: consistent scan of the accounts, 12 items read:
// email=eve@x.io is locked by ACCT#e0e001 ...". Skipped, it says what
// that risks.
func (l Lookup) String() string {
	if l.Skipped {
		return "holder lookup skipped: an account holding a new value without its lock would not stop this write"
	}
	return model.Printable(fmt.Sprintf("holder lookup for %s: %s, %d items read: %s",
		strings.Join(l.values, ", "), l.Found.Method, l.Found.ItemsRead, l.findings))
}

// Findings says what the lookup found of each value, unescaped.
func (l Lookup) Findings() string { return l.findings }

// valueNames are the values looked for as attr=value.
func valueNames(sc *model.Schema, values []backend.Wanted) []string {
	var names []string
	for _, w := range values {
		names = append(names, sc.Constraints[w.Constraint].Attr+"="+w.Value)
	}
	return names
}
