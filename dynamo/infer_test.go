package dynamo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// listsAGhost lists one more table than the backend holds: one deleted
// between the listing and its description, as another process may.
type listsAGhost struct{ dynamo.API }

func (l listsAGhost) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, o ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	out, err := l.API.ListTables(ctx, in, o...)
	if err == nil && in.ExclusiveStartTableName == nil {
		out.TableNames = append([]string{"locktable-gone-since-listed"}, out.TableNames...)
	}
	return out, err
}

// TestInferSkipsATableGoneSinceListed: a table deleted between ListTables
// and its sample is no candidate, not a failure (init failed with "table
// not found" while another process deleted a table, failing before).
func TestInferSkipsATableGoneSinceListed(t *testing.T) {
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutTables))
	sc := store.Schema
	dynamotest.Put(t, client, sc.Table, model.Item{"id": model.S("dev-1"), "mac_address": model.S("m1"), "registration_code": model.S("r1")})
	dynamotest.Put(t, client, sc.Constraints[0].LockTable, model.Item{"MacAddress": model.S("m1"), "owner": model.S("dev-1")})
	dynamotest.Put(t, client, sc.Constraints[1].LockTable, model.Item{"RegistrationCode": model.S("r1"), "owner": model.S("dev-1")})
	s, _, err := dynamo.InferSchema(t.Context(), listsAGhost{client}, store.Endpoint, sc.Table, 100, nil)
	if err != nil {
		t.Fatalf("a table gone since listed: %v", err)
	}
	if tables := s.Tables(); !slices.Contains(tables, sc.Constraints[0].LockTable) {
		t.Errorf("inferred tables %v: the lock tables were not found", tables)
	}
}
