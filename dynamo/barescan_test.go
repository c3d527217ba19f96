package dynamo

import (
	"context"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"
)

// BareScan is the baseline of the speed figures (BenchmarkBareScan): a
// parallel SDK Scan of table in segments, whole items decoded by the SDK,
// that only counts them.
func BareScan(ctx context.Context, client *dynamodb.Client, table string, segments int) (int64, error) {
	var items atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for seg := range segments {
		g.Go(func() error {
			in := &dynamodb.ScanInput{TableName: aws.String(table), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(int32(segments))}
			for {
				out, err := client.Scan(gctx, in)
				if err != nil {
					return err
				}
				items.Add(int64(len(out.Items)))
				if len(out.LastEvaluatedKey) == 0 {
					return nil
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
		})
	}
	err := g.Wait()
	return items.Load(), err
}
