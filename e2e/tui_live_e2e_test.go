package e2e

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// liveWait bounds how long a write someone else made may take to show:
// the "within 5 s", a timeout, not a speed assertion.
const liveWait = 5 * time.Second

// TestTUIFollowsTheStream drives the binary in a 120x40 terminal against
// dynoxide, on a table with a stream (issue 28, the table live): a rename
// and a delete made through the SDK, with no key pressed, show within 5 s
// in the accounts view, then in the locks and problems views, the
// problems they leave counted in the header.
func TestTUIFollowsTheStream(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table := store.Schema.Table
	var items []model.Item
	for _, h := range []string{"ada", "bob", "ren"} {
		id := "ACCT#" + h
		items = append(items, dynamotest.Account(id, h+"@x.io", h), dynamotest.Lock("UNIQ#EMAIL#"+h+"@x.io", id), dynamotest.Lock("UNIQ#HANDLE#"+h, id))
	}
	dynamotest.Put(t, client, table, items...)
	dynamotest.EnableStream(t, client, table)

	tm := startTUISized(t, 120, 40, "--endpoint-url", ep, "--table", table)
	tm.start()
	following := regexp.MustCompile(`│\s+live\s*(│|$)`)
	tm.waitFor("the stream followed", func(s string) bool { return hasLine(s, following) && strings.Contains(s, "ACCT#ren") })
	tm.waitText("the check", "no problems")
	// The locks and problems views read once, before the writes: what
	// they show after is what the stream brought.
	tm.keys("2")
	tm.waitText("the locks view", "UNIQ#HANDLE#ren")
	tm.keys("3")
	tm.waitText("the problems view", "no problems")
	tm.keys("1")
	tm.waitText("the accounts view", "ACCT#ren")

	ctx := context.Background()
	key := func(pk, sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: sk}}
	}
	// Renamed by hand, its locks left as they were.
	if _, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(table), Key: key("ACCT#ren", "PROFILE"),
		UpdateExpression: aws.String("SET username = :u"), ExpressionAttributeValues: map[string]types.AttributeValue{":u": &types.AttributeValueMemberS{Value: "renata"}}}); err != nil {
		t.Fatal(err)
	}
	tm.waitWithin("the rename in the accounts view", liveWait, func(s string) bool { return strings.Contains(s, "username=renata") })
	// Deleted by hand, its locks left behind.
	if _, err := client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: key("ACCT#bob", "PROFILE")}); err != nil {
		t.Fatal(err)
	}
	tm.waitWithin("the delete in the accounts view", liveWait, func(s string) bool {
		return !hasLine(s, regexp.MustCompile(`^..ACCT#bob\s`)) && strings.Contains(s, "orphan")
	})

	tm.keys("2")
	tm.waitWithin("the locks view", liveWait, func(s string) bool {
		return hasLine(s, regexp.MustCompile(`UNIQ#EMAIL#bob@x\.io\s.*orphan\s*$`)) && hasLine(s, regexp.MustCompile(`UNIQ#HANDLE#ren\s.*orphan\s*$`))
	})
	tm.keys("3")
	tm.waitWithin("the problems view", liveWait, func(s string) bool {
		return strings.Contains(s, "orphan_lock (3)") && strings.Contains(s, "missing_lock (1)") && strings.Contains(s, "renata")
	})
	if got := tm.quit(); got != "EXIT=0" {
		t.Errorf("after q: %q, want EXIT=0", got)
	}
}

// TestTUILapsingReservation: a reservation whose TTL passes while the UI
// is open turns expired on screen on its own, no key pressed (issue 28:
// the time words run with the clock).
func TestTUILapsingReservation(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.TTLAttr, sc.TTLGiven = "ttl", true
	store, client := dynamotest.Store(t, sc)
	table := store.Schema.Table
	soon := dynamotest.Lock("UNIQ#EMAIL#soon@x", "")
	soon["ttl"] = model.N(strconv.FormatInt(time.Now().Add(10*time.Second).Unix(), 10))
	dynamotest.Put(t, client, table, dynamotest.Account("ACCT#ada", "ada@x", "ada"), dynamotest.Lock("UNIQ#EMAIL#ada@x", "ACCT#ada"), soon)

	tm := startTUISized(t, 120, 40, "--endpoint-url", ep, "--table", table)
	tm.start()
	tm.waitFor("the check", func(s string) bool { return strings.Contains(s, "resv 1") || strings.Contains(s, "reserved 1") })
	tm.keys("2")
	tm.waitFor("the reservation", func(s string) bool {
		return hasLine(s, regexp.MustCompile(`UNIQ#EMAIL#soon@x\s.*reserved \d+ s more\s+reserved\s*$`))
	})
	tm.waitWithin("the reservation lapsed", 15*time.Second, func(s string) bool {
		return hasLine(s, regexp.MustCompile(`UNIQ#EMAIL#soon@x\s.*expired \d+ s ago\s+expired\s*$`))
	})
	if got := tm.quit(); got != "EXIT=0" {
		t.Errorf("after q: %q, want EXIT=0", got)
	}
}
