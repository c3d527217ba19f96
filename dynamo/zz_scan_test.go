package dynamo_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/dynamo/dynamotest"
)

func zzScan(t *testing.T, client *dynamodb.Client, mod func(*dynamodb.ScanInput)) (int64, time.Duration) {
	return zzScanN(t, client, 4, mod)
}

func zzScanN(t *testing.T, client *dynamodb.Client, segs int, mod func(*dynamodb.ScanInput)) (int64, time.Duration) {
	start := time.Now()
	var n atomic.Int64
	g, ctx := errgroup.WithContext(context.Background())
	for seg := range segs {
		g.Go(func() error {
			in := &dynamodb.ScanInput{TableName: aws.String("bench-accounts"), Segment: aws.Int32(int32(seg)), TotalSegments: aws.Int32(int32(segs))}
			if segs == 1 {
				in.Segment, in.TotalSegments = nil, nil
			}
			mod(in)
			for {
				out, err := client.Scan(ctx, in)
				if err != nil {
					return err
				}
				n.Add(int64(len(out.Items)))
				if len(out.LastEvaluatedKey) == 0 {
					return nil
				}
				in.ExclusiveStartKey = out.LastEvaluatedKey
			}
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return n.Load(), time.Since(start)
}

func TestZZScans(t *testing.T) {
	client, _ := dynamotest.Client(t)
	mods := map[string]func(*dynamodb.ScanInput){
		"bare": func(*dynamodb.ScanInput) {},
		"proj": func(in *dynamodb.ScanInput) {
			in.ProjectionExpression = aws.String("#0, #1, #2, #3, #4")
			in.ExpressionAttributeNames = map[string]string{"#0": "PK", "#1": "SK", "#2": "owner", "#3": "email", "#4": "username"}
		},
		"acctfilter": func(in *dynamodb.ScanInput) {
			in.ProjectionExpression = aws.String("#0, #1, #2, #3, #4")
			in.FilterExpression = aws.String("begins_with(#0, :p) AND #1 = :s")
			in.ExpressionAttributeNames = map[string]string{"#0": "PK", "#1": "SK", "#2": "owner", "#3": "email", "#4": "username"}
			in.ExpressionAttributeValues = map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "ACCT#"}, ":s": &types.AttributeValueMemberS{Value: "PROFILE"}}
		},
		"nothing": func(in *dynamodb.ScanInput) {
			in.FilterExpression = aws.String("#3 IN (:a, :b)")
			in.ExpressionAttributeNames = map[string]string{"#3": "email"}
			in.ExpressionAttributeValues = map[string]types.AttributeValue{":a": &types.AttributeValueMemberS{Value: "x"}, ":b": &types.AttributeValueMemberS{Value: "ada.0@example.org"}}
		},
	}
	for range 3 {
		for _, k := range []string{"bare", "proj", "acctfilter", "nothing"} {
			n, d := zzScan(t, client, mods[k])
			t.Logf("%-10s %6d items %v", k, n, d.Round(time.Millisecond))
		}
	}
}

func TestZZSegs(t *testing.T) {
	client, _ := dynamotest.Client(t)
	nothing := func(in *dynamodb.ScanInput) {
		in.FilterExpression = aws.String("#3 = :a")
		in.ExpressionAttributeNames = map[string]string{"#3": "email"}
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":a": &types.AttributeValueMemberS{Value: "x"}}
	}
	keys := func(in *dynamodb.ScanInput) {
		in.ProjectionExpression = aws.String("#0, #1")
		in.ExpressionAttributeNames = map[string]string{"#0": "PK", "#1": "SK"}
	}
	for range 2 {
		for _, segs := range []int{1, 2, 4, 8} {
			n, d := zzScanN(t, client, segs, func(*dynamodb.ScanInput) {})
			n2, d2 := zzScanN(t, client, segs, nothing)
			n3, d3 := zzScanN(t, client, segs, keys)
			t.Logf("segs %d: bare %d %v nothing %d %v keys %d %v", segs, n, d.Round(time.Millisecond), n2, d2.Round(time.Millisecond), n3, d3.Round(time.Millisecond))
		}
	}
}
