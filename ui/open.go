package ui

import (
	"context"
	"sync"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/ui/accounts"
)

// Opened is what Open found.
type Opened struct {
	// Capabilities is what the probe found (Probed false when none ran).
	Capabilities backend.Capabilities
	// First is the first page of accounts, on its way (nil when it is read
	// through an accounts index: the UI asks for it itself). Hand it to New
	// in Options.First.
	First accounts.FirstPage
}

// Store is what Open asks of the store the UI will read: that its tables
// fit the schema, what the backend can do, the accounts index to page
// through, and the first page. *dynamo.Store is one.
type Store interface {
	Verify(ctx context.Context) error
	Probe(ctx context.Context) (backend.Capabilities, error)
	UseAccountsIndex(ctx context.Context, name string) error
	// ProbeReadsLater asks what reads the backend honours once after
	// returns, without holding up the first rows; reads that need the
	// answer wait for it.
	ProbeReadsLater(ctx context.Context, after func())
	AccountsPage(ctx context.Context, from backend.Cursor, want int, consistent bool) (backend.AccountPage, error)
}

// Open readies a store for the UI. It describes the tables (refusing one
// whose key does not fit the schema), asks the backend what it can do when
// probe is set (Store.Probe) and reads the first page of accounts all at
// once (constraints is how many unique attributes the schema has), so
// that the first rows wait for the slowest of those calls rather
// than for their sum. With accountsIndex (--accounts-index) the index is
// described too, and pages are read through it, so the first page waits
// for the UI. The tables' TTL settings, which judge the first page's
// locks, are asked beside its reads (AccountsPage waits for them).
// When Open fails, nothing it started is still running.
func Open(ctx context.Context, s Store, constraints int, accountsIndex string, probe bool) (Opened, error) {
	var o Opened
	var stop context.CancelFunc = func() {}
	if accountsIndex == "" {
		o.First, stop = prefetch(ctx, s, constraints)
	}
	// The read probe waits for the first page, so that neither waits for
	// the other (Verify asks it otherwise).
	var firstRead func()
	if o.First != nil {
		first := o.First
		firstRead = func() { _, _ = first() }
	}
	s.ProbeReadsLater(ctx, firstRead)
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
func prefetch(ctx context.Context, s Store, constraints int) (accounts.FirstPage, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var page backend.AccountPage
	var err error
	go func() {
		defer close(done)
		defer cancel()
		page, err = s.AccountsPage(ctx, backend.Cursor{}, accounts.Want(0, constraints), false)
	}()
	return func() (backend.AccountPage, error) {
		<-done
		return page, err
	}, cancel
}
