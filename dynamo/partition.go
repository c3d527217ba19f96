package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// PartitionPage reads, with one strongly consistent Query, up to want
// items of the account table under partition key value pk, in sort key
// order, from where from left off: an account's detail shows what a
// single-table design keeps beside it (orders, sessions ...).
func (s *Pages) PartitionPage(ctx context.Context, pk string, from backend.Cursor, want int) (backend.ItemPage, error) {
	if from.Done() {
		return backend.ItemPage{Next: backend.End()}, nil
	}
	expr, err := expression.NewBuilder().WithKeyCondition(
		expression.Key(s.Schema.PK).Equal(expression.Value(pk))).Build()
	if err != nil {
		return backend.ItemPage{}, err
	}
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.Schema.Table),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ExclusiveStartKey:         startKey(from),
		Limit:                     aws.Int32(int32(min(max(want, 1), backend.BrowseLimit))),
		ConsistentRead:            aws.Bool(true),
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	out, err := s.api.Query(cctx, in)
	if err != nil {
		return backend.ItemPage{}, explain(err, "query", s.Schema.Table, s.Endpoint)
	}
	page := backend.ItemPage{Items: make([]model.Item, 0, len(out.Items)), Next: after(out.LastEvaluatedKey)}
	for _, av := range out.Items {
		page.Items = append(page.Items, fromSDK(av))
	}
	return page, nil
}

// OthersPage reads at least want items of the account table that are
// neither accounts nor locks (model.EntryOther, what the check counts as
// Report.Others) from where from left off, fewer at the end of the table
// or after maxCallsPerPage scan calls: a table of few such items answers
// with what it found, and the next page goes on.
func (s *Pages) OthersPage(ctx context.Context, from backend.Cursor, want int) (backend.ItemPage, error) {
	page := backend.ItemPage{Next: from}
	classifier := model.Classifier{Schema: &s.Schema}
	in := &dynamodb.ScanInput{TableName: aws.String(s.Schema.Table), Limit: aws.Int32(backend.BrowseLimit)}
	for calls := 0; !page.Next.Done() && len(page.Items) < want && calls < maxCallsPerPage; calls++ {
		in.ExclusiveStartKey = startKey(page.Next)
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		out, err := s.api.Scan(cctx, in)
		cancel()
		if err != nil {
			return page, explain(err, "scan", s.Schema.Table, s.Endpoint)
		}
		for _, av := range out.Items {
			if it := fromSDK(av); classifier.Classify(s.Schema.Table, it).Kind == model.EntryOther {
				page.Items = append(page.Items, it)
			}
		}
		page.Next = after(out.LastEvaluatedKey)
	}
	return page, nil
}
