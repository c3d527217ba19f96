package cli_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// A lock locktable's casefold wrote before 2026-12, when it did not
// compose the fold again: ᾼ̈ (U+1FBC U+0308) was keyed α ι U+0308, the
// rule now keys it αϊ (U+03B1 U+03CA). check reports the contract's
// kinds (orphan_lock for the old key, missing_lock for the new one, exit
// 1, the JSON as PATTERN.md has it), and the human report says they are
// one change and why; an orphan of no such account gets no such words;
// repair moves the lock.
func TestCheckSaysWhatCasefoldRekeyed(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table := store.Schema.Table
	const (
		email   = "\u1fbc\u0308@x.io"       // ᾼ̈@x.io
		then    = "\u03b1\u03b9\u0308@x.io" // what the old casefold keyed it as
		now     = "\u03b1\u03ca@x.io"       // αϊ@x.io, what the rule keys it as
		unheld  = "\u03b1\u03b9\u0301@x.io" // not NFC either, but nobody's old key
		keyThen = "UNIQ#EMAIL#" + then
		keyNow  = "UNIQ#EMAIL#" + now
	)
	dynamotest.Put(t, client, table,
		dynamotest.Account("ACCT#a1", email, "ada"), dynamotest.Lock("UNIQ#HANDLE#ada", "ACCT#a1"),
		dynamotest.Lock(keyThen, "ACCT#a1"),
		dynamotest.Lock("UNIQ#EMAIL#"+unheld, "ACCT#a1"),
	)
	args := []string{"--endpoint-url", ep, "--table", table, "--normalize", "email=casefold"}

	j := run(t, append([]string{"check", "--json"}, args...)...)
	want := `"problems":[` +
		`{"kind":"orphan_lock","constraint":"email","value":"` + unheld + `","lock":{"PK":"UNIQ#EMAIL#` + unheld + `","SK":"LOCK"},"owner":"ACCT#a1","accounts":[]},` +
		`{"kind":"orphan_lock","constraint":"email","value":"` + then + `","lock":{"PK":"` + keyThen + `","SK":"LOCK"},"owner":"ACCT#a1","accounts":[]},` +
		`{"kind":"missing_lock","constraint":"email","value":"` + now + `","accounts":["ACCT#a1"]}]`
	if j.code != cli.ExitProblems || !strings.Contains(j.stdout, want) || strings.Contains(j.stdout, "rekeyed") {
		t.Fatalf("check --json: exit %d\n%s%s\nwant exit 1 and %s", j.code, j.stdout, j.stderr, want)
	}

	r := run(t, append([]string{"check"}, args...)...)
	if r.code != cli.ExitProblems {
		t.Fatalf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	says := `rekeyed          email lock PK=` + keyThen + `,SK=LOCK was keyed by locktable's casefold before 2026-12 ` +
		`(folding left 'ϊ' (U+03CA) decomposed, as U+03B9 U+0308); the rule now keys ACCT#a1's email ` + email + ` as PK=` + keyNow + `,SK=LOCK: ` +
		`repair moves the lock (the orphan_lock and missing_lock below are this one change)`
	if !strings.Contains(r.stdout, says+"\n") || strings.Count(r.stdout, "rekeyed ") != 1 {
		t.Errorf("check says\n%s\nwant it to say once\n%s", r.stdout, says)
	}
	for kind, n := range map[string]string{"orphan_lock": "2", "missing_lock": "1"} {
		if !regexp.MustCompile(`(?m)^` + kind + `\s+` + n + `$`).MatchString(r.stdout) {
			t.Errorf("check does not count %s %s kinds:\n%s", n, kind, r.stdout)
		}
	}

	if r := run(t, append([]string{"repair", "--yes", "--audit-log", t.TempDir() + "/audit.log"}, args...)...); r.code != 0 {
		t.Fatalf("repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if it := getLock(t, client, table, keyThen); it != nil {
		t.Errorf("repair left the old key: %v", it)
	}
	if it := getLock(t, client, table, keyNow); it == nil || it["owner"].S != "ACCT#a1" {
		t.Errorf("repair wrote the new key as %v, want a lock naming ACCT#a1", it)
	}
	if r := run(t, append([]string{"check"}, args...)...); r.code != 0 || strings.Contains(r.stdout, "rekeyed") {
		t.Errorf("check after repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// getLock reads the layout-1 lock at pk with a consistent read; nil when
// there is none.
func getLock(t *testing.T, client *dynamodb.Client, table, pk string) model.Item {
	t.Helper()
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: pk}, "SK": &types.AttributeValueMemberS{Value: "LOCK"}}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Item == nil {
		return nil
	}
	return dynamo.ItemFromSDK(out.Item)
}
