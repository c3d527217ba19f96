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

// TestE2EOneTableOlderSpelling: a table OneTable 2.7 wrote (the planted
// fixture, and a clean user it created), partly written before by
// OneTable 1.7, whose unique items are spelled User:email:<value> with
// sort key _unique: (put here by hand, as it wrote them): a clean user
// and an orphan in that spelling, and a user whose email has no lock in
// either. check reports exactly the planted problems and those two; the
// repair deletes the older orphan where it is and puts the missing lock
// in the spelling the library now reads, which refuses its create.
func TestE2EOneTableOlderSpelling(t *testing.T) {
	lib := libraries[0]
	ep, table, client, env := plantOneTable(t, "")
	if code, out := lib.node(t, env, "create", userJSON("nina")); code != 0 {
		t.Fatalf("library create nina: exit %d: %s", code, out)
	}
	str := func(kv ...string) model.Item {
		it := model.Item{}
		for i := 0; i+1 < len(kv); i += 2 {
			it[kv[i]] = model.S(kv[i+1])
		}
		return it
	}
	older := func(attr, v string) model.Item {
		return str("pk", "User:"+attr+":"+v, "sk", "_unique:", "_type", "_Unique")
	}
	dynamotest.Put(t, client, table,
		str("pk", "user#olga", "sk", "user#", "_type", "User", "id", "olga", "email", "olga@old.io", "username", "olga"),
		older("email", "olga@old.io"), older("username", "olga"),
		older("email", "gone@old.io"),
		str("pk", "user#mia", "sk", "user#", "_type", "User", "id", "mia", "email", "mia@old.io"),
	)

	args := []string{"--endpoint-url", ep, "--table", table, "--preset", lib.preset,
		"--audit-log", filepath.Join(t.TempDir(), "audit.log")}
	accounts, got := presetProblems(t, args)
	want := slices.Sorted(slices.Values(append(slices.Clone(lib.planted),
		"orphan_lock email gone@old.io []",
		"missing_lock email mia@old.io [user#mia]")))
	if !slices.Equal(got, want) {
		t.Fatalf("check found\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if accounts != 6 { // ada, carol, eve, nina, olga, mia
		t.Errorf("accounts %d, want 6", accounts)
	}

	repairLeavesTheDuplicates(t, args, want)
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "User:email:gone@old.io"}, "sk": &types.AttributeValueMemberS{Value: "_unique:"}}})
	if err != nil || out.Item != nil {
		t.Errorf("the orphan in the older spelling after the repair: %v %v", out.Item, err)
	}
	if code, out := lib.node(t, env, "create", userJSON("mo", "email", "mia@old.io")); code != 3 {
		t.Errorf("library create with mia's email after the repair put its lock: exit %d (%s), want refused", code, out)
	}
}
