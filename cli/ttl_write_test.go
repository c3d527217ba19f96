package cli_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/model"
)

// TestSignupTakesAnExpiredLockOver: on ttlTable (TTL found with
// DescribeTimeToLive), a headless signup guards each lock's put with
// attribute_not_exists(PK) OR #ttl <= :now. --dry-run prints it in the AWS
// CLI document and, on stderr, in words with that very second. The
// expired, unheld gone@x commits and its lock becomes ACCT#new's, without
// a TTL; the live reservation pending@x is cancelled naming it; ada@x,
// expired but held by ACCT#ada, is refused by the holder lookup (taking
// the lock over would make a duplicate).
func TestSignupTakesAnExpiredLockOver(t *testing.T) {
	t.Parallel()
	clocktest.Each(t, signupTakesAnExpiredLockOver)
}

func signupTakesAnExpiredLockOver(t *testing.T, now time.Time) {
	ep, table := ttlTable(t, now)
	run := func(t *testing.T, args ...string) result { return runAt(t, clock.Fixed(now), args...) }
	audit := filepath.Join(t.TempDir(), "audit.log")
	signup := func(email, id string, extra ...string) result {
		t.Helper()
		args := []string{"signup", "--set", "email=" + email, "--set", "username=" + strings.TrimPrefix(id, "ACCT#"), "--id", id,
			"--endpoint-url", ep, "--table", table, "--audit-log", audit}
		return run(t, append(args, extra...)...)
	}

	wantTakeOverSaid(t, signup("gone@x", "ACCT#new", "--dry-run"), now)

	r := signup("pending@x", "ACCT#late", "--yes", "--json")
	o := outcomes(t, r.stdout)
	reserved := regexp.MustCompile(`^email pending@x is reserved until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(12 min more\) by lock UNIQ#EMAIL#pending@x$`)
	if r.code != cli.ExitCancelled || len(o) != 1 || len(o[0].Reasons) != 1 || !reserved.MatchString(o[0].Reasons[0].Message) {
		t.Fatalf("signup of a reserved value: exit %d, %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}

	r = signup("ada@x", "ACCT#ada2", "--yes", "--json")
	o = outcomes(t, r.stdout)
	if r.code != cli.ExitCancelled || len(o) != 1 || len(o[0].Reasons) != 1 || o[0].Reasons[0].Code != "HeldWithoutLock" ||
		!strings.HasPrefix(o[0].Reasons[0].Message, "email ada@x is taken by ACCT#ada, whose lock expired 3 h ago (sending would take the expired lock over") {
		t.Fatalf("signup of an expired value its account holds: exit %d, %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}

	r = signup("gone@x", "ACCT#new", "--yes", "--json")
	if o = outcomes(t, r.stdout); r.code != cli.ExitOK || len(o) != 1 || o[0].Outcome != "committed" {
		t.Fatalf("signup of an expired value: exit %d, %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	c := run(t, "check", "--endpoint-url", ep, "--table", table, "--json")
	if strings.Contains(c.stdout, "gone@x") {
		t.Errorf("gone@x is still a problem after the signup took its lock over:\n%s", c.stdout)
	}
	client, _ := dynamotest.Client(t)
	got, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: dynamo.ItemToSDK(model.Item{"PK": model.S("UNIQ#EMAIL#gone@x"), "SK": model.S("LOCK")})})
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b model.Value) bool { return a.DynamoJSON() == b.DynamoJSON() }
	if it, want := dynamo.ItemFromSDK(got.Item), dynamotest.Lock("UNIQ#EMAIL#gone@x", "ACCT#new"); !maps.EqualFunc(it, want, same) {
		t.Errorf("the lock after the signup: %v, want %v (no TTL)", it, want)
	}
}

// wantTakeOverSaid checks the --dry-run of a signup of gone@x as ACCT#new
// on ttlTable: the lock's guard in the AWS CLI document takes an expired
// lock over at the second the request was built, and stderr says it in
// words with that second (the clock's, at), after the holder lookup's
// findings.
func wantTakeOverSaid(t *testing.T, dry result, at time.Time) {
	t.Helper()
	if dry.code != cli.ExitOK {
		t.Fatalf("--dry-run: exit %d\nstdout: %s\nstderr: %s", dry.code, dry.stdout, dry.stderr)
	}
	in, err := dynamo.ParseCLIJSON([]byte(dry.stdout))
	if err != nil || len(in.TransactItems) != 3 {
		t.Fatalf("--dry-run: %v\n%s", err, dry.stdout)
	}
	put := in.TransactItems[1].Put
	m := regexp.MustCompile(`^\(attribute_not_exists \((#\w+)\)\) OR \((#\w+) <= (:\w+)\)$`).FindStringSubmatch(aws.ToString(put.ConditionExpression))
	values := dynamo.ItemFromSDK(put.ExpressionAttributeValues)
	if m == nil || put.ExpressionAttributeNames[m[1]] != "PK" || put.ExpressionAttributeNames[m[2]] != "ttl" {
		t.Fatalf("the lock's guard: %s %v %v", aws.ToString(put.ConditionExpression), put.ExpressionAttributeNames, values)
	}
	now, err := strconv.ParseInt(values[m[3]].S, 10, 64)
	if err != nil || now != at.Unix() {
		t.Fatalf(":now is %d (%v): want the second the request was built, %d", now, err, at.Unix())
	}
	for _, want := range []string{
		"holder lookup for email=gone@x, username=new: consistent scan of the accounts, ",
		"email=gone@x: its lock expired 3 h ago, and the guard takes it over; no other account holds it",
		"  1. put lock UNIQ#EMAIL#gone@x (owner ACCT#new)\n       only if no item with this key exists, or its ttl is not after " +
			strconv.FormatInt(now, 10) + " (" + model.TTLTime(now) + "): an expired lock still blocks the value until DynamoDB deletes it, so it is taken over\n",
	} {
		if !strings.Contains(dry.stderr, want) {
			t.Errorf("--dry-run stderr does not say %q:\n%s", want, dry.stderr)
		}
	}
}

// TestStampsAtTheClock: the audit log's and the undo journal's lines are
// stamped at the process's clock (what main hands down), whatever the
// machine's says, at each clock case.
func TestStampsAtTheClock(t *testing.T) {
	t.Parallel()
	clocktest.Each(t, func(t *testing.T, at time.Time) {
		ep, table := ttlTable(t, at)
		audit := filepath.Join(t.TempDir(), "audit.log")
		r := runAt(t, clock.Fixed(at), "signup", "--set", "email=new@x", "--set", "username=new", "--id", "ACCT#new",
			"--endpoint-url", ep, "--table", table, "--audit-log", audit, "--yes")
		if r.code != cli.ExitOK {
			t.Fatalf("signup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		for _, path := range []string{audit, dynamo.UndoPath(audit)} {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			for _, line := range lines {
				var e struct{ Time time.Time }
				if err := json.Unmarshal([]byte(line), &e); err != nil || !e.Time.Equal(at) {
					t.Errorf("%s: %s is stamped %v (%v), want %v", filepath.Base(path), line, e.Time, err, at)
				}
			}
			if len(lines) != 2 {
				t.Errorf("%s: %d lines, want the write's two", filepath.Base(path), len(lines))
			}
		}
	})
}
