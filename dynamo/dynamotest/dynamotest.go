// Package dynamotest connects tests to the real DynamoDB emulator that
// `make test` starts (dynoxide), and gives each test tables of its own.
package dynamotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// EndpointEnv names the variable `make test` sets to the emulator's URL.
const EndpointEnv = "LOCKTABLE_TEST_ENDPOINT"

// Endpoint returns the emulator's URL. Without one the test is skipped on
// a developer's machine and fails in CI: CI never silently skips.
func Endpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv(EndpointEnv)
	if ep == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI must run the tests through `make test`, which starts dynoxide", EndpointEnv)
		}
		t.Skipf("%s is not set: run `make test` to run this test against dynoxide", EndpointEnv)
	}
	return ep
}

// Client returns an SDK client for the emulator.
func Client(t testing.TB) (*dynamodb.Client, backend.Endpoint) {
	t.Helper()
	c, ep, err := dynamo.NewClient(context.Background(), dynamo.ClientOptions{EndpointURL: Endpoint(t)})
	if err != nil {
		t.Fatal(err)
	}
	return c, ep
}

// Name returns a table name no other test uses.
func Name(t testing.TB, base string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return base + "-" + hex.EncodeToString(b)
}

// Rename points every table of s at fresh names, so that tests can run
// side by side on one emulator.
func Rename(t testing.TB, s model.Schema) model.Schema {
	s.Table = Name(t, s.Table)
	cs := make([]model.Constraint, len(s.Constraints))
	copy(cs, s.Constraints)
	for i := range cs {
		if !cs[i].InAccountTable() {
			cs[i].LockTable = Name(t, cs[i].LockTable)
		}
	}
	s.Constraints = cs
	return s
}

// Store returns a store for a fresh copy of schema s whose tables exist
// (empty) and are deleted when the test ends, and the client beneath it.
func Store(t testing.TB, s model.Schema) (*dynamo.Store, *dynamodb.Client) {
	t.Helper()
	client, ep := Client(t)
	store := dynamo.NewStore(client, ep, Rename(t, s), clock.System())
	store.Segments = 2
	store.SetWritable(true)
	if _, err := store.EnsureTables(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { DeleteTables(t, client, store.Schema.Tables()...) })
	return store, client
}

// TTLStoreAt is Store for layout l's default schema with TTL attributes
// (WithTTL), its clock fixed at at.
func TTLStoreAt(t testing.TB, l model.Layout, at time.Time) (*dynamo.Store, *dynamodb.Client) {
	t.Helper()
	s := model.DefaultSchema(l)
	WithTTL(&s)
	store, client := Store(t, s)
	store.Clock = clock.Fixed(at)
	return store, client
}

// DeleteTables deletes tables, ignoring ones already gone.
func DeleteTables(t testing.TB, client *dynamodb.Client, tables ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, table := range tables {
		_, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	}
}

// Put writes items to table as they are, with no guard.
func Put(t testing.TB, client *dynamodb.Client, table string, items ...model.Item) {
	t.Helper()
	for _, it := range items {
		_, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: dynamo.ItemToSDK(it)})
		if err != nil {
			t.Fatalf("put %v into %s: %v", it, table, err)
		}
	}
}

// Account is a layout-1 account item (PK, SK PROFILE, email, username);
// empty values are left out.
func Account(id, email, username string) model.Item {
	it := model.Item{"PK": model.S(id), "SK": model.S("PROFILE")}
	if email != "" {
		it["email"] = model.S(email)
	}
	if username != "" {
		it["username"] = model.S(username)
	}
	return it
}

// Lock is a layout-1 lock item (PK, SK LOCK) naming owner; owner "" leaves
// it out.
func Lock(pk, owner string) model.Item {
	it := model.Item{"PK": model.S(pk), "SK": model.S("LOCK")}
	if owner != "" {
		it["owner"] = model.S(owner)
	}
	return it
}

// TableWithIndex creates a layout-1 account table (PK, SK) with one GSI
// keyed by hash (and rng, when not empty), deleted when the test ends.
func TableWithIndex(t testing.TB, client *dynamodb.Client, table, index, hash, rng string, projection types.ProjectionType) {
	t.Helper()
	defs := map[string]bool{"PK": true, "SK": true, hash: true}
	keys := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if rng != "" {
		defs[rng] = true
		keys = append(keys, types.KeySchemaElement{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange})
	}
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(table),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String(index), KeySchema: keys, Projection: &types.Projection{ProjectionType: projection},
		}},
	}
	for name := range defs {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS})
	}
	if _, err := client.CreateTable(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { DeleteTables(t, client, table) })
}

// EnableStream enables a stream of old and new images on table.
func EnableStream(t testing.TB, client *dynamodb.Client, table string) {
	t.Helper()
	_, err := client.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}})
	if err != nil {
		t.Fatalf("enable the stream of %s: %v", table, err)
	}
}
