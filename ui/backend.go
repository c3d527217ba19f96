package ui

import (
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/check"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/live"
	"github.com/locktable/locktable/ui/locks"
	"github.com/locktable/locktable/ui/others"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/write"
)

// Roles are what the terminal UI reads and writes through, one value per
// role, each typed as the small interface the views that use it declare.
// *dynamo.Store hands out its roles (Pages, Checker, Lookup, Writer, and
// itself for Tables); Update tests hand the in-memory fake
// (internal/uitest) for each, and only end-to-end tests need an emulator.
type Roles struct {
	Pages  Pages          // pages of accounts, locks and other items; reads by key
	Check  check.Checker  // the background check
	Lookup search.Backend // Find, and the account a result names
	Writer write.Backend  // plans, the holder lookup, Prepare and Execute
	Tables TableLister    // the endpoint's tables, for :table
	// Sweep reads every account at once, for G and n on a table of more
	// than sweepAbove items (nil: they read page after page).
	Sweep accounts.Sweeper
	// Stream follows the table's stream, so that others' writes show
	// unasked (nil: none is followed, and nothing is said of one).
	Stream live.Stream
	// Writable says whether writes are allowed: the keys that write are
	// offered only then.
	Writable bool
}

// Pages is what the list views and the detail read: pages of each kind
// of item, and items by key.
type Pages interface {
	accounts.Backend // pages of accounts, an account by key
	locks.Backend    // pages of locks
	others.Backend   // pages of the items that are neither accounts nor locks
	detail.Reader    // consistent reads by key, an account's partition
}

// sweepAbove is the table size (its approximate item count) from which G
// and n read every account at once (Roles.Sweep) rather than page after
// page: below it the pages are as quick, and keep the scan's order.
const sweepAbove = 10_000

// accountsBackend is what the accounts view reads: the pages, and the
// sweep on a table large enough for it (accounts.Sweeper).
func accountsBackend(o Options) accounts.Backend {
	if o.Sweep == nil || o.ApproxItems < sweepAbove {
		return o.Pages
	}
	return struct {
		Pages
		accounts.Sweeper
	}{o.Pages, o.Sweep}
}
