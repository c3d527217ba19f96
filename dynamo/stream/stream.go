// Package stream follows the DynamoDB streams of a pattern's tables: it
// finds each table's stream, reads every shard from now (or from the
// oldest record kept), a child after its parent, and hands on each write
// as a model.Change. It survives what a long follow meets: shards that
// close and split, iterators that expire, records trimmed before they
// were read, throttling; a stream disabled while it is followed ends the
// follow with a *DisabledError. Reading a stream costs no read capacity.
package stream

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// API is the part of the DynamoDB Streams client the follower uses, with
// the SDK's exact signatures, so that *dynamodbstreams.Client satisfies
// it and tests can fake it.
type API interface {
	DescribeStream(context.Context, *dynamodbstreams.DescribeStreamInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(context.Context, *dynamodbstreams.GetShardIteratorInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(context.Context, *dynamodbstreams.GetRecordsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var _ API = (*dynamodbstreams.Client)(nil)

// TableAPI describes a table, whose description names its stream.
type TableAPI interface {
	DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
}

var _ TableAPI = (*dynamodb.Client)(nil)

// Source is the stream of one table.
type Source struct {
	Table string
	ARN   string
	// View is what each record carries of the item: KEYS_ONLY, NEW_IMAGE,
	// OLD_IMAGE or NEW_AND_OLD_IMAGES.
	View string
}

// OldImages reports whether the records carry the item as it was before
// the write: without, a deleted account's values, and so the locks it
// leaves behind, are unknown.
func (s Source) OldImages() bool { return s.View == "OLD_IMAGE" || s.View == "NEW_AND_OLD_IMAGES" }

// NoStreamError names the tables that have no stream enabled.
type NoStreamError struct {
	Tables []string
	// Endpoint is the --endpoint-url the tables were found at, "" on AWS.
	Endpoint string
}

func (e *NoStreamError) Error() string {
	var lines []string
	for _, t := range e.Tables {
		lines = append(lines, EnableCommand(t, e.Endpoint))
	}
	return fmt.Sprintf("table %s has no stream to follow; enable one with: %s",
		strings.Join(e.Tables, ", "), strings.Join(lines, " && "))
}

// EnableCommand is the AWS CLI line that enables a stream of old and new
// images on table, at endpoint ("" for AWS itself).
func EnableCommand(table, endpoint string) string {
	line := "aws dynamodb update-table --table-name " + table +
		" --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES"
	if endpoint != "" {
		line += " --endpoint-url " + endpoint
	}
	return line
}

// Find describes each table and returns its stream, in the order given.
// Tables without an enabled stream are an error, a *NoStreamError naming
// every one of them; endpoint goes into its enabling lines.
func Find(ctx context.Context, api TableAPI, tables []string, endpoint string) ([]Source, error) {
	var found []Source
	var missing []string
	for _, table := range tables {
		out, err := api.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			return nil, fmt.Errorf("describe table %s: %w", table, err)
		}
		d := out.Table
		// After a stream is disabled, AWS still names it as the latest.
		if d == nil || d.StreamSpecification == nil || !aws.ToBool(d.StreamSpecification.StreamEnabled) || aws.ToString(d.LatestStreamArn) == "" {
			missing = append(missing, table)
			continue
		}
		found = append(found, Source{Table: table, ARN: aws.ToString(d.LatestStreamArn), View: string(d.StreamSpecification.StreamViewType)})
	}
	if len(missing) > 0 {
		return nil, &NoStreamError{Tables: missing, Endpoint: endpoint}
	}
	return found, nil
}

// DisabledError is a stream that was disabled (or deleted with its
// table) while it was followed.
type DisabledError struct {
	Table string
	Err   error // what said so, if an error did
}

func (e *DisabledError) Error() string {
	return "the stream of table " + e.Table + " was disabled while it was followed"
}

func (e *DisabledError) Unwrap() error { return e.Err }
