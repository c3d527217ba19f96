package cli_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	locktable "github.com/locktable/locktable/model"
)

// TestMeasureWatchCost is what watch costs (issue 40, 4): the read units
// per stream record judged and the records judged per second, read from
// watch's own metrics (--metrics-addr), for each kind of write on a table
// of its own on dynoxide, and whether --max-rcu holds the confirming
// reads to a budget through a burst. It runs only when asked (make
// bench-watch), and prints each figure:
//
//	LOCKTABLE_TEST_MEASURE_WATCH=1 .ci/with-dynoxide go test ./cli -run TestMeasureWatchCost -v -timeout 20m
//
// LOCKTABLE_TEST_MEASURE_WATCH_OPS (default 200) is how many writes of each
// kind, LOCKTABLE_TEST_MEASURE_WATCH_BURST (default 10000) the burst's
// items, LOCKTABLE_TEST_MEASURE_WATCH_RCU (default 50) the budget a second
// burst runs under, of LOCKTABLE_TEST_MEASURE_WATCH_BUDGETED (default 3000)
// items: long enough that the budget's last read, which may take more
// than a second's worth at once, is a small part of it.
func TestMeasureWatchCost(t *testing.T) {
	if os.Getenv("LOCKTABLE_TEST_MEASURE_WATCH") == "" {
		t.Skip("set LOCKTABLE_TEST_MEASURE_WATCH=1 (make bench-watch)")
	}
	dynamotest.Endpoint(t)
	ops, burst := envInt("LOCKTABLE_TEST_MEASURE_WATCH_OPS", 200), envInt("LOCKTABLE_TEST_MEASURE_WATCH_BURST", 10000)
	budget, budgeted := envInt("LOCKTABLE_TEST_MEASURE_WATCH_RCU", 50), envInt("LOCKTABLE_TEST_MEASURE_WATCH_BUDGETED", 3000)
	kinds := []struct {
		name    string
		before  func(t *testing.T, c *dynamodb.Client, table string) // not watched
		write   func(t *testing.T, c *dynamodb.Client, table string) // watched
		records int
	}{
		{"signup (the account and its two locks, one transaction)", nil, func(t *testing.T, c *dynamodb.Client, table string) {
			for i := range ops {
				transact(t, c, table, signupItems(fmt.Sprintf("s%05d", i))...)
			}
		}, 3 * ops},
		{"rename (the account's email and its lock moved, one transaction)", func(t *testing.T, c *dynamodb.Client, table string) {
			for i := range ops {
				batchPut(t, c, table, signupItems(fmt.Sprintf("r%05d", i)))
			}
		}, func(t *testing.T, c *dynamodb.Client, table string) {
			for i := range ops {
				renameEmail(t, c, table, fmt.Sprintf("r%05d", i))
			}
		}, 3 * ops},
		{"a transaction of 3 items (three accounts without their locks)", nil, func(t *testing.T, c *dynamodb.Client, table string) {
			for i := range ops {
				var items []locktable.Item
				for j := range 3 {
					n := fmt.Sprintf("t%05d%d", i, j)
					items = append(items, dynamotest.Account("ACCT#"+n, n+"@x.io", n))
				}
				transact(t, c, table, items...)
			}
		}, 3 * ops},
		{fmt.Sprintf("a burst of %d writes (signups' items by BatchWriteItem)", burst), nil, burstOf(burst), burst},
	}
	for _, k := range kinds {
		rcu, perSecond := measureWatch(t, k.before, k.write, k.records)
		t.Logf("%-70s %6.2f RCU per record, %7.1f records judged per second", k.name, rcu, perSecond)
	}
	// A burst under --max-rcu: the confirming reads are paced.
	rate := budgetHeld(t, burstOf(budgeted), budgeted, budget)
	verdict := "PASS"
	if rate > float64(budget)*1.1 {
		verdict = "FAIL"
	}
	t.Logf("%-70s %6.1f RCU per second read, budget %d: %s", fmt.Sprintf("a burst of %d writes under --max-rcu %d", budgeted, budget), rate, budget, verdict)
	if verdict == "FAIL" {
		t.Errorf("under --max-rcu %d the burst's reads ran at %.1f RCU per second", budget, rate)
	}
}

// measureWatch watches a table of its own, made by before, and returns
// the read units per record and the records judged per second of write's
// records (records of them), from the moment write starts to the moment
// watch's metrics count them judged.
func measureWatch(t *testing.T, before, write func(*testing.T, *dynamodb.Client, string), records int, extra ...string) (rcuPerRecord, perSecond float64) {
	t.Helper()
	m := watchRun(t, before, write, records, extra...)
	last := m.samples[len(m.samples)-1]
	return last.read / last.judged, last.judged / last.at
}

// sample is what watch's metrics said at a moment of a measured run,
// from its start: seconds, records judged and read units since.
type sample struct{ at, judged, read float64 }

// measured is one run's samples, a poll of the metrics each.
type measured struct{ samples []sample }

// steadyRate is the read units per second between the samples where the
// reads reached 10% and 90% of the run's: a budget's first second and
// its last read, which may take more than a second's worth at once,
// left out.
func (m measured) steadyRate() float64 {
	total := m.samples[len(m.samples)-1].read
	from := slices.IndexFunc(m.samples, func(s sample) bool { return s.read >= total/10 })
	to := slices.IndexFunc(m.samples, func(s sample) bool { return s.read >= total*9/10 })
	a, b := m.samples[from], m.samples[to]
	return (b.read - a.read) / (b.at - a.at)
}

// watchRun watches a table of its own, made by before, while write
// writes records records, and samples watch's metrics until it has
// judged them.
func watchRun(t *testing.T, before, write func(*testing.T, *dynamodb.Client, string), records int, extra ...string) measured {
	t.Helper()
	store, client, flags := watchedTable(t)
	table := store.Schema.Table
	if before != nil {
		before(t, client, table)
	}
	w := startWatch(t, append(append([]string{"--json", "--metrics-addr", "127.0.0.1:0"}, extra...), flags...)...)
	go func() {
		for range w.stdout { // the lines are not measured, but must not back up
		}
	}()
	base := metricsAt(t, w.said)
	waitFor(t, "/readyz", func() (bool, string) { code, body := get(t, base+"/readyz"); return code == 200, body })
	at := scrape(t, base)
	judged0, read0 := at["locktable_changes_judged_total"].total(), at["locktable_read_units_total"].total()
	start := time.Now()
	write(t, client, table)
	var m measured
	for judged := 0.0; judged < float64(records); {
		if time.Since(start) > 15*time.Minute {
			t.Fatalf("after 15 min watch judged %v of %d records", judged, records)
		}
		time.Sleep(20 * time.Millisecond)
		at = scrape(t, base)
		judged = at["locktable_changes_judged_total"].total() - judged0
		m.samples = append(m.samples, sample{time.Since(start).Seconds(), judged, at["locktable_read_units_total"].total() - read0})
	}
	return m
}

// budgetHeld runs write's burst under --max-rcu budget and returns the
// read units per second watch read while it judged them (steadyRate).
func budgetHeld(t *testing.T, write func(*testing.T, *dynamodb.Client, string), records, budget int) float64 {
	t.Helper()
	return watchRun(t, nil, write, records, "--max-rcu", strconv.Itoa(budget)).steadyRate()
}

// burstOf writes n items, signups' items, by BatchWriteItem.
func burstOf(n int) func(*testing.T, *dynamodb.Client, string) {
	return func(t *testing.T, c *dynamodb.Client, table string) {
		var items []locktable.Item
		for i := 0; len(items) < n; i++ {
			items = append(items, signupItems(fmt.Sprintf("b%06d", i))...)
		}
		batchPut(t, c, table, items[:n])
	}
}

// signupItems are account n's items as a signup writes them.
func signupItems(n string) []locktable.Item {
	id := "ACCT#" + n
	return []locktable.Item{dynamotest.Account(id, n+"@x.io", n), dynamotest.Lock("UNIQ#EMAIL#"+n+"@x.io", id), dynamotest.Lock("UNIQ#HANDLE#"+n, id)}
}

// transact writes items in one TransactWriteItems.
func transact(t *testing.T, c *dynamodb.Client, table string, items ...locktable.Item) {
	t.Helper()
	var tx []types.TransactWriteItem
	for _, it := range items {
		tx = append(tx, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: dynamo.ItemToSDK(it)}})
	}
	if _, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: tx}); err != nil {
		t.Fatal(err)
	}
}

// renameEmail moves account n's email to n.new@x.io with its lock, in one
// transaction, as the pattern's rename does.
func renameEmail(t *testing.T, c *dynamodb.Client, table, n string) {
	t.Helper()
	id := "ACCT#" + n
	tx := []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(table), Item: dynamo.ItemToSDK(dynamotest.Account(id, n+".new@x.io", n))}},
		{Put: &types.Put{TableName: aws.String(table), Item: dynamo.ItemToSDK(dynamotest.Lock("UNIQ#EMAIL#"+n+".new@x.io", id))}},
		{Delete: &types.Delete{TableName: aws.String(table), Key: dynamo.ItemToSDK(locktable.Item{"PK": locktable.S("UNIQ#EMAIL#" + n + "@x.io"), "SK": locktable.S("LOCK")})}},
	}
	if _, err := c.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: tx}); err != nil {
		t.Fatal(err)
	}
}

// batchPut writes items 25 at a time (BatchWriteItem), retrying what is
// left unprocessed.
func batchPut(t *testing.T, c *dynamodb.Client, table string, items []locktable.Item) {
	t.Helper()
	for len(items) > 0 {
		n := min(25, len(items))
		var reqs []types.WriteRequest
		for _, it := range items[:n] {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: dynamo.ItemToSDK(it)}})
		}
		items = items[n:]
		pending := map[string][]types.WriteRequest{table: reqs}
		for len(pending) > 0 {
			out, err := c.BatchWriteItem(context.Background(), &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				t.Fatal(err)
			}
			pending = out.UnprocessedItems
		}
	}
}

// envInt is the positive integer in the environment variable name, or
// def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
