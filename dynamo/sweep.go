package dynamo

import (
	"bytes"
	"context"
	"maps"
	"runtime"
	"slices"

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
// the check's census matches them), once the scan has ended, on every
// core. Only the accounts that look wrong
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
	// The TTL settings judge the locks: asked (once per store) before
	// the scan, which judges as it reads.
	s.readTTL(ctx)
	tctx, reads := withTally(ctx)
	sw := &sweep{schema: &s.Schema, segments: s.scanSegments(), locks: map[string]heldLock{},
		now: model.Epoch(s.now()), started: clock.Start(), approx: s.ApproxItems, progress: progress, reads: reads}
	sw.accounts = make([][]heldAccount, sw.segments)
	// One goroutine matches accounts and locks; the segments hand it
	// their pages, decoded, and ask for the next one at once (as the
	// check's census is filled).
	pages, matched := make(chan sweptPage, sw.segments), make(chan struct{})
	go func() {
		for p := range pages {
			sw.add(p)
		}
		close(matched)
	}()
	var err error
	for _, table := range s.Schema.Tables() {
		r := scanRequest{table: table, segments: sw.segments, consistent: consistent, raw: true}
		if err = s.scanPages(tctx, r, func(p scanPage) error { return sw.take(table, p, pages) }); err != nil {
			break
		}
	}
	close(pages)
	<-matched
	if err != nil {
		return err
	}
	return sw.hand(ctx, s.reader(), page)
}

// hand judges the accounts read in chunks, on as many goroutines as the
// machine runs at once, and hands each chunk to page in browse order as
// soon as those before it are.
func (sw *sweep) hand(ctx context.Context, src backend.Reader, page func([]model.AccountView)) error {
	var all []heldAccount
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
	// A chunk judged holds its views (and their locks' items) until it is
	// handed on: a few are judged ahead, not the whole table.
	ahead := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	done := make(chan error, 1)
	go func() {
		for i := range chunks {
			select {
			case ahead <- struct{}{}:
			case <-gctx.Done():
			}
			if gctx.Err() != nil {
				break // stopped, or a chunk failed
			}
			g.Go(func() error {
				views, err := sw.judge(gctx, src, all[i*sweepChunk:min((i+1)*sweepChunk, len(all))])
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
		<-ahead
	}
	if err := <-done; err != nil {
		return err
	}
	return ctx.Err()
}

// sweep is what AccountsSweep has read: each segment's accounts in the
// order read, and every lock by its key. The accounts are judged at now,
// the sweep's start, as the check judges TTLs at its start. One
// goroutine adds to it (add), then the chunks are judged, each by one.
type sweep struct {
	schema   *model.Schema
	segments int
	now      int64
	accounts [][]heldAccount
	locks    map[string]heldLock // KeyRef.ID -> the lock
	items    int64
	pages    int
	started  clock.Stopwatch
	approx   int64
	progress func(backend.SweepProgress)
	reads    *tally
}

// sweptPage is a page of the sweep, decoded: its accounts in the order
// read, its locks by key, and how many items it read.
type sweptPage struct {
	segment  int
	accounts []heldAccount
	locks    map[string]heldLock
	examined int
}

// take decodes page p of table and hands what it holds to pages: its
// accounts (those of the account table) and its locks. It runs
// concurrently for different segments.
func (sw *sweep) take(table string, p scanPage, pages chan<- sweptPage) error {
	var d itemDecoder
	out := sweptPage{segment: p.segment, locks: map[string]heldLock{}, examined: p.examined}
	c := model.Classifier{Schema: sw.schema}
	err := p.eachSpan(&d, func(it model.Item, span []byte) {
		switch c.Classify(table, it).Kind {
		case model.EntryAccount:
			if table == sw.schema.Table {
				out.accounts = append(out.accounts, holdAccount(it, span))
			}
		case model.EntryLock:
			key := sw.schema.KeyOf(table, it)
			out.locks[model.KeyRef{Table: table, Key: key}.ID()] = sw.hold(it, len(key))
		}
	})
	if err != nil {
		return err
	}
	pages <- out
	return nil
}

// add keeps what a page holds: its locks, and its accounts in its
// segment's order. It tells the progress.
func (sw *sweep) add(p sweptPage) {
	maps.Copy(sw.locks, p.locks)
	sw.accounts[p.segment] = append(sw.accounts[p.segment], p.accounts...)
	sw.items += int64(p.examined)
	sw.pages++
	if sw.progress != nil {
		sw.progress(backend.SweepProgress{Items: sw.items, Pages: sw.pages, RCU: sw.reads.consumed(),
			Approx: sw.approx, Millis: sw.started.Elapsed().Milliseconds()})
	}
}

// heldAccount is an account the sweep read, kept small until it is
// judged: its bytes as read (a decoded item costs a map, about a
// kilobyte), or the item where the page came decoded.
type heldAccount struct {
	raw  []byte
	item model.Item
}

// holdAccount keeps account it, read as span (nil: decoded by the SDK).
func holdAccount(it model.Item, span []byte) heldAccount {
	if span == nil {
		return heldAccount{item: maps.Clone(it)}
	}
	return heldAccount{raw: bytes.Clone(span)}
}

// decoded is the account as read.
func (a heldAccount) decoded(d *itemDecoder) (model.Item, error) {
	if a.raw == nil {
		return a.item, nil
	}
	var it model.Item
	err := d.eachRaw(slices.Concat([]byte("["), a.raw, []byte("]")), func(read model.Item) { it = maps.Clone(read) })
	return it, err
}

// heldLock is a lock the sweep read, kept small: most locks hold their
// key and a string owner, if any, and nothing else (a map per lock would
// cost a kilobyte); any other lock is kept whole.
type heldLock struct {
	owner string
	owned bool       // it has an owner, a string
	whole model.Item // the lock as read, when it holds more
}

// hold keeps lock it, whose key has keys attributes, small where it can.
func (sw *sweep) hold(it model.Item, keys int) heldLock {
	o, owned := it[sw.schema.OwnerAttr]
	switch {
	case owned && o.Kind == model.KindS && len(it) == keys+1:
		return heldLock{owner: o.S, owned: true}
	case !owned && len(it) == keys:
		return heldLock{}
	}
	return heldLock{whole: maps.Clone(it)}
}

// item is the lock as read, at the key of r.
func (l heldLock) item(r model.KeyRef, ownerAttr string) model.Item {
	if l.whole != nil {
		return l.whole
	}
	it := make(model.Item, len(r.Key)+1)
	for k, v := range r.Key {
		it[k] = model.S(v)
	}
	if l.owned {
		it[ownerAttr] = model.S(l.owner)
	}
	return it
}

// judge judges accounts from the locks the sweep read (an owner that is
// another account is not looked up: such a lock looks foreign), and
// those that look wrong again from consistent reads by key (src).
func (sw *sweep) judge(ctx context.Context, src backend.Reader, held []heldAccount) ([]model.AccountView, error) {
	var d itemDecoder
	accounts := make([]model.Item, len(held))
	for i, a := range held {
		var err error
		if accounts[i], err = a.decoded(&d); err != nil {
			return nil, err
		}
	}
	c := model.Classifier{Schema: sw.schema}
	lockAt := func(r model.KeyRef) (model.Item, bool) {
		l, ok := sw.locks[r.ID()]
		if !ok {
			return nil, false
		}
		return l.item(r, sw.schema.OwnerAttr), true
	}
	others := func(string, int, string) bool { return false }
	views := make([]model.AccountView, len(accounts))
	for i, it := range accounts {
		views[i] = c.Judge(it, lockAt, others, sw.now)
	}
	backend.MarkShared(views)
	var again []model.Item
	var at []int
	for i, v := range views {
		if v.Problematic() {
			again, at = append(again, v.Item), append(at, i)
		}
	}
	if len(again) == 0 {
		return views, nil
	}
	judged, err := backend.Judge(ctx, sw.schema, src, again, sw.now)
	if err != nil {
		return nil, err
	}
	for k, i := range at {
		views[i] = judged[k]
	}
	return views, nil
}
