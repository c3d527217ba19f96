package ui

import (
	"context"
	"sync"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/ui/accounts"
)

// Opened is what Open found.
type Opened struct {
	// Capabilities is what the probe found (Probed false when none ran).
	Capabilities dynamo.Capabilities
	// First is the first page of accounts, on its way (nil when it is read
	// through an accounts index: the UI asks for it itself). Hand it to New
	// in Options.First.
	First accounts.FirstPage
}

// Open readies a store for the UI. It describes the tables (refusing one
// whose key does not fit the schema), asks the backend what it can do when
// probe is set (Store.Probe) and reads the first page of accounts all at
// once, so that the first rows wait for the slowest of those calls rather
// than for their sum. With accountsIndex (--accounts-index) the index is
// described too, and pages are read through it, so the first page waits
// for the UI. When Open fails, nothing it started is still running.
func Open(ctx context.Context, s *dynamo.Store, accountsIndex string, probe bool) (Opened, error) {
	var o Opened
	var stop context.CancelFunc = func() {}
	if accountsIndex == "" {
		o.First, stop = prefetch(ctx, s)
	}
	var wg sync.WaitGroup
	var probeErr error
	if probe {
		wg.Go(func() { o.Capabilities, probeErr = s.Probe(ctx) })
	}
	err := s.Verify(ctx)
	if err == nil && accountsIndex != "" {
		err = s.UseAccountsIndex(ctx, accountsIndex)
	}
	wg.Wait()
	if err == nil {
		err = probeErr
	}
	if err != nil && o.First != nil {
		// The page was read under a schema the table does not fit (or the
		// caller will pick another table): drop it, and wait until it is
		// no longer reading the store.
		stop()
		_, _ = o.First()
		return Opened{}, err
	}
	return o, err
}

// prefetch starts reading the first page of accounts, the one the accounts
// view asks for first, and returns a wait for it and a stop.
func prefetch(ctx context.Context, s *dynamo.Store) (accounts.FirstPage, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var page dynamo.AccountPage
	var err error
	go func() {
		defer close(done)
		defer cancel()
		page, err = s.AccountsPage(ctx, dynamo.Cursor{}, accounts.Want(0, len(s.Schema.Constraints)), false)
	}()
	return func() (dynamo.AccountPage, error) {
		<-done
		return page, err
	}, cancel
}
