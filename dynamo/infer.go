package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// lockSample bounds the items read from each table that may hold locks:
// a layout-2 inference looks at every table of the endpoint.
const lockSample = 200

// Tables lists the tables at the endpoint, every page of ListTables.
func Tables(ctx context.Context, api API, ep backend.Endpoint) ([]string, error) {
	var names []string
	in := &dynamodb.ListTablesInput{}
	for {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		out, err := api.ListTables(cctx, in)
		cancel()
		if err != nil {
			return nil, explain(err, "list tables", "", ep)
		}
		names = append(names, out.TableNames...)
		if out.LastEvaluatedTableName == nil {
			return names, nil
		}
		in.ExclusiveStartTableName = out.LastEvaluatedTableName
	}
}

// InferSchema reads table's key schema and a sample of at most n items
// (one Scan page), and, when the table is keyed by a hash key alone, a
// sample of every other table keyed by a string hash key alone, which may
// hold its locks; then proposes a schema (model.InferSchema) and says what
// it saw.
// When the backend cannot list its tables (minidyn), the tables in known
// are the candidates.
func InferSchema(ctx context.Context, api API, ep backend.Endpoint, table string, n int32, known []string) (model.Schema, []string, error) {
	main, err := sample(ctx, api, ep, table, n)
	if err != nil {
		return model.Schema{}, nil, err
	}
	var others []model.Sample
	var notes []string
	if main.SK == "" {
		names, err := Tables(ctx, api, ep)
		if err != nil {
			names = known
			notes = append(notes, fmt.Sprintf("cannot list the tables (%v): looked at %v only", errText(err), known))
		}
		for _, name := range names {
			if name == table {
				continue
			}
			o, err := sample(ctx, api, ep, name, min(n, lockSample))
			var gone *types.ResourceNotFoundException
			if errors.As(err, &gone) {
				continue // deleted since it was listed: it holds no lock of ours
			}
			if err != nil {
				return model.Schema{}, nil, err
			}
			if o.SK == "" {
				others = append(others, o)
			}
		}
	}
	s, found, err := model.InferSchema(main, others)
	return s, append(notes, found...), err
}

// sample describes table and reads one page of at most n items.
func sample(ctx context.Context, api API, ep backend.Endpoint, table string, n int32) (model.Sample, error) {
	sm := model.Sample{Table: table}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	desc, err := api.DescribeTable(cctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	cancel()
	if err != nil {
		return sm, explain(err, "describe table", table, ep)
	}
	for _, k := range desc.Table.KeySchema {
		if k.KeyType == types.KeyTypeHash {
			sm.PK = aws.ToString(k.AttributeName)
		} else {
			sm.SK = aws.ToString(k.AttributeName)
		}
	}
	if sm.PK == "" {
		return sm, fmt.Errorf("table %q at %s has no hash key", table, ep)
	}
	cctx, cancel = context.WithTimeout(ctx, callTimeout)
	out, err := api.Scan(cctx, &dynamodb.ScanInput{TableName: aws.String(table), Limit: aws.Int32(n)})
	cancel()
	if err != nil {
		return sm, explain(err, "scan", table, ep)
	}
	for _, av := range out.Items {
		sm.Items = append(sm.Items, fromSDK(av))
	}
	return sm, nil
}

// InferSchema is the package's InferSchema through the store's client.
// The schema's own tables stand in where the backend cannot list its
// tables.
func (s *Store) InferSchema(ctx context.Context, table string, n int32) (model.Schema, []string, error) {
	return InferSchema(ctx, s.api, s.Endpoint, table, n, s.Schema.Tables())
}

// Tables lists the tables at the store's endpoint.
func (s *Store) Tables(ctx context.Context) ([]string, error) { return Tables(ctx, s.api, s.Endpoint) }

// ItemCount is table's approximate item count (DescribeTable's ItemCount,
// refreshed by AWS every few hours): for the table picker, not decisions.
func (s *Store) ItemCount(ctx context.Context, table string) (int64, error) {
	desc, err := s.describe(ctx, table)
	if err != nil {
		return 0, err
	}
	return aws.ToInt64(desc.ItemCount), nil
}
