package cli

import (
	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/ui"
	"github.com/locktable/locktable/ui/accounts"
	uicheck "github.com/locktable/locktable/ui/check"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/locks"
	"github.com/locktable/locktable/ui/others"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/write"
	"github.com/locktable/locktable/writes"
)

// The terminal UI and the write flow read and write through the roles of
// *dynamo.Store, speaking package backend's values; they do not import
// dynamo. Each interface a consumer declares is one role, and each is
// handed the role alone (uiRoles, store.Writer to writes.Flow).
var (
	_ ui.Store       = (*dynamo.Store)(nil)
	_ ui.TableLister = (*dynamo.Store)(nil)
	_ ui.FirstPager  = (*dynamo.Pages)(nil)
	_ ui.Pages       = (*dynamo.Pages)(nil)

	_ accounts.Backend = (*dynamo.Pages)(nil)
	_ locks.Backend    = (*dynamo.Pages)(nil)
	_ others.Backend   = (*dynamo.Pages)(nil)
	_ detail.Reader    = (*dynamo.Pages)(nil)
	_ backend.Reader   = (*dynamo.Pages)(nil)

	_ uicheck.Checker = (*dynamo.Checker)(nil)

	_ search.Backend = (*dynamo.Lookup)(nil)
	_ backend.Finder = (*dynamo.Lookup)(nil)

	_ writes.Store  = (*dynamo.Writer)(nil)
	_ write.Backend = (*dynamo.Writer)(nil)
)

// uiRoles hands the terminal UI each role of store.
func uiRoles(store *dynamo.Store) ui.Roles {
	return ui.Roles{Pages: store.Pages, Check: store.Checker, Lookup: store.Lookup, Writer: store.Writer,
		Tables: store, Writable: store.Writable(), Sweep: store.Sweeper}
}
