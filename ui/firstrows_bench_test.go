package ui

import (
	"context"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
)

// benchTable is the seeded table the large benchmarks read (bench/tui
// seeds it); they skip without one.
func benchTable(b *testing.B) (string, *dynamodb.Client, backend.Endpoint) {
	table := os.Getenv("LOCKTABLE_BENCH_TABLE")
	if table == "" || os.Getenv(dynamotest.EndpointEnv) == "" {
		b.Skip("set LOCKTABLE_BENCH_TABLE and LOCKTABLE_TEST_ENDPOINT (bench/tui does)")
	}
	client, ep := dynamotest.Client(b)
	return table, client, ep
}

// BenchmarkFirstRows compares the time to the first rows on screen (open
// the table, first page of accounts, rendered before their locks are
// read) with the floor under it: one bare Scan page of the same Limit.
func BenchmarkFirstRows(b *testing.B) {
	table, client, ep := benchTable(b)
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.Table = table
	const width, height = 120, 40
	ctx := context.Background()

	// The Limit the UI's first call uses: the first page holds the
	// accounts that fill the screen.
	want := accounts.FirstWant(listRows(height), len(sc.Constraints))
	limit := int32(min(max(want, 25), backend.BrowseLimit))

	b.Run("bare-scan-page", func(b *testing.B) {
		filter := expression.Name("PK").BeginsWith("ACCT#").And(expression.Name("SK").Equal(expression.Value("PROFILE")))
		expr, _ := expression.NewBuilder().WithFilter(filter).Build()
		for b.Loop() {
			if _, err := client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Limit: aws.Int32(limit),
				FilterExpression: expr.Filter(), ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(limit), "limit")
	})

	// The UI's start as the CLI runs it against a local endpoint (Open,
	// then the first page in the accounts view): the table's description
	// and the first page at once. The store is writable, so probed, but
	// only once the first rows are shown (Opened.Shown): the probes are
	// let go and waited for outside the timer, as a real start has the
	// emulator to itself.
	b.Run("locktable-first-rows", func(b *testing.B) {
		for b.Loop() {
			store := dynamo.NewStore(client, ep, sc, clock.System())
			store.SetWritable(true)
			opened, err := Open(ctx, store, store.Pages, OpenOptions{Constraints: len(store.Schema.Constraints), Probe: true, Height: height})
			if err != nil {
				b.Fatal(err)
			}
			m := New(ctx, Options{Roles: roles(store), Schema: store.Schema, Endpoint: store.Endpoint, NoCheck: true, First: opened.First, FirstLocks: opened.FirstLocks})
			next, _ := m.Update(tea.WindowSizeMsg{Width: width, Height: height})
			m = next.(Model)
			msg := m.views.accounts.Init()()
			next, _ = m.Update(msg)
			m = next.(Model)
			if !strings.Contains(m.View().Content, "UNIQ#EMAIL#") {
				b.Fatal("no lock rows on screen")
			}
			b.StopTimer()
			if _, err := opened.FirstLocks(); err != nil { // read after the rows, as in the UI
				b.Fatal(err)
			}
			opened.Shown()
			if _, err := opened.Capabilities(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
}
