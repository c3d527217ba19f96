package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// electroTable names a fresh table on the emulator, deleted after the
// test, and the flags that point the preset electrodb:agent at it.
func electroTable(t *testing.T) (*dynamodb.Client, string, []string) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "electrodb")
	cleanup(t, client, table)
	return client, table, []string{"--endpoint-url", ep, "--table", table, "--preset", "electrodb:agent", "--audit-log", filepath.Join(t.TempDir(), "a.log")}
}

// TestSeedElectroDB: seed --preset electrodb:agent creates the missing
// table (pk, sk and the constraint entity's GSI) and writes agents with
// their email constraints as ElectroDB writes them, through the preset's
// own keys: a mixed-case email's constraint keyed lower-cased, its value
// as given. With --anomalies it plants the mistakes of code that forgets
// the constraint, and check --preset electrodb:agent, reading the
// constraints present, finds exactly those kinds.
func TestSeedElectroDB(t *testing.T) {
	client, table, args := electroTable(t)
	r := run(t, append([]string{"seed", "--unique", "email", "--constraint-entity", "service=mi6", "--accounts", "10", "--anomalies", "--json"}, args...)...)
	var got struct {
		Created      []string
		Accounts     int
		AnomalyCases int `json:"anomaly_cases"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || len(got.Created) != 1 || got.Created[0] != table || got.Accounts != 10 || got.AnomalyCases != 12 {
		t.Fatalf("seed: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// Agent 2's email is Grace.2@example.org: its constraint is keyed
	// lower-cased and holds the value as given, with every attribute
	// ElectroDB writes.
	want := map[string]string{
		"pk": "$mi6#value_grace.2@example.org", "sk": "$constraint_1#name_email#entity_agent",
		"gsi1pk": "$mi6#name_email#entity_agent", "gsi1sk": "$constraint_1#value_grace.2@example.org",
		model.ElectroEntityAttr: "constraint", model.ElectroVersionAttr: "1", "name": "email", "value": "Grace.2@example.org", "entity": "agent",
	}
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: want["pk"]}, "sk": &types.AttributeValueMemberS{Value: want["sk"]}}})
	if err != nil {
		t.Fatal(err)
	}
	it := dynamo.ItemFromSDK(out.Item)
	if len(it) != len(want) {
		t.Errorf("constraint item %v, want %v", it, want)
	}
	for a, v := range want {
		if it[a].Kind != model.KindS || it[a].S != v {
			t.Errorf("constraint item's %s = %v, want %q (item %v)", a, it[a], v, it)
		}
	}
	desc, err := client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil || len(desc.Table.GlobalSecondaryIndexes) != 1 || aws.ToString(desc.Table.GlobalSecondaryIndexes[0].IndexName) != dynamo.ElectroIndex {
		t.Errorf("table created without the constraint entity's GSI %s: %v", dynamo.ElectroIndex, err)
	}

	// Three rounds of four mistakes: created outside the transaction
	// (missing), a delete that left the constraint (orphan), a taken
	// email (duplicate), a changed email (orphan and missing).
	r = run(t, append([]string{"check", "--json"}, args...)...)
	var rep struct {
		Accounts int `json:"accounts"`
		Problems []struct{ Kind string }
	}
	if r.code != 1 || json.Unmarshal([]byte(r.stdout), &rep) != nil {
		t.Fatalf("check: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	kinds := map[string]int{}
	for _, p := range rep.Problems {
		kinds[p.Kind]++
	}
	if kinds["missing_lock"] != 6 || kinds["orphan_lock"] != 6 || kinds["duplicate_value"] != 3 || len(kinds) != 3 || rep.Accounts != 22 {
		t.Errorf("check found %v in %d accounts; want 6 missing_lock, 6 orphan_lock, 3 duplicate_value in 22", kinds, rep.Accounts)
	}
}

// TestElectroDBKeyHoldingABar: an agent whose partition key holds | (a
// composite value "a|b") is named with it escaped, \|, in check's JSON,
// and that id is the agent's key again: repair puts its constraint, and
// the table is then clean.
func TestElectroDBKeyHoldingABar(t *testing.T) {
	client, table, args := electroTable(t)
	args = append(args, "--unique", "email", "--constraint-entity", "service=mi6")
	if r := run(t, append([]string{"seed", "--accounts", "0"}, args...)...); r.code != 0 {
		t.Fatalf("seed: exit %d, %s", r.code, r.stderr)
	}
	dynamotest.Put(t, client, table, model.Item{"pk": model.S("$mi6#designation_a|b"), "sk": model.S("$agent_1#id_x1"),
		model.ElectroEntityAttr: model.S("agent"), model.ElectroVersionAttr: model.S("1"), "designation": model.S("a|b"), "id": model.S("x1"), "email": model.S("bar@mi6.uk")})
	r := run(t, append([]string{"check", "--json"}, args...)...)
	var rep struct {
		Problems []struct {
			Kind     string
			Accounts []string
		}
	}
	want := `$mi6#designation_a\|b|$agent_1#id_x1`
	if r.code != 1 || json.Unmarshal([]byte(r.stdout), &rep) != nil || len(rep.Problems) != 1 || rep.Problems[0].Kind != "missing_lock" ||
		len(rep.Problems[0].Accounts) != 1 || rep.Problems[0].Accounts[0] != want {
		t.Fatalf("check: exit %d, want one missing_lock held by %s: %s %s", r.code, want, r.stdout, r.stderr)
	}
	if r := run(t, append([]string{"repair", "--yes"}, args...)...); r.code != 0 {
		t.Fatalf("repair: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, append([]string{"check"}, args...)...); r.code != 0 {
		t.Errorf("check after repair: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestWatchElectroDB: watch follows an ElectroDB table through the
// preset: an agent deleted without its constraint leaves an ownerless
// constraint, reported appeared once nobody is found holding its value,
// with the agent's whole key in the cause; and an agent's attribute
// written beside a constraint missing already is existing, not appeared.
func TestWatchElectroDB(t *testing.T) {
	client, table, args := electroTable(t)
	args = append(args, "--unique", "email", "--constraint-entity", "service=mi6")
	if r := run(t, append([]string{"seed", "--accounts", "3"}, args...)...); r.code != 0 {
		t.Fatalf("seed: exit %d, %s", r.code, r.stderr)
	}
	dynamotest.EnableStream(t, client, table)
	agent := model.Item{"pk": model.S("$mi6#designation_00"), "sk": model.S("$agent_1#id_nolock"),
		model.ElectroEntityAttr: model.S("agent"), model.ElectroVersionAttr: model.S("1"), "email": model.S("nolock@mi6.uk")}
	dynamotest.Put(t, client, table, agent) // created outside the transaction, before the watch
	w := startWatch(t, append([]string{"--json"}, args...)...)

	// Agent 0 (ada.0@example.org, seeded with its constraint) deleted alone.
	_, err := client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table),
		Key: dynamo.ItemToSDK(model.Item{"pk": model.S("$mi6#designation_00"), "sk": model.S("$agent_1#id_a00000000")})})
	if err != nil {
		t.Fatal(err)
	}
	e := w.nextEvent()
	if e.Event != "appeared" || e.Kind != "orphan_lock" || e.Value != "ada.0@example.org" || e.Cause.Event != "REMOVE" ||
		e.Cause.Keys["sk"] != "$agent_1#id_a00000000" {
		t.Errorf("the agent deleted alone: %+v; want its constraint an appeared orphan, caused by the agent's REMOVE", e)
	}
	agent["codename"] = model.S("Q")
	dynamotest.Put(t, client, table, agent)
	e = w.nextEvent()
	if e.Event != "existing" || e.Kind != "missing_lock" || e.Value != "nolock@mi6.uk" ||
		len(e.Accounts) != 1 || e.Accounts[0] != "$mi6#designation_00|$agent_1#id_nolock" {
		t.Errorf("an attribute of an agent without its constraint: %+v; want its missing constraint existing, held by its whole key", e)
	}
}
