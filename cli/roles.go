package cli

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
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
		Tables: store, Sweep: pacedSweeper{store.Sweeper}, Writable: store.Writable()}
}

// pacedSweeper reads every account at once (the UI's G and n) with the
// collector run at a quarter of the live heap's growth, not at its
// doubling (GOGC 25, unless GOGC or GOMEMLIMIT is set): what the sweep
// holds until it has judged, and the accounts the list takes meanwhile,
// are the live heap, and doubling it before each collection doubled the
// peak (bench-tui's memory part: 376 MB against 204 MB at GOGC 25). A
// check's pacing (holdMemory: the live heap plus 2 MiB) held it to 204
// MB too, but doubled G's time.
type pacedSweeper struct{ *dynamo.Sweeper }

func (s pacedSweeper) AccountsSweep(ctx context.Context, consistent bool, progress func(backend.SweepProgress), page func([]model.AccountView)) error {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(sweepGCPercent))
	}
	return s.Sweeper.AccountsSweep(ctx, consistent, progress, page)
}

// sweepGCPercent is the collector's GOGC while the UI reads every account.
const sweepGCPercent = 25
