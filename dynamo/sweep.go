package dynamo

import (
	"context"
	"maps"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// sweepChunk is how many accounts of a scan page the sweep judges
// together and hands on in one call: a page of AccountsPage's size, so
// that a chunk's accounts that share a value are marked duplicate as a
// page of them would be (a variable for the tests).
var sweepChunk = backend.BrowseLimit

// AccountsSweep reads every account of the account table with its locks,
// each judged as AccountsPage judges it (its locks read with strongly
// consistent reads, their TTLs judged at the time of the reads), at the
// pace of a parallel scan and in memory that does not grow with the
// table: each segment of the scan (the check's segments, paced by
// --max-rcu as every read) reads its next page while the accounts of the
// one before are judged, and what is handed on is not kept.
//
// page receives each segment's accounts in the order its scan read them,
// a few hundred at a time; the segments' calls interleave. progress is
// called after each scan page has been handed on (pages without accounts
// too). Neither is ever called concurrently with itself or the other.
// consistent makes the scan strongly consistent (a reload). Accounts on
// one call that share a value are duplicates, as on one of AccountsPage's
// pages; one whose value another holds in another call is judged by its
// lock alone (ok when the lock names it), as there.
//
// When ctx ends it returns ctx's error as soon as the reads in flight
// give up, and calls page no more once ctx has ended. With an accounts
// index (UseAccountsIndex) it returns backend.ErrNoSweep at once: the
// index is what lists the accounts, and the caller pages through it.
func (s *Pages) AccountsSweep(ctx context.Context, consistent bool, progress func(backend.SweepProgress), page func(segment int, views []model.AccountView)) error {
	if s.AccountsIndex != "" {
		return backend.ErrNoSweep
	}
	// The tables' TTL settings judge the locks (asked once per store).
	s.readTTL(ctx)
	tctx, reads := withTally(ctx)
	sw := &sweep{pages: s, stopped: ctx, reads: reads, started: clock.Start(),
		approx: s.approxItems(s.Schema.Table), page: page, progress: progress}
	r := scanRequest{table: s.Schema.Table, filter: s.accountFilter(), segments: s.scanSegments(),
		consistent: consistent, raw: true}
	err := s.eachSegment(tctx, r, func(ctx context.Context, seg int, in *dynamodb.ScanInput) error {
		return sw.segment(ctx, r, seg, in)
	})
	if ctx.Err() != nil {
		return ctx.Err() // not the scan's or the reads' words for it
	}
	return err
}

// approxItems is table's item count as DescribeTable last said it (AWS
// refreshes it every few hours), 0 when the table was not described.
func (s *core) approxItems(table string) int64 {
	if desc := s.described.get(table); desc != nil {
		return aws.ToInt64(desc.ItemCount)
	}
	return 0
}

// sweep is one AccountsSweep under way: how far it has gone, and the
// callbacks it hands its accounts and its progress to, one call at a time
// (mu).
type sweep struct {
	pages *Pages
	// stopped is the caller's context: once it has ended, nothing more is
	// handed on, whatever is still in flight.
	stopped  context.Context
	reads    *tally
	started  clock.Stopwatch
	approx   int64
	page     func(segment int, views []model.AccountView)
	progress func(backend.SweepProgress)

	mu        sync.Mutex
	items     int64
	pagesRead int
}

// segment reads segment seg from in to its end: one goroutine scans it,
// a page ahead of the other, which judges each page's accounts and hands
// them on, so that at most three pages of the segment are held at once
// (one arriving, one waiting, one being judged).
func (sw *sweep) segment(ctx context.Context, r scanRequest, seg int, in *dynamodb.ScanInput) error {
	read := make(chan scanPage, 1)
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(read)
		return sw.pages.scanSegment(ctx, r, seg, in, func(p scanPage) error {
			select {
			case read <- p:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	})
	g.Go(func() error {
		var d itemDecoder
		for p := range read {
			if err := sw.judgePage(ctx, seg, p, &d); err != nil {
				return err
			}
		}
		return nil
	})
	return g.Wait()
}

// judgePage judges the accounts of page p of segment seg, sweepChunk at a
// time as they are decoded, and hands each chunk on.
func (sw *sweep) judgePage(ctx context.Context, seg int, p scanPage, d *itemDecoder) error {
	sc := &sw.pages.Schema
	c := model.Classifier{Schema: sc}
	var err error
	chunk := make([]model.Item, 0, sweepChunk)
	derr := p.each(d, func(it model.Item) {
		// A filtered scan returns accounts only, as AccountsPage's does;
		// a backend that ignores the filter, anything.
		if err != nil || c.Classify(sc.Table, it).Kind != model.EntryAccount {
			return
		}
		chunk = append(chunk, maps.Clone(it)) // it is the decoder's, reused
		if len(chunk) == sweepChunk {
			err = sw.judge(ctx, seg, chunk, false, 0)
			chunk = chunk[:0]
		}
	})
	if err != nil {
		return err
	}
	if derr != nil {
		return explain(derr, "scan", sc.Table, sw.pages.Endpoint)
	}
	return sw.judge(ctx, seg, chunk, true, p.examined)
}

// judge reads the locks of accounts and judges them now, as AccountsPage
// does, and hands the views on to page; end says the chunk ends a scan
// page, which read items of the table, and progress is told.
func (sw *sweep) judge(ctx context.Context, seg int, accounts []model.Item, end bool, items int) error {
	var views []model.AccountView
	if len(accounts) > 0 {
		var err error
		views, err = backend.Judge(ctx, &sw.pages.Schema, sw.pages, accounts, model.Epoch(sw.pages.now()))
		if err != nil {
			return err
		}
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	if err := sw.stopped.Err(); err != nil {
		return err
	}
	if len(views) > 0 {
		sw.page(seg, views)
	}
	if !end {
		return nil
	}
	sw.items += int64(items)
	sw.pagesRead++
	if sw.progress != nil {
		sw.progress(backend.SweepProgress{Items: sw.items, Pages: sw.pagesRead, RCU: sw.reads.consumed(),
			Approx: sw.approx, Millis: sw.started.Elapsed().Milliseconds()})
	}
	return nil
}
