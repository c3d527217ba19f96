package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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

// write runs a write command with --yes --json and returns its one
// outcome, failing unless it exited with code.
func (w writeEnv) write(code int, args ...string) writeOutcome {
	w.t.Helper()
	r := w.run(append(args, "--yes", "--json")...)
	outs := outcomes(w.t, r.stdout)
	if r.code != code || len(outs) != 1 {
		w.t.Fatalf("%s: exit %d (want %d), stdout %s, stderr %s", args[0], r.code, code, r.stdout, r.stderr)
	}
	return outs[0]
}

// wantState fails unless the table holds want (a snapshot) after what.
func (w writeEnv) wantState(what string, want []string) {
	w.t.Helper()
	if got := w.snapshot(); !slices.Equal(got, want) {
		w.t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestUndoRenameRestoresAccountAndLocks(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	w.write(cli.ExitOK, "signup", "--set", "email=ada@x.io", "--set", "username=ada", "--set", "bio=b", "--id", "ACCT#a1")
	signedUp := w.snapshot()
	rename := w.write(cli.ExitOK, "rename", "ACCT#a1", "--set", "email=ada@new.io", "--set", "username=countess")
	renamed := w.snapshot()

	// The journal sits beside the audit log, private like it; the audit
	// log still holds no values beyond keys.
	if fi, err := os.Stat(dynamo.UndoPath(w.audit)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("undo journal: %v, %v", fi, err)
	}
	for _, l := range w.auditLines() {
		if strings.Contains(l, `"bio"`) || strings.Contains(l, `"before"`) {
			t.Fatalf("audit line holds values: %s", l)
		}
	}

	// --dry-run prints the inverse and sends nothing.
	r := w.run("undo", "--last", "--dry-run")
	if r.code != cli.ExitOK || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, `"UNIQ#EMAIL#ada@x.io"`) {
		t.Fatalf("dry run: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	w.wantState("after a dry run", renamed)

	undo := w.write(cli.ExitOK, "undo", "--last")
	if undo.Operation != "undo" || undo.Outcome != "committed" || !slices.Equal(undo.Keys, rename.Keys) {
		t.Fatalf("undo: %+v (rename %+v)", undo, rename)
	}
	w.wantState("after undo", signedUp)

	// The same token again: its items are no longer as it left them.
	again := w.write(cli.ExitCancelled, "undo", rename.Token)
	if len(again.Reasons) == 0 || !strings.Contains(again.Reasons[0].Message, "account ACCT#a1 changed since that write: email is now ada@x.io") {
		t.Fatalf("second undo of the rename: %+v", again)
	}
	w.wantState("after a cancelled undo", signedUp)

	// --last again undoes the undo: the rename is back.
	redo := w.write(cli.ExitOK, "undo", "--last")
	if redo.Outcome != "committed" {
		t.Fatalf("undo of the undo: %+v", redo)
	}
	w.wantState("after undoing the undo", renamed)
}

func TestUndoDeleteRecreatesAccountAndLocks(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	w.write(cli.ExitOK, "signup", "--set", "email=bob@x.io", "--set", "username=bob", "--set", "bio=b", "--id", "ACCT#b2")
	before := w.snapshot()
	w.write(cli.ExitOK, "delete", "ACCT#b2")
	if got := w.snapshot(); len(got) != 0 {
		t.Fatalf("after delete: %q", got)
	}
	if u := w.write(cli.ExitOK, "undo", "--last"); u.Outcome != "committed" {
		t.Fatalf("undo: %+v", u)
	}
	w.wantState("after undo", before)
}

func TestUndoRepairPutsTheLockBack(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	ctx := context.Background()
	// An orphan naming an owner, and a missing lock.
	if err := w.store.Seeder.PutUnguarded(ctx, w.table, model.Item{"PK": model.S("UNIQ#EMAIL#gone@x.io"), "SK": model.S("LOCK"), "owner": model.S("ACCT#gone")}); err != nil {
		t.Fatal(err)
	}
	if err := w.store.Seeder.PutUnguarded(ctx, w.table, model.Item{"PK": model.S("ACCT#c3"), "SK": model.S("PROFILE"), "email": model.S("c@x.io")}); err != nil {
		t.Fatal(err)
	}
	before := w.snapshot()
	fixOrphan := w.write(cli.ExitOK, "repair", "--kind", "orphan_lock")
	fixMissing := w.write(cli.ExitOK, "repair", "--kind", "missing_lock")
	if got := w.snapshot(); slices.Contains(got, "PK=UNIQ#EMAIL#gone@x.io SK=LOCK owner=ACCT#gone") || !slices.Contains(got, "PK=UNIQ#EMAIL#c@x.io SK=LOCK owner=ACCT#c3") {
		t.Fatalf("after repairs: %q", got)
	}
	// Oldest first, by token: the orphan comes back, the put lock goes.
	for _, tok := range []string{fixOrphan.Token, fixMissing.Token} {
		if u := w.write(cli.ExitOK, "undo", tok); u.Outcome != "committed" {
			t.Fatalf("undo %s: %+v", tok, u)
		}
	}
	w.wantState("after undoing both repairs", before)
}

func TestUndoAfterAConcurrentChangeIsCancelled(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	w.write(cli.ExitOK, "signup", "--set", "email=dee@x.io", "--set", "username=dee", "--id", "ACCT#d4")
	w.write(cli.ExitOK, "rename", "ACCT#d4", "--set", "username=deedee")
	// Someone else changes the account meanwhile.
	_, err := w.client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(w.table),
		Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ACCT#d4"}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"}},
		UpdateExpression:          aws.String("SET nickname = :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberS{Value: "dd"}}})
	if err != nil {
		t.Fatal(err)
	}
	before := w.snapshot()
	u := w.write(cli.ExitCancelled, "undo", "--last")
	if len(u.Reasons) != 1 || u.Reasons[0].Slot != 0 || u.Reasons[0].Message != "account ACCT#d4 changed since that write: nickname is now dd" {
		t.Fatalf("undo after a change: %+v", u)
	}
	w.wantState("after a cancelled undo", before)
}

func TestUndoRefusesWhatItCannotUndo(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	wantError(t, w.run("undo", "--last", "--yes"), cli.ExitError, "no committed write to table")
	wantError(t, w.run("undo", "--yes"), cli.ExitError, "TOKEN", "--last")
	w.write(cli.ExitOK, "signup", "--set", "email=e@x.io", "--id", "ACCT#e5")
	lost := w.write(cli.ExitCancelled, "signup", "--set", "email=e@x.io", "--id", "ACCT#e5")
	wantError(t, w.run("undo", lost.Token, "--yes"), cli.ExitError, "was cancelled: nothing to undo")
	wantError(t, w.run("undo", "0123", "--yes"), cli.ExitError, "no write with token 0123")
}

func TestUndoOfAReclaimPutsTheOwnerlessLockBack(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	if err := w.store.Seeder.PutUnguarded(context.Background(), w.table, model.Item{"PK": model.S("UNIQ#HANDLE#ghost"), "SK": model.S("LOCK")}); err != nil {
		t.Fatal(err)
	}
	before := w.snapshot()
	fix := w.write(cli.ExitOK, "repair", "--kind", "orphan_lock")
	if got := w.snapshot(); len(got) != 0 {
		t.Fatalf("after the repair: %q", got)
	}
	// The repair's token is its last step's, the delete of the claimed
	// lock; the lock comes back as it was before the claim.
	w.write(cli.ExitOK, "undo", fix.Token)
	w.wantState("after undo", before)
}

// TestUndoKeepsEveryAttributeType: a deleted account comes back with
// attributes of every type, and a rename's undo compares them all.
func TestUndoKeepsEveryAttributeType(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	w.write(cli.ExitOK, "signup", "--set", "email=t@x.io", "--id", "ACCT#t1")
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ACCT#t1"}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"}}
	_, err := w.client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(w.table), Key: key,
		UpdateExpression: aws.String("SET tags = :l, prefs = :m, nums = :ns, age = :n, ok = :b, nothing = :z, avatar = :bin"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":l":   &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: "a"}, &types.AttributeValueMemberN{Value: "1"}}},
			":m":   &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"x": &types.AttributeValueMemberS{Value: "y"}}},
			":ns":  &types.AttributeValueMemberNS{Value: []string{"3", "1", "2"}},
			":n":   &types.AttributeValueMemberN{Value: "42"},
			":b":   &types.AttributeValueMemberBOOL{Value: true},
			":z":   &types.AttributeValueMemberNULL{Value: true},
			":bin": &types.AttributeValueMemberB{Value: []byte{0, 1, 2}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	item := func() string {
		out, err := w.client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(w.table), Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		b, err := dynamo.ItemFromSDK(out.Item).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := item()
	for _, write := range [][]string{{"delete", "ACCT#t1"}, {"rename", "ACCT#t1", "--set", "email=u@x.io"}} {
		w.write(cli.ExitOK, write...)
		w.write(cli.ExitOK, "undo", "--last")
		if got := item(); got != before {
			t.Fatalf("after %s and undo:\n got %s\nwant %s", write[0], got, before)
		}
	}
}

// TestUndoLayoutTables: in layout 2 the locks live in tables of their
// own, keyed by the value alone; a rename's undo puts them back there.
func TestUndoLayoutTables(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	devices, macs, codes := dynamotest.Name(t, "devices"), dynamotest.Name(t, "macs"), dynamotest.Name(t, "codes")
	audit := filepath.Join(t.TempDir(), "audit.log")
	schema := []string{"--endpoint-url", ep, "--layout", "tables", "--table", devices, "--audit-log", audit,
		"--unique", "mac_address=@" + macs + "/MacAddress", "--unique", "registration_code=@" + codes + "/RegistrationCode"}
	seed(t, client, []string{devices, macs, codes}, append(schema, "--accounts", "2")...)
	tables := func() []string {
		var all []string
		for _, table := range []string{devices, macs, codes} {
			out, err := client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				b, _ := dynamo.ItemFromSDK(it).MarshalJSON()
				all = append(all, table+" "+string(b))
			}
		}
		slices.Sort(all)
		return all
	}
	before := tables()
	r := run(t, append([]string{"rename", "dev-00000000", "--set", "mac_address=02:00:aa:bb:cc:dd", "--yes"}, schema...)...)
	if r.code != cli.ExitOK || slices.Equal(tables(), before) {
		t.Fatalf("rename: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, append([]string{"undo", "--last", "--yes"}, schema...)...); r.code != cli.ExitOK {
		t.Fatalf("undo: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	if got := tables(); !slices.Equal(got, before) {
		t.Fatalf("after undo:\n got %q\nwant %q", got, before)
	}
}
