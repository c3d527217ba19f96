package ui

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// countingAPI counts the Scan and Query calls that reach DynamoDB, and the
// index each Query used.
type countingAPI struct {
	dynamo.API
	scans, queries, indexQueries atomic.Int32
}

func (c *countingAPI) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	c.scans.Add(1)
	return c.API.Scan(ctx, in, opts...)
}

func (c *countingAPI) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.queries.Add(1)
	if in.IndexName != nil {
		c.indexQueries.Add(1)
	}
	return c.API.Query(ctx, in, opts...)
}

// TestAccountsThroughInvertedIndex: with --accounts-index naming a GSI
// keyed SK then PK (the inverted index of single-table designs), the
// accounts view lists accounts by querying it for SK = PROFILE, never
// scanning the table.
func TestAccountsThroughInvertedIndex(t *testing.T) {
	t.Parallel()
	client, ep := dynamotest.Client(t)
	sc := dynamotest.Rename(t, model.DefaultSchema(model.LayoutSingle))
	// Keys only: the accounts must be read in full, not judged from the index.
	dynamotest.TableWithIndex(t, client, sc.Table, "inverted", "SK", "PK", types.ProjectionTypeKeysOnly)
	dynamotest.Put(t, client, sc.Table,
		acct("ACCT#a1", "ada@x.io", "ada"), lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), lock("UNIQ#HANDLE#ada", "ACCT#a1"),
		acct("ACCT#b2", "bob@x.io", "bob"), lock("UNIQ#EMAIL#bob@x.io", "ACCT#b2"),
		lock("UNIQ#HANDLE#ghost", ""),
		model.Item{"PK": model.S("CONFIG"), "SK": model.S("SETTINGS")},
	)
	api := &countingAPI{API: client}
	store, err := dynamo.Open(context.Background(), api, ep, sc, clock.System())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.UseAccountsIndex(context.Background(), "inverted"); err != nil {
		t.Fatal(err)
	}
	store.Endpoint = testEndpoint
	api.scans.Store(0) // Open's read probe (three one-item scans)

	d := newDriver(t, Options{Roles: roles(store), NoCheck: true}, 100, 30)
	d.ready()
	d.wantRows(
		"ACCT#a1 email=ada@x.io username=ada",
		"└ UNIQ#EMAIL#ada@x.io owner ACCT#a1 ok",
		"└ UNIQ#HANDLE#ada owner ACCT#a1 ok",
		"ACCT#b2 email=bob@x.io username=bob problem",
		"└ UNIQ#EMAIL#bob@x.io owner ACCT#b2 ok",
		"└ UNIQ#HANDLE#bob expected, not found missing",
	)
	if n := d.m.views.accounts.Pager().Count(); n != 2 {
		t.Errorf("%d accounts listed, want 2", n)
	}
	if s, q := api.scans.Load(), api.indexQueries.Load(); s != 0 || q == 0 {
		t.Errorf("%d scans and %d index queries: want the accounts from the index alone", s, q)
	}

	// Control: without the index the same view scans the table.
	papi := &countingAPI{API: client}
	plain, err := dynamo.Open(context.Background(), papi, ep, sc, clock.System())
	if err != nil {
		t.Fatal(err)
	}
	papi.scans.Store(0)
	p := newDriver(t, Options{Roles: roles(plain), NoCheck: true}, 100, 30)
	p.ready()
	if n := p.m.views.accounts.Pager().Count(); n != 2 {
		t.Errorf("without the index, %d accounts listed, want 2", n)
	}
	if papi.scans.Load() == 0 || papi.queries.Load() != 0 {
		t.Errorf("without the index: %d scans, %d queries", papi.scans.Load(), papi.queries.Load())
	}
}

// TestUnknownAccountsIndex: naming an index the table does not have is an
// error that names the indexes it has.
func TestUnknownAccountsIndex(t *testing.T) {
	t.Parallel()
	store, _ := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	err := store.UseAccountsIndex(context.Background(), "nope")
	if err == nil || store.AccountsIndex != "" {
		t.Fatalf("UseAccountsIndex(nope) = %v, AccountsIndex %q", err, store.AccountsIndex)
	}
}
