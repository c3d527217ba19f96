package dynamo

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/model/spill"
)

// sweepChunk is how many accounts the sweep judges together and hands on
// in one call: a page of AccountsPage's size, so that accounts that share
// a value are marked duplicate as on a page of them (a variable for the
// tests).
var sweepChunk = backend.BrowseLimit

const (
	// sweepPartItems is about how many items of the tables one partition
	// of the sweep's lock keys holds: what matching reads into memory at
	// once (a few MB).
	sweepPartItems = 8 << 10
	// sweepWindow is about how many accounts one window of the locks
	// matched to them answers for: what handing them on reads into memory
	// at once (a few MB).
	sweepWindow = 4 << 10
	// sweepMaxFiles bounds the files of each kind a sweep writes at once:
	// past sweepMaxFiles*sweepPartItems items (4 million) a partition holds
	// more, and past sweepMaxFiles*sweepWindow accounts (2 million) a
	// window, so that memory grows with the table's size over 512.
	sweepMaxFiles = 512
	// sweepAccountFiles bounds the files the accounts are kept in: a file
	// holds the accounts of several segments past it, each segment's in
	// its order.
	sweepAccountFiles = 64
)

// AccountsSweep reads every account of the account table with its locks,
// each judged as AccountsPage judges it (backend.Judge: the same
// statuses, owners, TTLs and items), in about the time of one parallel
// scan, and in memory that does not grow with the table (up to millions
// of items: sweepMaxFiles).
//
// The locks come from the scan itself, which reads every table of the
// schema (the check's segments, paced by --max-rcu as every read), not
// from reads of each account's locks by key, which would cost a read unit
// an account and, on an emulator that serves them one at a time, as long
// again as the scan. A lock can be in any segment, so what the scan reads
// is kept on disk, never in memory: each account, and by its key each
// lock and each lock an account should have (75 MB for 300,000 items),
// in a temporary directory removed before it returns. Once the scan
// has ended they are matched a partition of keys at a time, and the
// accounts are judged and handed on. An account whose view shows a
// problem that way (a lock missing, foreign, expired, a value another
// account of the same call holds...) is judged again from strongly
// consistent reads of its locks and their owners, as AccountsPage judges
// every account; one whose view is sound keeps the locks the scan read,
// which consistent makes a strongly consistent read (a reload).
//
// page receives each segment's accounts in the order its scan read them,
// a few hundred at a time, once the scan has ended; the segments' calls
// interleave. progress is called after each scan page and after each
// call of page. Neither is ever called concurrently with itself or the
// other. Accounts on one call of page that share a value are duplicates,
// as on one of AccountsPage's pages.
//
// When ctx ends it returns ctx's error as soon as the reads in flight
// give up, and calls page no more once ctx has ended. With an accounts
// index (UseAccountsIndex) it returns backend.ErrNoSweep at once: the
// index is what lists the accounts, and the caller pages through it.
func (s *Sweeper) AccountsSweep(ctx context.Context, consistent bool, progress func(backend.SweepProgress), page func(segment int, views []model.AccountView)) (err error) {
	if s.AccountsIndex != "" {
		return backend.ErrNoSweep
	}
	// The tables' TTL settings judge the locks (asked once per store).
	s.readTTL(ctx)
	tctx, reads := withTally(ctx)
	sw := &sweep{core: s.core, sc: &s.Schema, stopped: ctx, reads: reads, started: clock.Start(),
		segments: s.scanSegments(), page: page, progress: progress}
	for _, table := range s.Schema.Tables() {
		sw.approx += s.approxItems(table)
	}
	defer func() {
		// Whatever stopped it: the files are the sweep's alone.
		if rerr := sw.remove(); err == nil {
			err = rerr
		}
	}()
	err = sw.create()
	if err == nil {
		err = sw.read(tctx, consistent)
	}
	if err == nil {
		err = sw.match(tctx)
	}
	if err == nil {
		err = sw.hand(tctx)
	}
	if ctx.Err() != nil {
		return ctx.Err() // not the scan's or the reads' words for it
	}
	return err
}

// approxItems is table's item count as DescribeTable last said it (AWS
// refreshes it every few hours), 0 when the table was not described.
func (s *core) approxItems(table string) int64 {
	if desc := s.described.get(table); desc != nil && desc.ItemCount != nil {
		return *desc.ItemCount
	}
	return 0
}

// sweep is one AccountsSweep under way.
type sweep struct {
	core     *core
	sc       *model.Schema
	segments int
	// stopped is the caller's context: once it has ended, nothing more is
	// handed on, whatever is still in flight.
	stopped  context.Context
	reads    *tally
	started  clock.Stopwatch
	approx   int64
	page     func(segment int, views []model.AccountView)
	progress func(backend.SweepProgress)

	// keys holds the locks read, each with its key, and the key of each
	// lock an account should have, with the account's place; partitioned
	// by the key, so that each partition is matched alone.
	keys *spill.Set
	// accounts holds the accounts read, each segment's in its order, in
	// up to sweepAccountFiles files; filled counts each file's accounts.
	accounts *spill.Set
	filled   []int
	// found holds the locks matched to accounts, by window of accounts
	// (window accounts each, in the order of the accounts' files).
	found  *spill.Set
	window int

	mu        sync.Mutex // the scan's segments take turns at the files and at progress
	items     int64
	pagesRead int
	record    []byte
	decoder   itemDecoder // the scan's pages take turns at it
}

// create makes the sweep's spill files: a partition of keys for about
// sweepPartItems items of the tables (as DescribeTable counts them).
func (sw *sweep) create() error {
	parts := sweepMaxFiles / 8 // a table of unknown size
	if sw.approx > 0 {
		parts = int(min(max((sw.approx+sweepPartItems-1)/sweepPartItems, 1), sweepMaxFiles))
	}
	var err error
	if sw.keys, err = spill.Create("", parts); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	files := min(sw.segments, sweepAccountFiles)
	sw.filled = make([]int, files)
	if sw.accounts, err = spill.Create(sw.keys.Dir(), files); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return nil
}

// remove removes the sweep's files.
func (sw *sweep) remove() error {
	var errs []error
	for _, set := range []*spill.Set{sw.found, sw.accounts, sw.keys} {
		if set != nil {
			errs = append(errs, set.Remove())
		}
	}
	return errors.Join(errs...)
}

// The records of the spill files: a lock (its table's number in
// Schema.Tables, its key and the item) and a lock an account should have
// (the account's file and place in it, and the lock's key) in keys; an
// account (its segment and the item) in accounts; a lock matched to an
// account (the account's place over every file, the lock's table's
// number and the item) in found. Items are DynamoDB's JSON, as the scan
// answered them.
const (
	lockRecord     = 'L'
	expectedRecord = 'E'
)

// read scans every table of the schema, in parallel segments, into the
// spill files.
func (sw *sweep) read(ctx context.Context, consistent bool) error {
	for t, table := range sw.sc.Tables() {
		r := scanRequest{table: table, segments: sw.segments, consistent: consistent, raw: true}
		err := sw.core.scanPages(ctx, r, func(p scanPage) error { return sw.take(t, table, p) })
		if err != nil {
			return err
		}
	}
	return sw.flush(sw.keys, sw.accounts)
}

// take spills page p of table (number t of the schema's): its accounts,
// in order, with the locks each should have, and its locks. It tells the
// progress.
func (sw *sweep) take(t int, table string, p scanPage) error {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	c := model.Classifier{Schema: sw.sc}
	file := p.segment % len(sw.filled)
	var err error
	derr := p.eachSpan(&sw.decoder, func(it model.Item, span []byte) {
		if err != nil {
			return
		}
		switch c.Classify(table, it).Kind {
		case model.EntryAccount:
			if table != sw.sc.Table {
				return
			}
			at := sw.filled[file]
			sw.filled[file]++
			sw.record = appendBytes(binary.AppendUvarint(sw.record[:0], uint64(p.segment)), span)
			err = sw.accounts.Append(file, sw.record)
			for _, r := range c.ExpectedLocks(it) {
				if err != nil {
					return
				}
				id := r.ID()
				rec := binary.AppendUvarint(binary.AppendUvarint(append(sw.record[:0], expectedRecord), uint64(file)), uint64(at))
				sw.record = appendBytes(rec, []byte(id))
				err = sw.keys.Write(0, []byte(id), sw.record)
			}
		case model.EntryLock:
			id := model.KeyRef{Table: table, Key: sw.sc.KeyOf(table, it)}.ID()
			rec := binary.AppendUvarint(append(sw.record[:0], lockRecord), uint64(t))
			sw.record = appendBytes(appendBytes(rec, []byte(id)), span)
			err = sw.keys.Write(0, []byte(id), sw.record)
		}
	})
	if err = errors.Join(derr, err); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	sw.items += int64(p.examined)
	sw.pagesRead++
	sw.tell()
	return nil
}

// tell calls progress, if any; sw.mu is held, or nothing runs beside.
func (sw *sweep) tell() {
	if sw.progress != nil {
		sw.progress(backend.SweepProgress{Items: sw.items, Pages: sw.pagesRead, RCU: sw.reads.consumed(),
			Approx: sw.approx, Millis: sw.started.Elapsed().Milliseconds()})
	}
}

// match reads the partitions of keys one at a time and writes each lock
// an account should have and the scan found to found, by the account's
// window.
func (sw *sweep) match(ctx context.Context) error {
	first := make([]int, len(sw.filled)) // the place of each file's first account
	total := 0
	for f, n := range sw.filled {
		first[f], total = total, total+n
	}
	windows := min(max((total+sweepWindow-1)/sweepWindow, 1), sweepMaxFiles)
	sw.window = max((total+windows-1)/windows, 1)
	var err error
	if sw.found, err = spill.Create(sw.keys.Dir(), windows); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	for part := range sw.keys.Len() {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := readAll(sw.keys, part)
		if err != nil {
			return err
		}
		// The partition's locks first: an account's expectation may come
		// before or after the lock it expects.
		type lock struct {
			table uint64
			span  []byte
		}
		locks := map[string]lock{}
		r := records{b: data}
		for r.more() {
			if r.byte() == lockRecord {
				t, id, span := r.uvarint(), r.bytes(), r.bytes()
				locks[string(id)] = lock{t, span}
				continue
			}
			r.uvarint()
			r.uvarint()
			r.bytes()
		}
		for r = (records{b: data}); r.more(); {
			if r.byte() == lockRecord {
				r.uvarint()
				r.bytes()
				r.bytes()
				continue
			}
			file, at, id := r.uvarint(), r.uvarint(), r.bytes()
			l, ok := locks[string(id)]
			if !ok || r.failed {
				continue
			}
			place := first[file] + int(at)
			sw.record = appendBytes(binary.AppendUvarint(binary.AppendUvarint(sw.record[:0], uint64(place)), l.table), l.span)
			if err := sw.found.Append(place/sw.window, sw.record); err != nil {
				return fmt.Errorf("sweep: %w", err)
			}
		}
		if err := r.err(); err != nil {
			return fmt.Errorf("%w: %s", err, sw.keys.Path(part))
		}
	}
	return sw.flush(sw.found)
}

// hand reads the accounts back, file after file, judges them sweepChunk
// at a time from the locks matched to them (again from consistent reads
// where that shows a problem), the next chunks while one is handed on,
// and hands them on in the order read.
func (sw *sweep) hand(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	queue := make(chan chan judgedChunk, sweepAhead)
	g.Go(func() error {
		for res := range queue {
			j := <-res
			if j.err != nil {
				return j.err
			}
			if err := sw.stopped.Err(); err != nil {
				return err
			}
			sw.page(j.segment, j.views)
			sw.tell()
		}
		return nil
	})
	var judging sync.WaitGroup
	err := sw.readBack(gctx, func(chunk *accountChunk, matched map[int][]matchedLock) error {
		if err := gctx.Err(); err != nil {
			return err
		}
		res := make(chan judgedChunk, 1)
		select {
		case queue <- res:
		case <-gctx.Done():
			return gctx.Err()
		}
		judging.Go(func() {
			views, err := sw.judge(gctx, chunk, matched)
			res <- judgedChunk{segment: chunk.segment, views: views, err: err}
		})
		return nil
	})
	close(queue)
	herr := g.Wait()
	judging.Wait()
	if herr != nil {
		return herr // a chunk's reads failed, or ctx ended: reading back stopped for it
	}
	return err
}

// sweepAhead is how many chunks of accounts wait, judged or being
// judged, while one is handed on. More take more cores, but each holds
// its views: at 100,000 accounts on two busy cores, 2 or 4 saved 3% of
// the time it takes to hand them on and held 2 to 6 MB more at the peak.
const sweepAhead = 1

// judgedChunk is a chunk of one segment's accounts, judged, or why not.
type judgedChunk struct {
	segment int
	views   []model.AccountView
	err     error
}

// readBack reads the accounts back, file after file, and hands judge
// each chunk of them: at most sweepChunk accounts of one segment, and
// the window of matched locks they are in.
func (sw *sweep) readBack(ctx context.Context, judge func(*accountChunk, map[int][]matchedLock) error) error {
	var chunk *accountChunk
	window, matched := -1, map[int][]matchedLock(nil)
	place := 0
	for file := range sw.filled {
		f, err := sw.accounts.Open(file)
		if err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		if f == nil {
			continue
		}
		in := bufio.NewReader(f)
		for range sw.filled[file] {
			seg, err := binary.ReadUvarint(in)
			var size uint64
			if err == nil {
				size, err = binary.ReadUvarint(in)
			}
			if err != nil {
				f.Close()
				return fmt.Errorf("sweep: %s: %w", sw.accounts.Path(file), noEOF(err))
			}
			w := place / sw.window
			if chunk != nil && (chunk.segment != int(seg) || len(chunk.places) == sweepChunk || w != window) {
				if err := judge(chunk, matched); err != nil {
					f.Close()
					return err
				}
				chunk = nil
			}
			if w != window {
				if matched, err = sw.matched(w); err != nil {
					f.Close()
					return err
				}
				window = w
			}
			if chunk == nil {
				chunk = &accountChunk{segment: int(seg), json: []byte{'['}}
			} else {
				chunk.json = append(chunk.json, ',')
			}
			at := len(chunk.json)
			chunk.json = slices.Grow(chunk.json, int(size))[:at+int(size)]
			if _, err := io.ReadFull(in, chunk.json[at:]); err != nil {
				f.Close()
				return fmt.Errorf("sweep: %s: %w", sw.accounts.Path(file), noEOF(err))
			}
			chunk.places = append(chunk.places, place)
			place++
		}
		f.Close()
	}
	if chunk != nil {
		return judge(chunk, matched)
	}
	return ctx.Err()
}

// accountChunk is accounts of one segment read back: their places over
// every file, and the items as a JSON array (its closing bracket left
// out, as more may come).
type accountChunk struct {
	segment int
	places  []int
	json    []byte
}

// matchedLock is a lock matched to an account: its table's number in
// Schema.Tables, and the item as DynamoDB's JSON.
type matchedLock struct {
	table int
	span  []byte
}

// matched reads window w of the locks matched to accounts, by the
// accounts' places.
func (sw *sweep) matched(w int) (map[int][]matchedLock, error) {
	data, err := readAll(sw.found, w)
	if err != nil {
		return nil, err
	}
	m := map[int][]matchedLock{}
	r := records{b: data}
	for r.more() {
		place, t, span := r.uvarint(), r.uvarint(), r.bytes()
		m[int(place)] = append(m[int(place)], matchedLock{int(t), span})
	}
	return m, r.err()
}

// judge judges accounts, all of one segment, from the locks matched to
// them, and those that show a problem again from consistent reads of
// their locks and owners.
func (sw *sweep) judge(ctx context.Context, chunk *accountChunk, matched map[int][]matchedLock) ([]model.AccountView, error) {
	c := model.Classifier{Schema: sw.sc}
	d := itemDecoder{keep: true}
	accounts := make([]model.Item, 0, len(chunk.places))
	if err := d.eachRaw(append(chunk.json, ']'), func(it model.Item) { accounts = append(accounts, it) }); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	// The locks the scan found where each account's should be, in the
	// accounts' order.
	type foundLock struct{ account, table int }
	var found []foundLock
	var spans [][]byte
	for i, place := range chunk.places {
		for _, l := range matched[place] {
			spans, found = append(spans, l.span), append(found, foundLock{i, l.table})
		}
	}
	locks := make([]model.Item, 0, len(found))
	if err := d.eachRaw(jsonArray(spans), func(it model.Item) { locks = append(locks, it) }); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	// An owner that is another account is not looked up: such a lock
	// looks foreign, and is read again.
	nobody := func(string, int, string) bool { return false }
	now := model.Epoch(sw.core.now())
	tables := sw.sc.Tables()
	views := make([]model.AccountView, len(accounts))
	next := 0
	for i, it := range accounts {
		first := next
		for next < len(found) && found[next].account == i {
			next++
		}
		mine, theirs := found[first:next], locks[first:next]
		lockAt := func(r model.KeyRef) (model.Item, bool) {
			for k, f := range mine {
				if tables[f.table] == r.Table && holdsKey(theirs[k], r.Key) {
					return theirs[k], true
				}
			}
			return nil, false
		}
		views[i] = c.Judge(it, lockAt, nobody, now)
	}
	backend.MarkShared(views)
	var again []model.Item
	var at []int
	for i, v := range views {
		if v.Problematic() {
			again, at = append(again, v.Item), append(at, i)
		}
	}
	if len(again) > 0 {
		judged, err := backend.Judge(ctx, sw.sc, sw.core.reader(), again, now)
		if err != nil {
			return nil, err
		}
		for k, i := range at {
			views[i] = judged[k]
		}
	}
	return views, nil
}

// holdsKey reports whether item it has the string key key (a whole key:
// every key attribute of its table).
func holdsKey(it model.Item, key map[string]string) bool {
	for k, v := range key {
		if a, ok := it[k]; !ok || a.Kind != model.KindS || a.S != v {
			return false
		}
	}
	return true
}

// flush writes out what the sets hold.
func (sw *sweep) flush(sets ...*spill.Set) error {
	for _, set := range sets {
		if err := set.Flush(); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
	}
	return nil
}

// readAll reads partition i of set whole (nothing when none was written).
func readAll(set *spill.Set, i int) ([]byte, error) {
	f, err := set.Open(i)
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	return data, nil
}

// jsonArray is the JSON array of items, each a JSON object.
func jsonArray(items [][]byte) []byte {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']')
}

// appendBytes appends b with its length before it.
func appendBytes(buf, b []byte) []byte {
	return append(binary.AppendUvarint(buf, uint64(len(b))), b...)
}

// noEOF says that a file ended early.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// records reads the records of a spill file read whole. A record cut
// short leaves it failed: more says no more, and err why.
type records struct {
	b      []byte
	i      int
	failed bool
}

func (r *records) more() bool { return !r.failed && r.i < len(r.b) }

func (r *records) err() error {
	if r.failed {
		return fmt.Errorf("sweep: a spill file ends within a record")
	}
	return nil
}

func (r *records) byte() byte {
	if r.i >= len(r.b) {
		r.failed = true
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *records) uvarint() uint64 {
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.failed = true
		r.i = len(r.b)
		return 0
	}
	r.i += n
	return v
}

func (r *records) bytes() []byte {
	n := r.uvarint()
	if r.failed || uint64(len(r.b)-r.i) < n {
		r.failed = true
		r.i = len(r.b)
		return nil
	}
	b := r.b[r.i : r.i+int(n)]
	r.i += int(n)
	return b
}
