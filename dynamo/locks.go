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
// lock prefixes, in each spelling) when any constraint keeps its locks
// there, then each lock table.
func (s *Pages) lockSources() []lockSource {
	sc := &s.Schema
	var src []lockSource
	var sks []string // in constraint order
	prefixes := map[string][]string{}
	var alts []string
	for _, c := range sc.Constraints {
		if c.InAccountTable() {
			sk := sc.LockSK
			if c.LockSK != "" {
				sk = c.LockSK // a sort key of its own (ElectroDB's constraints)
			}
			if _, ok := prefixes[sk]; !ok {
				sks = append(sks, sk)
			}
			prefixes[sk] = append(prefixes[sk], c.Prefix)
		}
		if c.AltPrefix != "" {
			alts = append(alts, c.AltPrefix)
		}
	}
	if len(sks) > 0 {
		f := s.lockFilter(prefixes[sks[0]], sks[0])
		for _, sk := range sks[1:] {
			f = f.Or(s.lockFilter(prefixes[sk], sk))
		}
		if len(alts) > 0 {
			f = f.Or(s.lockFilter(alts, sc.AltLockSK))
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

// lockFilter picks the items of the account table whose partition key
// starts with one of prefixes and whose sort key is the locks' sk.
func (s *Pages) lockFilter(prefixes []string, sk string) expression.ConditionBuilder {
	sc := &s.Schema
	var begins []expression.ConditionBuilder
	for _, p := range prefixes {
		begins = append(begins, expression.Name(sc.PK).BeginsWith(p))
	}
	f := begins[0]
	if len(begins) > 1 {
		f = expression.Or(begins[0], begins[1], begins[2:]...)
	}
	switch {
	case sc.SK != "" && sk == model.SameAsPK:
		f = f.And(expression.Name(sc.SK).Equal(expression.Name(sc.PK)))
	case sc.SK != "":
		f = f.And(expression.Name(sc.SK).Equal(expression.Value(sk)))
	}
	return f
}

// LocksPage reads at least want lock items from where from left off, the
// query the article calls "Query the UNIQ# prefix".
func (s *Pages) LocksPage(ctx context.Context, from backend.Cursor, want int) (backend.LockPage, error) {
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
			if l, ok := (model.Classifier{Schema: &s.Schema}).Lock(src.table, fromSDK(av)); ok {
				page.Locks = append(page.Locks, l)
			}
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
