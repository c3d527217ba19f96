package dynamo

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/startuptrace"
	"github.com/locktable/locktable/model"
)

// startKey is the ExclusiveStartKey a read from c sends: none at the start
// of a table.
func startKey(c backend.Cursor) map[string]types.AttributeValue {
	if len(c.Key()) == 0 {
		return nil
	}
	return ItemToSDK(c.Key())
}

// maxCallsPerPage bounds how many short filtered pages one page request
// chains, so that a table with few accounts still answers promptly.
const maxCallsPerPage = 20

// AccountsPage reads at least want accounts from where from left off (fewer
// at the end of the table), each with its locks read consistently.
// consistent makes the scan itself strongly consistent (a reload).
func (s *Pages) AccountsPage(ctx context.Context, from backend.Cursor, want int, consistent bool) (backend.AccountPage, error) {
	// The tables' TTL settings judge the page's locks: asked (once per
	// store) while the page is read, and waited for before it is judged
	// (and before returning at all: nothing is left running).
	ttl := make(chan struct{})
	go func() { s.readTTL(ctx); close(ttl) }()
	defer func() { <-ttl }()
	items, next, err := s.accounts(ctx, from, want, consistent)
	if err != nil {
		return backend.AccountPage{}, err
	}
	<-ttl
	views, err := s.judge(ctx, items)
	return backend.AccountPage{Accounts: views, Next: next}, err
}

// FirstAccounts reads the first want accounts (at least; fewer in a
// smaller table) without their locks: each lock of a value held is
// model.LockUnread, for JudgeAccounts to read. The first rows are drawn
// from it while the locks are read. The tables' TTL settings are asked
// meanwhile, as AccountsPage asks them.
func (s *Pages) FirstAccounts(ctx context.Context, want int) (backend.AccountPage, error) {
	go s.readTTL(ctx) // JudgeAccounts waits for it
	items, next, err := s.accounts(ctx, backend.Cursor{}, want, false)
	if err != nil {
		return backend.AccountPage{}, err
	}
	return backend.AccountPage{Accounts: backend.Unread(&s.Schema, items, model.Epoch(s.now())), Next: next}, nil
}

// JudgeAccounts reads the locks of accounts (the items FirstAccounts
// read), consistently, and returns each account's view as AccountsPage
// would have.
func (s *Pages) JudgeAccounts(ctx context.Context, accounts []model.Item) ([]model.AccountView, error) {
	s.readTTL(ctx)
	return s.judge(ctx, accounts)
}

// judge reads the locks of items and judges them, now.
func (s *Pages) judge(ctx context.Context, items []model.Item) ([]model.AccountView, error) {
	// TTLs are judged as the locks are read: now (the store's Clock), as
	// the check judges them at its start.
	views, err := backend.Judge(ctx, &s.Schema, s, items, model.Epoch(s.now()))
	if err != nil {
		return nil, err
	}
	startuptrace.Mark("locks")
	return views, nil
}

// accounts reads at least want account items from where from left off
// (fewer at the end of the table), and the cursor after them.
func (s *Pages) accounts(ctx context.Context, from backend.Cursor, want int, consistent bool) ([]model.Item, backend.Cursor, error) {
	var items []model.Item
	cur := from
	for calls := 0; !cur.Done() && len(items) < want && calls < maxCallsPerPage; calls++ {
		// The first call asks for about what is wanted, so the first rows
		// come with one small page and one BatchGetItem; calls that fill a
		// short filtered page take BrowseLimit.
		limit := int32(backend.BrowseLimit)
		if calls == 0 {
			limit = int32(min(max(want, 25), backend.BrowseLimit))
		}
		got, next, err := s.accountsCall(ctx, cur, consistent, limit)
		if err != nil {
			return nil, cur, err
		}
		items = append(items, got...)
		cur = next
	}
	startuptrace.Mark("first page")
	if s.AccountsIndex != "" && len(items) > 0 {
		// An index may project only keys: read the accounts themselves.
		refs := make([]model.KeyRef, len(items))
		for i, it := range items {
			refs[i] = model.KeyRef{Table: s.Schema.Table, Key: s.Schema.AccountKey(s.Schema.AccountID(it))}
		}
		full := map[string]model.Item{}
		if err := s.readConsistent(ctx, refs, func(_ string, it model.Item) { full[s.Schema.AccountID(it)] = it }); err != nil {
			return nil, cur, err
		}
		kept := items[:0]
		for _, it := range items {
			if f, ok := full[s.Schema.AccountID(it)]; ok {
				kept = append(kept, f)
			}
		}
		items = kept
	}
	return items, cur, nil
}

// accountsCall is one Scan (or, with an accounts index, one Query or index
// Scan) of account items.
func (s *Pages) accountsCall(ctx context.Context, from backend.Cursor, consistent bool, limit int32) ([]model.Item, backend.Cursor, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var (
		raw  []map[string]types.AttributeValue
		last map[string]types.AttributeValue
	)
	if s.AccountsIndex != "" {
		in, err := s.accountsIndexQuery()
		if err != nil {
			return nil, from, err
		}
		in.ExclusiveStartKey, in.Limit = startKey(from), aws.Int32(limit)
		if in.KeyConditionExpression == nil {
			// A sparse index: every item in it is an account.
			out, err := s.api.Scan(cctx, &dynamodb.ScanInput{TableName: in.TableName, IndexName: in.IndexName, ExclusiveStartKey: in.ExclusiveStartKey, Limit: in.Limit})
			if err != nil {
				return nil, from, explain(err, "scan index "+s.AccountsIndex+" of", s.Schema.Table, s.Endpoint)
			}
			raw, last = out.Items, out.LastEvaluatedKey
		} else {
			out, err := s.api.Query(cctx, in)
			if err != nil {
				return nil, from, explain(err, "query index "+s.AccountsIndex+" of", s.Schema.Table, s.Endpoint)
			}
			raw, last = out.Items, out.LastEvaluatedKey
		}
	} else {
		in, err := s.scanInput(scanRequest{table: s.Schema.Table, filter: s.accountFilter()}, 0)
		if err != nil {
			return nil, from, err
		}
		in.ExclusiveStartKey, in.Limit = startKey(from), aws.Int32(limit)
		in.ConsistentRead = aws.Bool(consistent)
		out, err := s.api.Scan(cctx, in)
		if err != nil {
			return nil, from, explain(err, "scan", s.Schema.Table, s.Endpoint)
		}
		raw, last = out.Items, out.LastEvaluatedKey
	}
	items := make([]model.Item, 0, len(raw))
	for _, av := range raw {
		it := fromSDK(av)
		// An index may hold other items too: keep accounts only.
		if (model.Classifier{Schema: &s.Schema}).Classify(s.Schema.Table, it).Kind == model.EntryAccount {
			items = append(items, it)
		}
	}
	return items, after(last), nil
}

// after is the cursor of a one-table read that ended on last (its
// LastEvaluatedKey): the end when there is none.
func after(last map[string]types.AttributeValue) backend.Cursor {
	if len(last) == 0 {
		return backend.End()
	}
	return backend.Within(0, fromSDK(last))
}

// AccountsIndex names a GSI that lists account items (--accounts-index):
// one whose hash key is the sort key attribute is queried for the account
// sort key (the inverted index of single-table designs); any other is read
// as a sparse index that holds only accounts.
func (s *Pages) accountsIndexQuery() (*dynamodb.QueryInput, error) {
	in := &dynamodb.QueryInput{TableName: aws.String(s.Schema.Table), IndexName: aws.String(s.AccountsIndex)}
	if s.accountsIndexHash != s.Schema.SK || s.Schema.SK == "" || s.Schema.AccountSK == model.SameAsPK || s.Schema.AccountSK == model.KeyInID {
		return in, nil
	}
	expr, err := expression.NewBuilder().WithKeyCondition(
		expression.Key(s.Schema.SK).Equal(expression.Value(s.Schema.AccountSK))).Build()
	if err != nil {
		return nil, err
	}
	in.KeyConditionExpression = expr.KeyCondition()
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = expr.Names(), expr.Values()
	return in, nil
}

// UseAccountsIndex makes the browser list accounts through the GSI name,
// after checking that the account table has it.
func (s *Store) UseAccountsIndex(ctx context.Context, name string) error {
	desc, err := s.describe(ctx, s.Schema.Table)
	if err != nil {
		return err
	}
	for _, g := range desc.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) != name {
			continue
		}
		for _, k := range g.KeySchema {
			if k.KeyType == types.KeyTypeHash {
				s.accountsIndexHash = aws.ToString(k.AttributeName)
			}
		}
		s.AccountsIndex = name
		return nil
	}
	var names []string
	for _, g := range desc.GlobalSecondaryIndexes {
		names = append(names, aws.ToString(g.IndexName))
	}
	return &Error{Msg: fmt.Sprintf("table %q at %s has no index %q (it has: %v)", s.Schema.Table, s.Endpoint, name, names)}
}

// Account reads one account by its key value with a consistent read;
// found is false when there is none.
func (s *Pages) Account(ctx context.Context, id string) (view model.AccountView, found bool, err error) {
	return s.byKey().Account(ctx, id)
}

// Lock reads the lock of constraint ci for value v, normalized first, with
// a consistent read: the lock an account holding v would have.
func (s *Pages) Lock(ctx context.Context, ci int, v string) (model.Item, bool, error) {
	return s.byKey().Lock(ctx, ci, v)
}

// LockAt reads the lock of constraint ci whose key holds raw exactly as
// stored, with a consistent read, in either spelling (backend.LockAt).
func (s *Pages) LockAt(ctx context.Context, ci int, raw string) (model.Item, bool, error) {
	return s.byKey().LockAt(ctx, ci, raw)
}

// Holders finds, for each constraint of cis, the keys of the accounts that
// hold value v: through the attribute's GSI when one is configured, and for
// all the others by one filtered scan of the account items, reporting the
// items scanned as it goes. Whoever shows them reads them consistently.
func (s *Lookup) Holders(ctx context.Context, cis []int, v string, progress func(scanned int64)) ([][]string, error) {
	ids := make([][]string, len(cis))
	want := make([]string, len(cis)) // v as each constraint normalizes it
	wanted := make([]map[string]bool, len(s.Schema.Constraints))
	for i, ci := range cis {
		want[i] = s.Schema.Constraints[ci].Normalize.Apply(v)
		wanted[ci] = map[string]bool{want[i]: true}
	}
	_, err := s.visitHolders(ctx, wanted, holderScan{segments: 1, accounts: true, progress: progress},
		func(it model.Item, _ bool) {
			for i, ci := range cis {
				if h, hv := s.Schema.Held(ci, it); h == model.HoldsValue && hv == want[i] {
					ids[i] = append(ids[i], s.Schema.AccountID(it))
				}
			}
		})
	if err != nil {
		return nil, err
	}
	for i := range ids {
		slices.Sort(ids[i])
		ids[i] = slices.Compact(ids[i])
	}
	return ids, nil
}
