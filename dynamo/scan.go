package dynamo

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/model"
)

// scanRequest is one table scan: what to read and how.
type scanRequest struct {
	table    string
	names    []string                     // attributes to project; nil reads whole items
	filter   *expression.ConditionBuilder // nil reads every item
	segments int
	// consistent makes every page a strongly consistent read.
	consistent bool
	// from and to (exclusive; 0: all) choose which of the segments this
	// process reads: a sharded check splits them between processes.
	from, to int
	// raw leaves the items undecoded by the SDK (scanPage.raw), where the
	// client allows it (a *dynamodb.Client does; a fake answers decoded).
	raw bool
}

// scanInput builds the Scan input of one segment from the request.
func (s *core) scanInput(r scanRequest, segment int) (*dynamodb.ScanInput, error) {
	in := &dynamodb.ScanInput{TableName: aws.String(r.table)}
	if s.PageSize > 0 {
		in.Limit = aws.Int32(s.PageSize)
	}
	if r.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if r.segments > 1 {
		in.Segment, in.TotalSegments = aws.Int32(int32(segment)), aws.Int32(int32(r.segments))
	}
	b := expression.NewBuilder()
	use := false
	if r.filter != nil {
		b, use = b.WithFilter(*r.filter), true
	}
	if projectable(r.names) {
		var names []expression.NameBuilder
		for _, n := range r.names {
			names = append(names, expression.Name(n))
		}
		b, use = b.WithProjection(expression.NamesList(names[0], names[1:]...)), true
	}
	if !use {
		return in, nil
	}
	expr, err := b.Build()
	if err != nil {
		return nil, err
	}
	in.FilterExpression = expr.Filter()
	in.ProjectionExpression = expr.Projection()
	in.ExpressionAttributeNames = expr.Names()
	in.ExpressionAttributeValues = expr.Values()
	return in, nil
}

// projectable reports whether names can be projected: expression.Name reads
// '.' and '[' as document paths, so attributes named with them are read
// whole instead.
func projectable(names []string) bool {
	if len(names) == 0 {
		return false
	}
	for _, n := range names {
		if strings.ContainsAny(n, ".[]") {
			return false
		}
	}
	return true
}

// MaxSegments is the most segments DynamoDB divides a parallel scan into.
const MaxSegments = 1_000_000

// MaxScanWorkers is how many segments of a parallel scan are read at once.
// DynamoDB allows up to 1,000,000 segments; more at once would only queue
// on the connection pool and hold a goroutine and a page each.
const MaxScanWorkers = 16

// scanPage is one page of a scan.
type scanPage struct {
	segment int
	// items are the page's items as the SDK decoded them; with
	// scanRequest.raw, raw holds them instead, undecoded (see rawItems).
	items []map[string]types.AttributeValue
	raw   []byte
	// examined is how many items the page read: more than it returned
	// when filtered.
	examined int
}

// each hands visit every item of the page in turn, decoded by d. The item
// is valid only during the call: the maps are reused, where a map per item
// would be garbage at once for a reader that keeps strings only.
func (p scanPage) each(d *itemDecoder, visit func(model.Item)) error {
	if p.raw != nil {
		return d.eachRaw(p.raw, visit)
	}
	d.eachSDK(p.items, visit)
	return nil
}

// eachSpan is each that also hands visit the item as DynamoDB's JSON (a
// JSON object, which itemDecoder.eachRaw reads from an array of them):
// its bytes in the answer, or, for a page the SDK decoded, written anew.
// The bytes, like the item, are valid only during the call.
func (p scanPage) eachSpan(d *itemDecoder, visit func(it model.Item, span []byte)) error {
	if p.raw != nil {
		return d.eachRawSpan(p.raw, visit)
	}
	var err error
	d.eachSDK(p.items, func(it model.Item) {
		if err != nil {
			return
		}
		var span []byte
		if span, err = json.Marshal(it); err == nil {
			visit(it, span)
		}
	})
	return err
}

// scanPages reads a table in parallel segments, handing each page to
// visit. Pages may be short or empty when filtered; the scan goes on while
// LastEvaluatedKey is set. At most MaxScanWorkers segments are read at
// once (eachSegment); after an error no further segment starts. visit
// runs concurrently for different segments, never for the same one.
func (s *core) scanPages(ctx context.Context, r scanRequest, visit func(scanPage) error) error {
	return s.eachSegment(ctx, r, func(ctx context.Context, seg int, in *dynamodb.ScanInput) error {
		return s.scanSegment(ctx, r, seg, in, visit)
	})
}

// eachSegment hands read each segment of r with the Scan input of its
// first page. At most MaxScanWorkers segments are read at once, each by
// a worker that takes the next segment when it is done with one, so
// nothing is held per segment beyond those in progress; after an error no
// further segment starts, and the context of those in progress ends.
func (s *core) eachSegment(ctx context.Context, r scanRequest, read func(ctx context.Context, seg int, in *dynamodb.ScanInput) error) error {
	if r.segments < 1 {
		r.segments = 1
	}
	base, err := s.scanInput(r, 0)
	if err != nil {
		return err
	}
	end := r.segments
	if r.to > 0 {
		end = min(r.to, r.segments)
	}
	var next atomic.Int64 // the next segment to start
	next.Store(int64(r.from))
	g, ctx := errgroup.WithContext(ctx)
	for range min(end-r.from, MaxScanWorkers) {
		g.Go(func() error {
			for {
				seg := int(next.Add(1) - 1)
				if seg >= end {
					return nil
				}
				if err := ctx.Err(); err != nil {
					return explain(err, "scan", r.table, s.Endpoint)
				}
				in := *base
				if r.segments > 1 {
					in.Segment = aws.Int32(int32(seg))
				}
				if err := read(ctx, seg, &in); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

// scanSegment reads segment seg page by page, from in to its last page.
func (s *core) scanSegment(ctx context.Context, r scanRequest, seg int, in *dynamodb.ScanInput, visit func(scanPage) error) error {
	var cut *rawItems
	var opts []func(*dynamodb.Options)
	if r.raw {
		cut = &rawItems{}
		opts = append(opts, cut.option)
	}
	for {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		out, err := s.api.Scan(cctx, in, opts...)
		cancel()
		if err != nil {
			return explain(err, "scan", r.table, s.Endpoint)
		}
		// A page read at least what it returned: minidyn (the demo) leaves
		// ScannedCount out, and every count of items read said 0.
		p := scanPage{segment: seg, items: out.Items, examined: int(max(out.ScannedCount, out.Count))}
		if cut != nil {
			p.raw, cut.raw = cut.raw, nil
		}
		if err := visit(p); err != nil {
			return err
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		next := *in
		next.ExclusiveStartKey = out.LastEvaluatedKey
		in = &next
	}
}
