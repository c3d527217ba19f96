package stream_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestFollowDynoxide: the normal path against dynoxide. A table without a
// stream is named with its enabling line; once enabled, a write made
// before Start is not delivered, and a transaction's three items arrive
// as three records with their keys and new images.
func TestFollowDynoxide(t *testing.T) {
	dynamotest.Endpoint(t)
	t.Parallel()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table := store.Schema.Table
	conn, err := dynamo.Connect(context.Background(), dynamo.ClientOptions{EndpointURL: dynamotest.Endpoint(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	_, err = stream.Find(ctx, conn.DynamoDB(), []string{table}, "http://x")
	var none *stream.NoStreamError
	if !errors.As(err, &none) || !slices.Equal(none.Tables, []string{table}) {
		t.Fatalf("Find on a table without a stream: %v; want a *NoStreamError naming it", err)
	}

	dynamotest.EnableStream(t, client, table)
	sources, err := stream.Find(ctx, conn.DynamoDB(), []string{table}, "")
	if err != nil || len(sources) != 1 || sources[0].View != "NEW_AND_OLD_IMAGES" || !sources[0].OldImages() {
		t.Fatalf("Find: %+v, %v", sources, err)
	}
	dynamotest.Put(t, client, table, dynamotest.Account("ACCT#before", "", ""))
	f := stream.NewFollower(conn.Streams(), sources, stream.Options{Clock: clock.System(), Poll: 50 * time.Millisecond})
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var items []types.TransactWriteItem
	for _, it := range []model.Item{dynamotest.Account("ACCT#a", "a@x.io", "ada"), dynamotest.Lock("UNIQ#EMAIL#a@x.io", "ACCT#a"), dynamotest.Lock("UNIQ#HANDLE#ada", "ACCT#a")} {
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: dynamo.ItemToSDK(it)}})
	}
	if _, err := client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		t.Fatal(err)
	}

	got := map[string]model.Change{}
	fctx, stop := context.WithCancel(ctx)
	err = f.Follow(fctx, func(_ context.Context, b stream.Batch) error {
		for _, c := range b.Changes {
			got[c.Keys["PK"].S] = c
		}
		if len(got) >= 3 {
			stop()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || ctx.Err() != nil {
		t.Fatalf("follow: %v; %d changes delivered: %v", err, len(got), got)
	}
	if _, ok := got["ACCT#before"]; ok {
		t.Error("a write made before Start was delivered")
	}
	for _, pk := range []string{"ACCT#a", "UNIQ#EMAIL#a@x.io", "UNIQ#HANDLE#ada"} {
		c, ok := got[pk]
		if !ok || c.Event != model.ChangeInsert || c.Table != table || c.Sequence == "" || c.At.IsZero() || c.New["PK"].S != pk || c.Old != nil {
			t.Errorf("%s: %+v", pk, c)
		}
	}
}
