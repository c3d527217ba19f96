package e2e

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// TestE2EToastyLayout checks, with the layout-2 flags the README gives,
// a table in the shape toasty's DynamoDB driver writes: the unique index
// on email is the table index_users_by_email, hashed on email and holding
// the record's key (id). check finds what is planted, and the lock repair
// puts is toasty's item, the value and the owner's id, nothing else.
func TestE2EToastyLayout(t *testing.T) {
	s := model.DefaultSchema(model.LayoutTables)
	s.Table, s.PK, s.OwnerAttr = "users", "id", "id"
	s.Constraints = []model.Constraint{{Attr: "email", LockTable: "index_users_by_email", KeyAttr: "email", Normalize: model.NormalizeNone}}
	t.Parallel()
	store, client := dynamotest.Store(t, s)
	sc := store.Schema
	locks := sc.Constraints[0].LockTable
	str := func(kv ...string) model.Item {
		it := model.Item{}
		for i := 0; i+1 < len(kv); i += 2 {
			it[kv[i]] = model.S(kv[i+1])
		}
		return it
	}
	dynamotest.Put(t, client, sc.Table, str("id", "u1", "email", "a@x", "name", "A"), str("id", "u2", "email", "b@x"))
	dynamotest.Put(t, client, locks, str("email", "a@x", "id", "u1"), str("email", "c@x", "id", "u3"))

	args := []string{"--endpoint-url", dynamotest.Endpoint(t), "--layout", "tables", "--table", sc.Table, "--pk", "id", "--sk", "",
		"--account-prefix", "", "--unique", "email=@" + locks + "/email", "--owner-attr", "id",
		"--audit-log", filepath.Join(t.TempDir(), "audit.log")}
	want := []string{"missing_lock email b@x [u2]", "orphan_lock email c@x []"}
	if _, got := presetProblems(t, args); !slices.Equal(got, want) {
		t.Fatalf("check found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	repairLeavesTheDuplicates(t, args, want)
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(locks),
		Key: map[string]types.AttributeValue{"email": &types.AttributeValueMemberS{Value: "b@x"}}, ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Item) != 2 || out.Item["id"].(*types.AttributeValueMemberS).Value != "u2" {
		t.Errorf("the repaired lock is %v, want toasty's {email, id}", out.Item)
	}
}
