package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/cli"
)

// stop ends a watch with Ctrl-C.
func (w *watching) stop() {
	w.t.Helper()
	w.interrupt(cli.Interrupted{Signal: os.Interrupt})
	if code, stderr := w.exit(); code != 130 {
		w.t.Fatalf("Ctrl-C: exit %d, stderr %q; want 130", code, stderr)
	}
}

// TestWatchCheckpoint (issue 40): a watch started again with the same
// --checkpoint goes on where the last stopped. A problem it reported that
// is still there is not reported again; one resolved while no watch ran
// is reported resolved, once, after the write that resolved it; a write
// made meanwhile is judged; and the next write's line comes next.
func TestWatchCheckpoint(t *testing.T) {
	client, table, flags := watchedSignup(t, "ACCT#ada", "ada")
	signup(t, flags, "ACCT#bob", "bob@x.io", "bob")
	args := append([]string{"--json", "--checkpoint", filepath.Join(t.TempDir(), "checkpoint.json")}, flags...)

	w := startWatch(t, args...)
	deleteRaw(t, client, table, "ACCT#ada")
	for range 2 {
		if e := w.nextEvent(); e.Event != "appeared" || e.Kind != "orphan_lock" || e.Owner != "ACCT#ada" {
			t.Fatalf("%+v; want ada's orphans appeared", e)
		}
	}
	w.stop()

	// While no watch runs: ada's email orphan is cleaned up, bob deleted.
	deleteItem(t, client, table, "UNIQ#EMAIL#ada@x.io", "LOCK")
	deleteRaw(t, client, table, "ACCT#bob")

	w = startWatch(t, args...)
	got := map[string]bool{}
	if said := strings.Join(w.said, "\n"); said != "" {
		t.Errorf("stderr before watching: %q; want nothing", said)
	}
	for range 3 {
		e := w.nextEvent()
		got[fmt.Sprintf("%s %s %s after %s %s", e.Event, e.Kind, e.Value, e.Cause.Event, e.Cause.Keys["PK"])] = true
	}
	for _, want := range []string{
		"resolved orphan_lock ada@x.io after REMOVE UNIQ#EMAIL#ada@x.io",
		"appeared orphan_lock bob@x.io after REMOVE ACCT#bob",
		"appeared orphan_lock bob after REMOVE ACCT#bob",
	} {
		if !got[want] {
			t.Errorf("after the restart: %v; want %q", got, want)
		}
	}
	// Had ada's username orphan been reported again, or anything else,
	// it would come before this write's line.
	deleteItem(t, client, table, "UNIQ#HANDLE#ada", "LOCK")
	if e := w.nextEvent(); e.Event != "resolved" || e.Value != "ada" || e.Cause.Keys["PK"] != "UNIQ#HANDLE#ada" {
		t.Errorf("%+v; want ada's username orphan resolved by its lock's REMOVE", e)
	}
	w.stop()
}

// TestWatchCheckpointRefuses (issue 40): a checkpoint of another table,
// or not a checkpoint, is refused in words; one that cannot be followed
// on without a gap (its stream replaced, its shard trimmed away) is exit
// 2, saying so, unless --from is given: then the watch starts there,
// says what it skips, and reads the problems it reported again: one
// resolved in the gap is reported resolved, laid at that reading.
func TestWatchCheckpointRefuses(t *testing.T) {
	client, table, flags := watchedSignup(t, "ACCT#cy", "cy")
	out, err := client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(out.Table.LatestStreamArn)
	dir := t.TempDir()
	file := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	checkpointOf := func(table, arn, shards string) string {
		// It reported cy's email lock missing; cy's signup wrote it.
		return fmt.Sprintf(`{"kind":"locktable watch checkpoint","version":1,"table":%q,"streams":[{"table":%q,"arn":%q,"shards":%s}],`+
			`"problems":[{"kind":"missing_lock","constraint":"email","value":"cy@x.io","accounts":["ACCT#cy"]}]}`, table, table, arn, shards)
	}
	watch := func(args ...string) []string { return append(append([]string{"watch"}, args...), flags...) }

	wantError(t, run(t, watch("--checkpoint", file("other", checkpointOf("devices", arn, "{}")))...), cli.ExitError,
		`the checkpoint of a watch of table "devices", not of "`+table+`"`)
	wantError(t, run(t, watch("--checkpoint", file("notes", "shard 1 at 42\n"))...), cli.ExitError, "not a locktable watch checkpoint")
	replaced := file("replaced", checkpointOf(table, "arn:aws:dynamodb:ddblocal:000000000000:table/"+table+"/stream/2020-01-01T00:00:00.000", "{}"))
	wantError(t, run(t, watch("--checkpoint", replaced)...), cli.ExitError, "cannot be followed on from where the checkpoint left it",
		"enabled again since", "--from now")
	trimmed := file("trimmed", checkpointOf(table, arn, `{"shardId-gone":{"after":"7"}}`))
	wantError(t, run(t, watch("--checkpoint", trimmed)...), cli.ExitError, "shard shardId-gone, read to record 7, is trimmed away")

	w := startWatch(t, append([]string{"--json", "--checkpoint", trimmed, "--from", "now"}, flags...)...)
	if said := strings.Join(w.said, "\n"); !strings.Contains(said, "trimmed away") || !strings.Contains(said, "starting from now as --from says") {
		t.Errorf("stderr %q; want the gap said, and where the watch starts", said)
	}
	if e := w.nextEvent(); e.Event != "resolved" || e.Kind != "missing_lock" || e.Value != "cy@x.io" || e.Cause.Event != "RECHECK" || len(e.Cause.Keys) != 0 {
		t.Errorf("%+v; want cy's missing lock resolved, laid at the reading again (RECHECK, no keys)", e)
	}
	w.stop()
}
