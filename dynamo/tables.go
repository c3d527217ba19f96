package dynamo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// The unguarded writes below exist for seeding alone, which plants
// problems on purpose the way buggy code makes them. Each goes through the
// store's writer: a read-only store refuses them like any write.

// PutUnguarded writes an item as it is, without any condition: how buggy
// code skips the pattern.
func (s *Seeder) PutUnguarded(ctx context.Context, table string, it model.Item) error {
	u, err := s.PutRequest(table, it)
	if err != nil {
		return err
	}
	return s.SendUnguarded(ctx, u)
}

// DeleteUnguarded deletes the item at key without any condition.
func (s *Seeder) DeleteUnguarded(ctx context.Context, table string, key map[string]string) error {
	return s.SendUnguarded(ctx, DeleteRequest(table, key))
}

// SendOnce sends tx once, with none of Execute's retries, settling or
// audit: seeding only. cancelled reports a TransactionCanceledException
// (its guards kept the table as it was).
func (s *Seeder) SendOnce(ctx context.Context, tx backend.Tx) (cancelled bool, err error) {
	w, err := s.sender()
	if err != nil {
		return false, err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err = w.TransactWriteItems(cctx, Input(tx))
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return true, nil
	}
	if err != nil {
		return false, explain(err, "seed", s.Schema.Table, s.Endpoint)
	}
	return false, nil
}

// EnsureTables creates each missing table of the schema (string keys,
// on-demand) and waits until it is active. It returns the tables created.
func (s *Store) EnsureTables(ctx context.Context, indexes bool) ([]string, error) {
	var created []string
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	// One table at a time: minidyn's table map is not safe for concurrent
	// CreateTable (seen: "concurrent map writes" with --demo --layout
	// tables, a crash no probe could ask about), and a few tables created
	// in turn cost seconds at most.
	g.SetLimit(1)
	for _, table := range s.Schema.Tables() {
		g.Go(func() error {
			_, err := s.describe(gctx, table)
			var notFound *types.ResourceNotFoundException
			if err == nil || !errors.As(err, &notFound) {
				return err
			}
			if err := s.createTable(gctx, table, indexes && table == s.Schema.Table); err != nil {
				return err
			}
			mu.Lock()
			created = append(created, table)
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return created, s.Verify(ctx)
}

// IndexName is the name EnsureTables (seed --indexes) gives the GSI of a
// unique attribute.
func IndexName(attr string) string { return "by-" + attr }

func (s *Store) createTable(ctx context.Context, table string, indexes bool) error {
	in := &dynamodb.CreateTableInput{TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest}
	for _, k := range s.wantKeys(table) {
		in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(k.name), KeyType: k.role})
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(k.name), AttributeType: types.ScalarAttributeTypeS})
	}
	for _, c := range s.Schema.Constraints {
		if !indexes {
			break
		}
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(c.Attr), AttributeType: types.ScalarAttributeTypeS})
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(IndexName(c.Attr)),
			KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String(c.Attr), KeyType: types.KeyTypeHash}},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
		})
	}
	return s.create(ctx, in)
}

// create creates the table in says and waits until it is active.
func (s *Store) create(ctx context.Context, in *dynamodb.CreateTableInput) error {
	table := aws.ToString(in.TableName)
	w, err := s.sender()
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err = w.CreateTable(cctx, in)
	// Whatever was known of the table, it is new now (or, on an error,
	// unknown): the wait below describes it afresh.
	s.described.forget(table)
	if err != nil {
		return explain(err, "create table", table, s.Endpoint)
	}
	// Wait for ACTIVE. minidyn reports no status at all: treat that as active.
	for attempt := 1; ; attempt++ {
		desc, err := s.describe(ctx, table)
		if err != nil {
			return err
		}
		if desc.TableStatus == types.TableStatusActive || desc.TableStatus == "" {
			return s.enableTTL(ctx, table)
		}
		if attempt > 60 {
			return &Error{Msg: fmt.Sprintf("table %q at %s is still %s after a minute", table, s.Endpoint, desc.TableStatus)}
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return err
		}
	}
}
