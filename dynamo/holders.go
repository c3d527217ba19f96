package dynamo

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// LookupHolders finds the accounts that hold each wanted value now: through
// the attribute's GSI where --index names one (the index is eventually
// consistent, so each account it lists is confirmed by a consistent read),
// otherwise by one strongly consistent scan of the account items for all
// the values at once.
func (s *Lookup) LookupHolders(ctx context.Context, wanted []backend.Wanted) (backend.HolderLookup, error) {
	sc := &s.Schema
	found := backend.NewLookup("")
	var methods []string
	scan := false
	values := make([]map[string]bool, len(sc.Constraints))
	for _, w := range wanted {
		if values[w.Constraint] == nil {
			values[w.Constraint] = map[string]bool{}
		}
		values[w.Constraint][w.Value] = true
		if !s.byIndex(w.Constraint) {
			scan = true
			continue
		}
		if m := "index " + sc.Constraints[w.Constraint].Index; !slices.Contains(methods, m) {
			methods = append(methods, m)
		}
	}
	if scan {
		methods = append(methods, backend.ScanMethod)
	}
	add := func(it model.Item) { found.AddHolder(sc, wanted, it) }
	candidates := map[string]bool{}
	read, err := s.visitHolders(ctx, values, holderScan{segments: s.scanSegments(), consistent: true, accounts: true},
		func(it model.Item, fromIndex bool) {
			switch {
			case fromIndex:
				if id, ok := it[sc.PK]; ok && id.Kind == model.KindS {
					candidates[id.S] = true
				}
			case model.Classifier{Schema: sc}.Classify(sc.Table, it).Kind == model.EntryAccount:
				add(it)
			}
		})
	found.ItemsRead = read
	if err != nil {
		return found, err
	}
	if err := s.readAccounts(ctx, slices.Collect(maps.Keys(candidates)), add); err != nil {
		return found, err
	}
	found.Method = strings.Join(methods, " and ")
	return found, found.ReadLocks(ctx, sc, s, wanted)
}

// holderScan is how visitHolders scans for the holders of values whose
// constraints have no index.
type holderScan struct {
	segments   int
	consistent bool
	// accounts ANDs accountFilter to holderFilter, so that only account
	// items come back. The check does without: its census classifies
	// what comes back (see holderFilter for the cost).
	accounts bool
	// progress, if set, is told after each page how many items the scan
	// has examined so far.
	progress func(examined int64)
}

// visitHolders finds the accounts that hold one of the wanted values
// (wanted[ci]: the normalized values of constraint ci, nil for none):
// through the constraint's GSI where it has one, a few queries at once,
// and for the others by one scan (holderFilter), run beside the queries.
// visit gets each item that holds a value looked for, one call at a time,
// with whether an index query found it (the index is eventually
// consistent; an item found both ways comes once from each); the item is
// valid only during the call. It returns how many items the queries and
// the scan read.
func (s *core) visitHolders(ctx context.Context, wanted []map[string]bool, opts holderScan, visit func(it model.Item, fromIndex bool)) (int64, error) {
	sc := &s.Schema
	// The scan looks only for the values without an index; an index
	// query's item counts for any value.
	holds := func(it model.Item, fromIndex bool) bool {
		for ci, vals := range wanted {
			if vals == nil || (!fromIndex && s.byIndex(ci)) {
				continue
			}
			if h, v := sc.Held(ci, it); h == model.HoldsValue && vals[v] {
				return true
			}
		}
		return false
	}
	var mu sync.Mutex // serializes visit and progress
	var read atomic.Int64
	var examined int64
	g, gctx := errgroup.WithContext(ctx)
	queries := make(chan struct{}, maxIndexQueries)
	scan := false
	for ci, vals := range wanted {
		if len(vals) == 0 {
			continue
		}
		if !s.byIndex(ci) {
			scan = true
			continue
		}
		for v := range vals {
			g.Go(func() error {
				queries <- struct{}{}
				defer func() { <-queries }()
				return s.queryIndex(gctx, ci, v, func(it model.Item) {
					read.Add(1)
					if holds(it, true) {
						mu.Lock()
						defer mu.Unlock()
						visit(it, true)
					}
				})
			})
		}
	}
	if scan {
		_, comparisons := s.readCapabilities()
		filter := s.holderFilter(wanted, comparisons)
		if opts.accounts {
			filter = s.accountFilter(*filter)
		}
		r := scanRequest{table: sc.Table, names: sc.ReadNames(sc.Table), filter: filter,
			segments: opts.segments, consistent: opts.consistent, raw: true}
		g.Go(func() error {
			return s.scanPages(gctx, r, func(p scanPage) error {
				read.Add(int64(p.examined))
				var d itemDecoder // one per page: pages of several segments arrive at once
				err := p.each(&d, func(it model.Item) {
					if holds(it, false) {
						mu.Lock()
						defer mu.Unlock()
						visit(it, false)
					}
				})
				if err == nil && opts.progress != nil {
					mu.Lock()
					defer mu.Unlock()
					examined += int64(p.examined)
					opts.progress(examined)
				}
				return err
			})
		})
	}
	err := g.Wait()
	return read.Load(), err
}

// maxIndexQueries is how many index queries for holders run at once.
const maxIndexQueries = 8

// byIndex reports whether constraint ci's holders can be found by value on
// a GSI. Only without normalization: the index holds raw values, and under
// lower or casefold "Ada" and "ada" are one value.
func (s *core) byIndex(ci int) bool { return s.Schema.Constraints[ci].Indexed() }

// maxFilterValues is the most values a rescan's filter names (attr IN
// (...)): past it, the filter asks only that the attribute exist, and the
// values are matched here. DynamoDB reads every item either way; what
// differs is the filter's cost on each account against sending the
// accounts back. Measured on dynoxide, 30,640 accounts (92k items), 8
// segments, alternating rounds: each value named costs about 1.9 ms (20
// values: 379 ms, 80: 494 ms), attribute_exists about 440 ms whatever the
// number (every account comes back, projected); the lines cross at about
// 50 values. (The expression stays well under DynamoDB's 4 KB.)
const maxFilterValues = 48

// inListLimit is the most operands DynamoDB takes in one IN list.
const inListLimit = 100

// holderFilter narrows a scan for holders (the rescan for ownerless
// orphans, a write's holder lookup, find) to the items that may hold one
// of the wanted values of the constraints without an index, ORed over the
// constraints: attr IN (v1, ...) in lists of inListLimit; or
// attribute_exists(attr) where the stored value cannot be compared with
// the wanted one (normalized: "Ada" holds "ada"; scoped: the value carries
// the scope), where the values are more than maxFilterValues in all, or
// on a backend that fails a whole scan when a comparison meets an
// attribute of another type (comparisons false: minidyn).
// What comes back is matched by its value (model.Held), and the check's
// census classifies it, so the check's filter need not select accounts: a
// condition on the key would cost more comparisons on every item
// (measured: 506 ms against 494 for 80 values).
func (s *core) holderFilter(wanted []map[string]bool, comparisons bool) *expression.ConditionBuilder {
	n := 0
	for ci, vals := range wanted {
		if vals != nil && !s.byIndex(ci) {
			n += len(vals)
		}
	}
	var conds []expression.ConditionBuilder
	for ci, vals := range wanted {
		if vals == nil || s.byIndex(ci) {
			continue
		}
		c := s.Schema.Constraints[ci]
		if c.Normalize != model.NormalizeNone || c.Scope != "" || n > maxFilterValues || !comparisons {
			conds = append(conds, expression.AttributeExists(expression.Name(c.Attr)))
			continue
		}
		sorted := slices.Sorted(maps.Keys(vals))
		for chunk := range slices.Chunk(sorted, inListLimit) {
			ops := make([]expression.OperandBuilder, len(chunk))
			for i, v := range chunk {
				ops[i] = expression.Value(v)
			}
			conds = append(conds, expression.Name(c.Attr).In(ops[0], ops[1:]...))
		}
	}
	return join(expression.Or, conds)
}

// queryIndex visits the accounts whose attribute of constraint ci is v,
// through the constraint's GSI.
func (s *core) queryIndex(ctx context.Context, ci int, v string, visit func(model.Item)) error {
	c := s.Schema.Constraints[ci]
	expr, err := expression.NewBuilder().
		WithKeyCondition(expression.Key(c.Attr).Equal(expression.Value(v))).Build()
	if err != nil {
		return err
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.Schema.Table),
		IndexName:                 aws.String(c.Index),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
	}
	for {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		out, err := s.api.Query(cctx, in)
		cancel()
		if err != nil {
			return explain(err, "query index "+c.Index+" of", s.Schema.Table, s.Endpoint)
		}
		for _, av := range out.Items {
			visit(fromSDK(av))
		}
		if len(out.LastEvaluatedKey) == 0 {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// ConfirmHolders is LookupHolders when the holders to expect are known
// already (backend.ConfirmHolders).
func (s *Lookup) ConfirmHolders(ctx context.Context, wanted []backend.Wanted, candidates map[backend.Wanted][]string) (backend.HolderLookup, error) {
	return s.byKey().ConfirmHolders(ctx, wanted, candidates)
}

// readAccounts reads the account items of ids with consistent reads.
func (s *Lookup) readAccounts(ctx context.Context, ids []string, visit func(model.Item)) error {
	sc := &s.Schema
	var refs []model.KeyRef
	for _, id := range ids {
		refs = append(refs, model.KeyRef{Table: sc.Table, Key: sc.AccountKey(id)})
	}
	return s.readConsistent(ctx, refs, func(_ string, it model.Item) {
		if (model.Classifier{Schema: sc}).Classify(sc.Table, it).Kind == model.EntryAccount {
			visit(it)
		}
	})
}

// TakenBy looks for other holders of the values plan p would lock (see
// LookupHolders) and returns what it read and the values taken. p is the
// plan as prepared, whose guards say when a lock's TTL is judged. A plan
// that locks no new value needs no lookup.
func (s *Lookup) TakenBy(ctx context.Context, p model.Plan) (backend.HolderLookup, []backend.Taken, error) {
	values := backend.NewValues(p)
	if len(values) == 0 {
		return backend.HolderLookup{}, nil, nil
	}
	lookup, err := s.LookupHolders(ctx, values)
	if err != nil {
		return lookup, nil, err
	}
	return lookup, backend.TakenValues(p, lookup), nil
}

// Refuse reports plan p as cancelled before it was sent, because values it
// would lock are held by other accounts, and records it in the audit log.
func (s *Writer) Refuse(p model.Plan, taken []backend.Taken) model.Result {
	res := model.Result{Operation: p.Operation, Keys: p.Keys, Outcome: model.Cancelled, Reasons: []model.Reason{}}
	for _, t := range taken {
		res.Reasons = append(res.Reasons, t.Reason(&s.Schema))
	}
	e := s.outcomeEntry(res)
	e.Event = EventRefused
	e.Reason = "holder lookup: " + res.Reasons[0].Message
	_ = s.record(e)
	return res
}
