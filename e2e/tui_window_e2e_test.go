package e2e

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/rows"
)

// accountKeyRow is an account's row on screen: its key.
var accountKeyRow = regexp.MustCompile(`(?m)^[ ▸] (ACCT#\S+)`)

// TestTUIGThenGAtAnySize (issue 41, 1 and 2): on a table of 100,000
// accounts (LOCKTABLE_TEST_WINDOW_ACCOUNTS sets another size) in an 80x24
// terminal, G reads every account at once, holding a window of them, and
// shows the last one listed, the status counting every row; g shows the
// first account again, as the first screen showed it, from disk.
func TestTUIGThenGAtAnySize(t *testing.T) {
	n := 100_000
	if v := os.Getenv("LOCKTABLE_TEST_WINDOW_ACCOUNTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			t.Fatalf("LOCKTABLE_TEST_WINDOW_ACCOUNTS=%q: want a positive integer", v)
		}
	}
	ep, table := bulkTable(t, n)
	// G reads every account at once, in one parallel scan of 4 segments:
	// it lists them after those the first screen listed, segment after
	// segment, each in the order its scan reads them.
	first, _ := firstAndLastAccount(t, table, 0)
	_, last := firstAndLastAccount(t, table, 4)
	tm := startTUISized(t, 80, 24, "--endpoint-url", ep, "--table", table, "--segments", "4")
	tm.start()
	screen := tm.waitFor("the first accounts", func(s string) bool { return accountKeyRow.MatchString(s) })
	if got := accountKeyRow.FindStringSubmatch(screen)[1]; got != first {
		t.Fatalf("the first screen's first account is %s, the table's first %s:\n%s", got, first, screen)
	}
	tm.keys("G")
	all := rows.Count(int64(3 * n))
	at := fmt.Sprintf("row %s of %s", all, all)
	screen = tm.waitWithin("the last row, every account listed", 5*time.Minute, func(s string) bool {
		return strings.Contains(s, at) && !strings.Contains(s, "more below")
	})
	shown := accountKeyRow.FindAllStringSubmatch(screen, -1)
	if len(shown) == 0 || shown[len(shown)-1][1] != last {
		t.Fatalf("after G the last account on screen is not the table's last, %s:\n%s", last, screen)
	}
	tm.keys("g")
	screen = tm.waitFor("the first row", func(s string) bool { return strings.Contains(s, "row 1 of ") })
	if got := accountKeyRow.FindStringSubmatch(screen); got == nil || got[1] != first {
		t.Fatalf("after g the first account on screen is not %s:\n%s", first, screen)
	}
	if got := tm.quit(); got != "EXIT=0" {
		t.Fatalf("quit: %s", got)
	}
}

// bulkTable makes a table of n accounts, each with its two locks, on the
// emulator (written in batches, not in the signups seed makes: a hundred
// thousand of those take minutes), and marks the test parallel; it
// returns the endpoint and the table.
func bulkTable(t *testing.T, n int) (ep, table string) {
	t.Helper()
	ep = dynamotest.Endpoint(t)
	t.Parallel()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table = store.Schema.Table
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(2)              // the emulator serves the other tests meanwhile
	const accountsPerBatch = 8 // 24 items of the 25 a batch takes
	for from := 0; from < n; from += accountsPerBatch {
		g.Go(func() error {
			var writes []types.WriteRequest
			for i := from; i < min(from+accountsPerBatch, n); i++ {
				id, email, handle := fmt.Sprintf("ACCT#%08d", i), fmt.Sprintf("u%d@x.io", i), fmt.Sprintf("u%d", i)
				for _, it := range []model.Item{dynamotest.Account(id, email, handle), dynamotest.Lock("UNIQ#EMAIL#"+email, id), dynamotest.Lock("UNIQ#HANDLE#"+handle, id)} {
					writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: dynamo.ItemToSDK(it)}})
				}
			}
			for len(writes) > 0 {
				out, err := client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: writes}})
				if err != nil {
					return err
				}
				writes = out.UnprocessedItems[table]
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("writing %d accounts: %v", n, err)
	}
	return ep, table
}

// firstAndLastAccount are the keys of the first and the last account a
// scan of table reads, in its order: of all of it (segments 0), or of
// the last of that many segments.
func firstAndLastAccount(t *testing.T, table string, segments int32) (first, last string) {
	t.Helper()
	client, _ := dynamotest.Client(t)
	in := &dynamodb.ScanInput{TableName: aws.String(table), FilterExpression: aws.String("SK = :p"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "PROFILE"}}}
	if segments > 0 {
		in.Segment, in.TotalSegments = aws.Int32(segments-1), aws.Int32(segments)
	}
	p := dynamodb.NewScanPaginator(client, in)
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			pk := it["PK"].(*types.AttributeValueMemberS).Value
			if first == "" {
				first = pk
			}
			last = pk
		}
	}
	return first, last
}
