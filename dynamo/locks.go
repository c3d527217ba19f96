package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// lockSource is one table that holds locks, with the filter that picks
// them out of it.
type lockSource struct {
	table  string
	filter *expression.ConditionBuilder
}

// lockSources lists where locks live: the account table (filtered to the
// lock prefixes) when any constraint keeps its locks there, then each lock
// table.
func (s *Store) lockSources() []lockSource {
	sc := &s.Schema
	var src []lockSource
	var prefixes []expression.ConditionBuilder
	for _, c := range sc.Constraints {
		if c.InAccountTable() {
			prefixes = append(prefixes, expression.Name(sc.PK).BeginsWith(c.Prefix))
		}
	}
	if len(prefixes) > 0 {
		f := prefixes[0]
		if len(prefixes) > 1 {
			f = expression.Or(prefixes[0], prefixes[1], prefixes[2:]...)
		}
		switch {
		case sc.SK != "" && sc.LockSK == model.SameAsPK:
			f = f.And(expression.Name(sc.SK).Equal(expression.Name(sc.PK)))
		case sc.SK != "":
			f = f.And(expression.Name(sc.SK).Equal(expression.Value(sc.LockSK)))
		}
		src = append(src, lockSource{sc.Table, &f})
	}
	for _, c := range sc.Constraints {
		if !c.InAccountTable() {
			src = append(src, lockSource{table: c.LockTable})
		}
	}
	return src
}

// LocksPage reads at least want lock items from where from left off, the
// query the article calls "Query the UNIQ# prefix".
func (s *Store) LocksPage(ctx context.Context, from backend.Cursor, want int) (backend.LockPage, error) {
	sources := s.lockSources()
	var page backend.LockPage
	cur := from
	for calls := 0; !cur.Done() && len(page.Locks) < want && calls < maxCallsPerPage; calls++ {
		if cur.Table() >= len(sources) {
			cur = backend.End()
			break
		}
		src := sources[cur.Table()]
		in, err := s.scanInput(scanRequest{table: src.table, filter: src.filter}, 0)
		if err != nil {
			return page, err
		}
		in.ExclusiveStartKey, in.Limit = startKey(cur), aws.Int32(backend.BrowseLimit)
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		out, err := s.api.Scan(cctx, in)
		cancel()
		if err != nil {
			return page, explain(err, "scan", src.table, s.Endpoint)
		}
		for _, av := range out.Items {
			it := fromSDK(av)
			e := model.Classifier{Schema: &s.Schema}.Classify(src.table, it)
			if e.Kind != model.EntryLock {
				continue
			}
			table, key := s.Schema.LockKey(e.Constraint, e.Value)
			page.Locks = append(page.Locks, model.Lock{Constraint: e.Constraint, Value: e.Value, Table: table, Key: key, Item: it, Owner: e.Owner,
				ExpiresAt: s.Schema.LockTTL(e.Constraint, it)})
		}
		switch {
		case len(out.LastEvaluatedKey) > 0:
			cur = backend.Within(cur.Table(), fromSDK(out.LastEvaluatedKey))
		case cur.Table()+1 < len(sources):
			cur = backend.Within(cur.Table()+1, nil)
		default:
			cur = backend.End()
		}
	}
	page.Next = cur
	return page, nil
}
