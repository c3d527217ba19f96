package ui

import (
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/check"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/locks"
	"github.com/locktable/locktable/ui/others"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/write"
)

// Backend is what the terminal UI asks of the tables: the union of what
// each widget declares it calls, and whether writes are allowed.
// *dynamo.Store satisfies it; Update tests run against an in-memory fake
// (internal/uitest), and only end-to-end tests need an emulator.
type Backend interface {
	accounts.Backend // pages of accounts, an account by key
	locks.Backend    // pages of locks
	search.Backend   // Find
	detail.Reader    // consistent reads by key, an account's partition
	others.Backend   // pages of the items that are neither accounts nor locks
	check.Checker    // the background check
	write.Backend    // plans, the holder lookup, Prepare and Execute
	TableLister      // the endpoint's tables, for :table
	// Writable reports whether writes are allowed.
	Writable() bool
}
