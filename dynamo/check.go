package dynamo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// Check scans every table of the schema, reconciles accounts with locks and
// reports the problems that consistent reads confirm. progress, if not nil,
// is called after every page (never concurrently).
func (s *Checker) Check(ctx context.Context, progress func(model.CheckProgress)) (model.Report, error) {
	report, _, err := s.CheckFrom(ctx, nil, progress)
	return report, err
}

// CheckFrom is Check of the census that census returns (nil: a scan of
// every segment; a sharded check's merged parts), closed once confirmed.
// It also says how much the census spilled to disk past MaxMemory.
func (s *Checker) CheckFrom(ctx context.Context, census func() (*model.Census, error), progress func(model.CheckProgress)) (model.Report, model.SpillStats, error) {
	if census == nil {
		census = func() (*model.Census, error) { return s.Census(ctx, 0, s.Segments, progress) }
	}
	c, err := census()
	if err != nil {
		return model.Report{}, model.SpillStats{}, err
	}
	defer c.Close() // its spill files, if any, also on an error or an interrupt
	report, err := s.Confirm(ctx, c, progress)
	return report, c.Spilled(), err
}

// Census is the first half of a check: it scans segments [from, to) of
// s.Segments of every table into a census. A sharded check runs it in
// several processes and merges their censuses (Census.WritePart, model.Merger). Past
// s.MaxMemory the census spills to disk: the caller closes it.
func (s *Checker) Census(ctx context.Context, from, to int, progress func(model.CheckProgress)) (*model.Census, error) {
	if from < 0 || to > s.Segments || from >= to {
		return nil, fmt.Errorf("segments %d to %d of %d: not a range of the segments", from, to-1, s.Segments)
	}
	now := model.Epoch(s.now()) // the check's start: what "expired" means
	segments := s.scanSegments()
	if segments < s.Segments {
		// The backend reads the whole table for any segment: the first
		// reads it, the others nothing.
		if from > 0 {
			return model.NewCensus(&s.Schema, now), nil
		}
		to = 1
	}
	ctx, reads := withTally(ctx)
	census := model.NewCensus(&s.Schema, now)
	census.LimitMemory(s.MaxMemory)
	// One goroutine fills the census; the segment workers hand it their
	// pages and ask for the next one at once, instead of waiting their turn
	// at the census (merging per-segment censuses afterwards would redo
	// every insertion while nothing else runs). The queue holds a page per
	// worker, so the table's reads go on while the census catches up.
	pages := make(chan censusPage, min(segments, MaxScanWorkers))
	filled := make(chan error, 1)
	// A census that cannot take more (it could not spill) stops the scan:
	// the rest of it would be lost work.
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		// The census keeps strings, never items (scanPage.each).
		var d itemDecoder
		var err error
		for p := range pages {
			if err != nil {
				continue // drained, so that no worker waits
			}
			err = p.each(&d, func(it model.Item) { census.Add(p.table, it) })
			if err == nil {
				err = census.Err()
			}
			if err != nil {
				stop()
			}
			if progress != nil && err == nil {
				progress(model.CheckProgress{Phase: model.PhaseScan, Scanned: int64(census.Scanned), Approx: s.ApproxItems})
			}
		}
		filled <- err
	}()
	var err error
	for _, table := range s.Schema.Tables() {
		r := scanRequest{table: table, segments: segments, from: from, to: to, raw: true}
		if s.worthProjecting(table) {
			r.names = s.Schema.ReadNames(table)
		}
		err = s.scanPages(sctx, r, func(p scanPage) error {
			pages <- censusPage{table, p}
			return nil
		})
		if err != nil {
			break
		}
	}
	close(pages)
	if ferr := <-filled; ferr != nil {
		err = explain(ferr, "scan", s.Schema.Table, s.Endpoint) // the cause, not the scan it stopped
	}
	if err != nil {
		census.Close()
		return nil, err
	}
	census.ConsumedRCU = reads.consumed()
	return census, nil
}

// censusPage is one page of a scan of table, on its way to the census.
type censusPage struct {
	table string
	scanPage
}

// Confirm is the second half of a check: it confirms the candidate
// problems of census with strongly consistent reads (and, for orphan locks
// that name no owner, a lookup by value) and reports them.
func (s *Checker) Confirm(ctx context.Context, census *model.Census, progress func(model.CheckProgress)) (model.Report, error) {
	ctx, reads := withTally(ctx)
	scanned := int64(census.Scanned)
	report := func(phase model.CheckPhase) {
		if progress != nil {
			progress(model.CheckProgress{Phase: phase, Scanned: scanned, Approx: s.ApproxItems})
		}
	}
	candidates, err := census.Reconcile()
	if err != nil {
		return model.Report{}, err
	}
	var byKey, ownerless []model.Problem
	for _, p := range candidates {
		if model.NeedsRescan(p) {
			ownerless = append(ownerless, p)
		} else {
			byKey = append(byKey, p)
		}
	}
	report(model.PhaseConfirm)
	// Ownerless orphans are confirmed while the others are: their lookup
	// by value (a second scan, without an index) is the long part, and it
	// may start as soon as the main scan has ended.
	var more []model.Problem
	g, gctx := errgroup.WithContext(ctx)
	if len(ownerless) > 0 {
		g.Go(func() (err error) {
			more, err = s.confirmOwnerless(gctx, ownerless, census.Now())
			return err
		})
	}
	confirmed, err := s.confirmByKey(gctx, byKey, census.Now())
	if err != nil {
		// A failed lookup cancels gctx: its failure is the one to say,
		// not the cancellation it caused here.
		if werr := g.Wait(); werr != nil && errors.Is(err, context.Canceled) && ctx.Err() == nil {
			err = werr
		}
		return model.Report{}, err
	}
	if len(ownerless) > 0 && progress != nil {
		progress(model.CheckProgress{Phase: model.PhaseRescan, Scanned: scanned, Approx: s.ApproxItems, Confirmed: confirmed})
	}
	if err := g.Wait(); err != nil {
		return model.Report{}, err
	}
	if len(more) > 0 {
		confirmed = append(confirmed, more...)
		model.SortProblems(confirmed)
	}
	report(model.PhaseDone)
	r := census.Report(confirmed)
	if r.Rekeyed, err = s.rekeyed(ctx, r.Problems); err != nil {
		return model.Report{}, err
	}
	r.ConsumedRCU = math.Round((census.ConsumedRCU+reads.consumed())*10) / 10
	r.Warnings = append(r.Warnings, s.TTLUnasked...)
	return r, nil
}

// rekeyed finds the orphan locks of problems that locktable's casefold
// before 2026-12 wrote for a value held now (model.Rekeyed), by
// consistent reads of the accounts that may hold it: none where no
// orphan lock's value could be such a key.
func (s *Checker) rekeyed(ctx context.Context, problems []model.Problem) ([]model.Rekeyed, error) {
	refs := model.Rekeying{Schema: &s.Schema}.RekeyReads(problems)
	if len(refs) == 0 {
		return nil, nil
	}
	var accounts []model.Item
	if err := s.readConsistent(ctx, refs, func(_ string, it model.Item) { accounts = append(accounts, it) }); err != nil {
		return nil, fmt.Errorf("read the holders of locks keyed before casefold composed: %w", err)
	}
	return model.Rekeying{Schema: &s.Schema}.FindRekeyed(problems, accounts), nil
}

// projectAbove is the average item size past which a check's scan
// projects the items onto the attributes it reads: keys, an owner and a
// few unique values take well under it, so larger items carry more.
const projectAbove = 256

// worthProjecting reports whether the main scan of table should project
// its items (onto Schema.ReadNames). A projection costs the server work on every
// item (a fifth of a scan of small items, on dynoxide) and saves the
// transfer and decoding of what it leaves out, so it is worth it only
// when the items hold more than the check reads: when their average size,
// as the store's cached description reports it, passes projectAbove. An unknown
// size (AWS refreshes it every six hours; emulators report none) reads
// whole items.
func (s *Checker) worthProjecting(table string) bool {
	return s.described.itemBytes(table) > projectAbove
}

// confirmByKey re-reads the keys each candidate involves with strongly
// consistent reads and keeps those the fresh items still show.
func (s *Checker) confirmByKey(ctx context.Context, candidates []model.Problem, now int64) ([]model.Problem, error) {
	if len(candidates) == 0 {
		return []model.Problem{}, nil
	}
	var refs []model.KeyRef
	for _, p := range candidates {
		refs = append(refs, model.Classifier{Schema: &s.Schema}.Involved(p)...)
	}
	fresh := model.NewCensus(&s.Schema, now)
	if err := s.readConsistent(ctx, refs, fresh.Add); err != nil {
		return nil, err
	}
	return model.Confirm(candidates, fresh), nil
}

// confirmOwnerless confirms orphan locks that name no owner. No key read
// can show that nobody holds a value, so it re-reads the locks and then
// looks for holders of the values whose locks are still there: through the
// attribute's GSI where one is configured, else by a second scan of the
// accounts, which starts after the main scan ended (and after the locks
// were re-read). An in-pattern signup cannot commit while the lock exists,
// so what this finds settles it.
func (s *Checker) confirmOwnerless(ctx context.Context, candidates []model.Problem, now int64) ([]model.Problem, error) {
	sc := &s.Schema
	fresh := model.NewCensus(sc, now)
	var refs []model.KeyRef
	for _, p := range candidates {
		refs = append(refs, model.Classifier{Schema: sc}.Involved(p)...)
	}
	if err := s.readConsistent(ctx, refs, fresh.Add); err != nil {
		return nil, err
	}
	// A lock gone since the main scan needs no lookup: fresh already
	// shows it is no orphan. Each value looked for costs the rescan's
	// filter on every account, and none left spares the rescan.
	still := model.Confirm(candidates, fresh)
	wanted := make([]map[string]bool, len(sc.Constraints))
	for _, p := range still {
		ci := p.ConstraintIndex()
		if wanted[ci] == nil {
			wanted[ci] = map[string]bool{}
		}
		wanted[ci][p.Value] = true
	}
	if _, err := s.visitHolders(ctx, wanted, holderScan{segments: s.rescanSegments(), consistent: true},
		func(it model.Item, _ bool) { fresh.Add(sc.Table, it) }); err != nil {
		return nil, err
	}
	return model.Confirm(still, fresh), nil // what a holder turned up for drops out
}

// rescanSegments is how many segments the second scan reads. It returns
// few items, so its time is the server's reading of the table, which more
// segments share out: twice the main scan's. Measured on dynoxide (whose
// parallel scan sorts what is left of a segment for every page), a rescan
// of 92k items: 4 segments 538 ms naming 80 values, 484 ms with
// attribute_exists, 357 ms naming one; 8 segments 494, 449 and 321 ms; 16
// and 32 segments slower again (380 and 512 ms naming one).
// One segment stays one: a backend that ignores segments (minidyn) is
// scanned with one.
func (s *Checker) rescanSegments() int {
	segments := s.scanSegments()
	if segments <= 1 {
		return max(segments, 1)
	}
	return min(2*segments, MaxSegments)
}

// accountFilter selects account items, so that a scan for accounts skips
// the locks; more conditions are ANDed to it.
func (s *core) accountFilter(more ...expression.ConditionBuilder) *expression.ConditionBuilder {
	sc := &s.Schema
	var conds []expression.ConditionBuilder
	if sc.AccountPrefix != "" {
		conds = append(conds, expression.Name(sc.PK).BeginsWith(sc.AccountPrefix))
	}
	switch {
	case sc.SK != "" && sc.AccountSK == model.KeyInID: // sort keys of their own: the type says
	case sc.SK != "" && sc.AccountSK == model.SameAsPK:
		conds = append(conds, expression.Name(sc.SK).Equal(expression.Name(sc.PK)))
	case sc.SK != "":
		conds = append(conds, expression.Name(sc.SK).Equal(expression.Value(sc.AccountSK)))
	}
	if sc.AccountType.Attr != "" {
		conds = append(conds, expression.Name(sc.AccountType.Attr).Equal(expression.Value(sc.AccountType.Value)))
	}
	return and(append(conds, more...)...)
}

// and joins conditions in one flat AND: (a) AND (b) AND (c).
func and(conds ...expression.ConditionBuilder) *expression.ConditionBuilder {
	return join(expression.And, conds)
}

// join joins conditions with op (expression.And or Or) in one flat list,
// nil for none. Nesting them pairwise would be the same to DynamoDB, but
// minidyn's parser rejects it.
func join(op func(a, b expression.ConditionBuilder, more ...expression.ConditionBuilder) expression.ConditionBuilder,
	conds []expression.ConditionBuilder) *expression.ConditionBuilder {
	switch len(conds) {
	case 0:
		return nil
	case 1:
		return &conds[0]
	}
	c := op(conds[0], conds[1], conds[2:]...)
	return &c
}

// batchGetLimit is BatchGetItem's maximum number of keys per request.
const batchGetLimit = 100

// ReadConsistent reads the items at refs with strongly consistent
// BatchGetItem calls (up to four at once), retrying unprocessed keys, and
// hands each item found to visit with its table, one at a time. Missing
// items are simply not visited.
func (s *Pages) ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error {
	return s.readConsistent(ctx, refs, visit)
}

// readConsistent is ReadConsistent, for every role.
func (s *core) readConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error {
	seen := map[string]bool{}
	var pending []model.KeyRef
	for _, r := range refs {
		if id := keyID(r.Table, r.Key); !seen[id] {
			seen[id] = true
			pending = append(pending, r)
		}
	}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for len(pending) > 0 {
		n := min(len(pending), batchGetLimit)
		chunk := pending[:n]
		pending = pending[n:]
		g.Go(func() error {
			return s.batchGet(gctx, chunk, func(table string, it model.Item) {
				mu.Lock()
				defer mu.Unlock()
				visit(table, it)
			})
		})
	}
	return g.Wait()
}

// batchGet reads at most batchGetLimit keys, retrying unprocessed ones
// with backoff.
func (s *core) batchGet(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error {
	req := map[string]types.KeysAndAttributes{}
	for _, r := range refs {
		ka := req[r.Table]
		ka.ConsistentRead = aws.Bool(true)
		ka.Keys = append(ka.Keys, keyToSDK(r.Key))
		req[r.Table] = ka
	}
	for attempt := 0; len(req) > 0; attempt++ {
		if attempt > 0 {
			if attempt > 8 {
				return &Error{Msg: fmt.Sprintf("batch get at %s: keys still unprocessed after %d attempts (throttled?)", s.Endpoint, attempt)}
			}
			if err := sleep(ctx, backoff(attempt)); err != nil {
				return err
			}
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		out, err := s.api.BatchGetItem(cctx, &dynamodb.BatchGetItemInput{RequestItems: req})
		cancel()
		if err != nil {
			return explain(err, "batch get from", s.Schema.Table, s.Endpoint)
		}
		for table, items := range out.Responses {
			for _, av := range items {
				visit(table, fromSDK(av))
			}
		}
		req = out.UnprocessedKeys
	}
	return nil
}

// backoff is the wait before retry attempt n (1-based): exponential from
// 50 ms, capped at 2 s, with full jitter.
func backoff(n int) time.Duration {
	d := min(50*time.Millisecond<<n, 2*time.Second)
	return time.Duration(rand.Int64N(int64(d)) + 1)
}

// sleep waits d on the machine's timers, or until ctx ends (clock.Sleep).
func sleep(ctx context.Context, d time.Duration) error { return clock.System().Sleep(ctx, d) }
