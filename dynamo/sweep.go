package dynamo

import (
	"context"
	"maps"
	"runtime"
	"sync"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
	"golang.org/x/sync/errgroup"
)

// sweepChunk is how many accounts a page of AccountsSweep hands on, and
// are judged together (a variable for the tests).
var sweepChunk = 2000

// AccountsSweep reads every account of the table, with its locks, at the
// speed of a scan: one parallel scan of every table of the schema (the
// check's segments), whose lock items judge the accounts (the locks an
// account should have are looked up among those the scan returned, as
// the check's census matches them). Only the accounts that look wrong
// that way (a lock missing, foreign, expired...) are judged again from
// strongly consistent reads of their locks, as AccountsPage judges every
// account: one BatchGetItem for what looks wrong, not one per page.
//
// The accounts come to page in browse order for a sweep: segment 0's in
// the order its scan returned them, then segment 1's, and so on, in
// pages of a few thousand, once every table is read (an account's locks
// may be in any segment). progress is called after each page read; page
// and progress are never called concurrently. consistent makes the scan
// strongly consistent (a reload). Stopped (ctx), it returns ctx's error
// and hands on nothing more. --max-rcu paces it as any read.
func (s *Sweeper) AccountsSweep(ctx context.Context, consistent bool, progress func(backend.SweepProgress), page func([]model.AccountView)) error {
	ttl := make(chan struct{})
	go func() { s.readTTL(ctx); close(ttl) }()
	defer func() { <-ttl }()
	tctx, reads := withTally(ctx)
	sw := &sweep{schema: &s.Schema, segments: s.scanSegments(), locks: map[string]model.Item{}, started: clock.Start(), approx: s.ApproxItems, progress: progress, reads: reads}
	sw.accounts = make([][]model.Item, sw.segments)
	for _, table := range s.Schema.Tables() {
		r := scanRequest{table: table, segments: sw.segments, consistent: consistent, raw: true}
		if err := s.scanPages(tctx, r, func(p scanPage) error { return sw.take(table, p) }); err != nil {
			return err
		}
	}
	<-ttl
	return sw.hand(ctx, s.reader(), model.Epoch(s.now()), page)
}

// hand judges the accounts read in chunks, on as many goroutines as the
// machine runs at once (the locks are only read now), and hands each
// chunk to page in browse order as soon as those before it are.
func (sw *sweep) hand(ctx context.Context, src backend.Reader, now int64, page func([]model.AccountView)) error {
	var all []model.Item
	for seg := range sw.accounts {
		all = append(all, sw.accounts[seg]...)
		sw.accounts[seg] = nil // in all now, then in the views
	}
	chunks := (len(all) + sweepChunk - 1) / sweepChunk
	judged := make([]chan []model.AccountView, chunks)
	for i := range judged {
		judged[i] = make(chan []model.AccountView, 1)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	done := make(chan error, 1)
	go func() {
		for i := range chunks {
			g.Go(func() error {
				views, err := sw.judge(gctx, src, all[i*sweepChunk:min((i+1)*sweepChunk, len(all))], now)
				judged[i] <- views
				return err
			})
		}
		done <- g.Wait()
	}()
	for i := range chunks {
		views := <-judged[i] // nil: it failed
		if views == nil || ctx.Err() != nil {
			break
		}
		page(views)
	}
	if err := <-done; err != nil {
		return err
	}
	return ctx.Err()
}

// sweep is what AccountsSweep has read: each segment's accounts in the
// order read, and every lock by its key.
type sweep struct {
	schema   *model.Schema
	segments int
	mu       sync.Mutex
	accounts [][]model.Item
	locks    map[string]model.Item // KeyRef.ID -> the lock item
	items    int64
	pages    int
	started  clock.Stopwatch
	approx   int64
	progress func(backend.SweepProgress)
	reads    *tally
}

// take keeps what page p of table holds: its accounts, in its segment's
// order, and its locks; the rest is counted. It runs concurrently for
// different segments.
func (sw *sweep) take(table string, p scanPage) error {
	var d itemDecoder
	var accounts []model.Item
	locks := map[string]model.Item{}
	c := model.Classifier{Schema: sw.schema}
	err := p.each(&d, func(it model.Item) {
		switch c.Classify(table, it).Kind {
		case model.EntryAccount:
			if table == sw.schema.Table {
				accounts = append(accounts, maps.Clone(it))
			}
		case model.EntryLock:
			locks[model.KeyRef{Table: table, Key: sw.schema.KeyOf(table, it)}.ID()] = maps.Clone(it)
		}
	})
	if err != nil {
		return err
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if table == sw.schema.Table {
		sw.accounts[p.segment] = append(sw.accounts[p.segment], accounts...)
	}
	maps.Copy(sw.locks, locks)
	sw.items += int64(p.examined)
	sw.pages++
	if sw.progress != nil {
		sw.progress(backend.SweepProgress{Items: sw.items, Pages: sw.pages, RCU: sw.reads.consumed(),
			Approx: sw.approx, Millis: sw.started.Elapsed().Milliseconds()})
	}
	return nil
}

// ReadConsistent serves the locks the sweep read, as if read by key
// (backend.Reader); accounts are not served: a lock naming another
// account as owner looks foreign, and is judged again by key.
func (sw *sweep) ReadConsistent(_ context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error {
	for _, r := range refs {
		if it, ok := sw.locks[r.ID()]; ok {
			visit(r.Table, it)
		}
	}
	return nil
}

// judge judges accounts from the locks the sweep read (an owner that is
// another account is not looked up: such a lock looks foreign), and
// those that look wrong again from consistent reads by key (src).
func (sw *sweep) judge(ctx context.Context, src backend.Reader, accounts []model.Item, now int64) ([]model.AccountView, error) {
	c := model.Classifier{Schema: sw.schema}
	lockAt := func(r model.KeyRef) (model.Item, bool) { it, ok := sw.locks[r.ID()]; return it, ok }
	others := func(string, int, string) bool { return false }
	views := make([]model.AccountView, len(accounts))
	for i, it := range accounts {
		views[i] = c.Judge(it, lockAt, others, now)
	}
	backend.MarkShared(views)
	var again []model.Item
	var at []int
	for i, v := range views {
		if v.Problematic() {
			again, at = append(again, accounts[i]), append(at, i)
		}
	}
	if len(again) == 0 {
		return views, nil
	}
	judged, err := backend.Judge(ctx, sw.schema, src, again, now)
	if err != nil {
		return nil, err
	}
	for k, i := range at {
		views[i] = judged[k]
	}
	return views, nil
}
