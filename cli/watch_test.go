package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// watching is a locktable watch run in process, its output read as it
// comes.
type watching struct {
	t         *testing.T
	interrupt context.CancelCauseFunc
	stdout    chan string
	stderr    chan string
	code      chan int
	// said are the lines on stderr before it said it was watching.
	said []string
}

// eventDeadline bounds the wait for a line: a generous timeout, not an
// assertion of speed.
const eventDeadline = 30 * time.Second

// startWatch runs locktable watch with args and waits until it says it
// is watching: a write made from then on is followed.
func startWatch(t *testing.T, args ...string) *watching {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ctx, interrupt := context.WithCancelCause(ctx)
	w := &watching{t: t, interrupt: interrupt, stdout: make(chan string, 100), stderr: make(chan string, 100), code: make(chan int, 1)}
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	go lines(outR, w.stdout)
	go lines(errR, w.stderr)
	go func() {
		w.code <- cli.Main(ctx, clock.System(), cli.BuildInfo{Version: "test"}, append([]string{"watch"}, args...), outW, errW)
		outW.Close()
		errW.Close()
	}()
	t.Cleanup(func() { interrupt(nil) })
	for {
		select {
		case line, ok := <-w.stderr:
			if !ok {
				t.Fatalf("watch ended before it watched (exit %d)", <-w.code)
			}
			var record struct{ Msg string }
			if strings.HasPrefix(line, "locktable: watching ") ||
				json.Unmarshal([]byte(line), &record) == nil && strings.HasPrefix(record.Msg, "watching ") {
				return w
			}
			if !strings.HasPrefix(line, "locktable: note: ") && !strings.HasPrefix(line, "locktable: serving metrics ") && record.Msg == "" {
				t.Fatalf("watch said %q before it watched", line)
			}
			w.said = append(w.said, line)
		case <-time.After(30 * time.Second):
			t.Fatal("watch did not start watching in 30 s")
		}
	}
}

func lines(r io.Reader, to chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		to <- sc.Text()
	}
	close(to)
}

// next is the next line watch prints on stdout.
func (w *watching) next() string {
	w.t.Helper()
	select {
	case line, ok := <-w.stdout:
		if !ok {
			w.t.Fatal("watch ended")
		}
		return line
	case <-time.After(eventDeadline):
		w.t.Fatalf("no line from watch within %v", eventDeadline)
	}
	return ""
}

// exit waits for watch to end and returns its status and what it printed
// on stderr since it started watching.
func (w *watching) exit() (int, string) {
	w.t.Helper()
	var stderr []string
	for line := range w.stderr {
		stderr = append(stderr, line)
	}
	select {
	case code := <-w.code:
		return code, strings.Join(stderr, "\n")
	case <-time.After(30 * time.Second):
		w.t.Fatal("watch did not end")
	}
	return 0, ""
}

// watchEvent is one line of watch --json.
type watchEvent struct {
	Kind       string            `json:"kind"`
	Constraint string            `json:"constraint"`
	Value      string            `json:"value"`
	Lock       map[string]string `json:"lock"`
	Owner      string            `json:"owner"`
	Accounts   []string          `json:"accounts"`
	Event      string            `json:"event"`
	Cause      struct {
		Event    string            `json:"event"`
		Table    string            `json:"table"`
		Keys     map[string]string `json:"keys"`
		Sequence string            `json:"sequence_number"`
		At       string            `json:"approximate_time"`
		Old      model.Item        `json:"old_image"`
		New      model.Item        `json:"new_image"`
	} `json:"cause"`
}

func (w *watching) nextEvent() watchEvent {
	w.t.Helper()
	line := w.next()
	var e watchEvent
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		w.t.Fatalf("not a JSON line: %q: %v", line, err)
	}
	return e
}

// watchedTable is a fresh layout-1 table with a stream, and the flags
// that name it.
func watchedTable(t *testing.T) (*dynamo.Store, *dynamodb.Client, []string) {
	t.Helper()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	dynamotest.EnableStream(t, client, store.Schema.Table)
	return store, client, []string{"--endpoint-url", dynamotest.Endpoint(t), "--table", store.Schema.Table}
}

// watchedSignup is a watched table (the test parallel) holding account
// id, signed up with name@x.io and name.
func watchedSignup(t *testing.T, id, name string) (*dynamodb.Client, string, []string) {
	t.Helper()
	dynamotest.Endpoint(t)
	t.Parallel()
	store, client, flags := watchedTable(t)
	signup(t, flags, id, name+"@x.io", name)
	return client, store.Schema.Table, flags
}

// signup makes account id through locktable's own signup.
func signup(t *testing.T, flags []string, id, email, username string) {
	t.Helper()
	r := run(t, append([]string{"signup", "--id", id, "--set", "email=" + email, "--set", "username=" + username, "--yes",
		"--audit-log", t.TempDir() + "/audit.log"}, flags...)...)
	if r.code != 0 {
		t.Fatalf("signup %s: exit %d\n%s%s", id, r.code, r.stdout, r.stderr)
	}
}

// deleteRaw deletes account id alone, leaving its locks: a signup code's
// bug, made with the SDK as any application would.
func deleteRaw(t *testing.T, client *dynamodb.Client, table, id string) {
	t.Helper()
	deleteItem(t, client, table, id, "PROFILE")
}

// deleteItem deletes the layout-1 item (pk, sk) alone, with the SDK.
func deleteItem(t *testing.T, client *dynamodb.Client, table, pk, sk string) {
	t.Helper()
	_, err := client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table),
		Key: dynamo.ItemToSDK(model.Item{"PK": model.S(pk), "SK": model.S(sk)})})
	if err != nil {
		t.Fatal(err)
	}
}

// TestWatchJSON (issue 28): under watch --json, a signup through the
// pattern raises nothing; deleting an account that held locks makes an
// appeared orphan_lock for each, whose cause is the delete; repairing
// them resolves them; Ctrl-C ends the watch with 130.
func TestWatchJSON(t *testing.T) {
	dynamotest.Endpoint(t)
	t.Parallel()
	store, client, flags := watchedTable(t)
	table := store.Schema.Table
	w := startWatch(t, append([]string{"--json"}, flags...)...)

	signup(t, flags, "ACCT#ada", "ada@x.io", "ada")
	deleteRaw(t, client, table, "ACCT#ada")
	// The signup came first in the stream: had it raised anything, that
	// would be the first line.
	got := map[string]watchEvent{}
	for range 2 {
		e := w.nextEvent()
		got[e.Constraint] = e
	}
	for _, c := range []struct{ constraint, value, lock string }{{"email", "ada@x.io", "UNIQ#EMAIL#ada@x.io"}, {"username", "ada", "UNIQ#HANDLE#ada"}} {
		e := got[c.constraint]
		if e.Event != "appeared" || e.Kind != "orphan_lock" || e.Value != c.value || e.Owner != "ACCT#ada" || e.Lock["PK"] != c.lock ||
			e.Accounts == nil || len(e.Accounts) != 0 {
			t.Errorf("%s: %+v; want an appeared orphan_lock of %s owned by ACCT#ada", c.constraint, e, c.value)
		}
		cause := e.Cause
		if cause.Event != "REMOVE" || cause.Table != table || cause.Keys["PK"] != "ACCT#ada" || cause.Keys["SK"] != "PROFILE" ||
			cause.Sequence == "" || cause.At == "" || cause.Old["email"].S != "ada@x.io" || cause.New != nil {
			t.Errorf("%s: cause %+v; want the REMOVE of ACCT#ada with its old image", c.constraint, cause)
		}
	}

	r := run(t, append([]string{"repair", "--yes", "--audit-log", t.TempDir() + "/audit.log"}, flags...)...)
	if r.code != 0 {
		t.Fatalf("repair: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	resolved := map[string]watchEvent{}
	for range 2 {
		e := w.nextEvent()
		resolved[e.Constraint] = e
	}
	for _, c := range []string{"email", "username"} {
		if e := resolved[c]; e.Event != "resolved" || e.Kind != "orphan_lock" || e.Cause.Event != "REMOVE" || e.Cause.Keys["PK"] != got[c].Lock["PK"] {
			t.Errorf("%s after the repair: %+v; want the orphan resolved by its lock's REMOVE", c, e)
		}
	}

	w.interrupt(cli.Interrupted{Signal: os.Interrupt})
	if code, stderr := w.exit(); code != 130 || !strings.Contains(stderr, "locktable: interrupted") {
		t.Errorf("Ctrl-C: exit %d, stderr %q; want 130 and interrupted", code, stderr)
	}
}

// TestWatchExitOnProblem: --exit-on-problem exits 1 at the first problem,
// printed as check words it, with the write that made it.
func TestWatchExitOnProblem(t *testing.T) {
	client, table, flags := watchedSignup(t, "ACCT#bob", "bob")
	w := startWatch(t, append([]string{"--exit-on-problem"}, flags...)...)
	deleteRaw(t, client, table, "ACCT#bob")
	line := w.next()
	if !strings.HasPrefix(line, "appeared orphan_lock ") || !strings.Contains(line, `owner ACCT#bob`) ||
		!strings.Contains(line, "after REMOVE PK=ACCT#bob,SK=PROFILE at ") {
		t.Errorf("line %q; want the orphan in check's words, after the REMOVE", line)
	}
	if code, stderr := w.exit(); code != cli.ExitProblems || stderr != "" {
		t.Errorf("exit %d, stderr %q; want 1 and nothing", code, stderr)
	}
}

// TestWatchNoStream: a table without a stream is exit 2, with the line
// that enables one at this endpoint.
func TestWatchNoStream(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	store, _ := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table := store.Schema.Table
	r := run(t, "watch", "--endpoint-url", ep, "--table", table)
	wantError(t, r, cli.ExitError, "aws dynamodb update-table --table-name "+table+
		" --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES --endpoint-url "+ep)
	wantError(t, run(t, "watch", "--demo"), cli.ExitError, "the demo's embedded backend has none")
}

// TestWatchLayoutTables: in layout tables, each table's own stream is
// followed. A device deleted alone leaves an orphan in each lock table,
// whose cause is the delete in the devices table.
func TestWatchLayoutTables(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutTables))
	sc := store.Schema
	for _, table := range sc.Tables() {
		dynamotest.EnableStream(t, client, table)
	}
	flags := []string{"--endpoint-url", ep, "--layout", "tables", "--table", sc.Table,
		"--unique", "mac_address=@" + sc.Constraints[0].LockTable + "/MacAddress",
		"--unique", "registration_code=@" + sc.Constraints[1].LockTable + "/RegistrationCode"}
	w := startWatch(t, append([]string{"--json"}, flags...)...)
	r := run(t, append([]string{"signup", "--id", "d1", "--set", "mac_address=00:11", "--set", "registration_code=RC1", "--yes",
		"--audit-log", t.TempDir() + "/audit.log"}, flags...)...)
	if r.code != 0 {
		t.Fatalf("signup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	_, err := client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(sc.Table),
		Key: dynamo.ItemToSDK(model.Item{"id": model.S("d1")})})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]watchEvent{}
	for range 2 {
		e := w.nextEvent()
		got[e.Constraint] = e
	}
	for _, c := range []struct{ constraint, value string }{{"mac_address", "00:11"}, {"registration_code", "RC1"}} {
		e := got[c.constraint]
		if e.Event != "appeared" || e.Kind != "orphan_lock" || e.Value != c.value || e.Owner != "d1" ||
			e.Cause.Event != "REMOVE" || e.Cause.Table != sc.Table || e.Cause.Keys["id"] != "d1" {
			t.Errorf("%s: %+v; want an appeared orphan_lock of %s caused by the device's REMOVE", c.constraint, e, c.value)
		}
	}
}

// TestWatchStreamDisabled: a stream disabled while it is watched ends the
// watch with exit 2 and the line that enables it again, not a crash or a
// hang. (The follower describes the stream every ten idle polls: this
// test waits about ten seconds.)
func TestWatchStreamDisabled(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	store, client, flags := watchedTable(t)
	table := store.Schema.Table
	w := startWatch(t, flags...)
	_, err := client.UpdateTable(context.Background(), &dynamodb.UpdateTableInput{TableName: aws.String(table),
		StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(false)}})
	if err != nil {
		t.Fatal(err)
	}
	code, stderr := w.exit()
	if code != cli.ExitError || !strings.Contains(stderr, "locktable: the stream of table "+table+" was disabled while it was followed; enable it again with: "+
		"aws dynamodb update-table --table-name "+table+" --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES --endpoint-url "+ep) {
		t.Errorf("exit %d, stderr %q; want 2 and the enabling line", code, stderr)
	}
}

// TestWatchFromTrimHorizon: --from trim-horizon reads the writes made
// before the watch started; --from takes nothing else.
func TestWatchFromTrimHorizon(t *testing.T) {
	client, table, flags := watchedSignup(t, "ACCT#cy", "cy")
	deleteRaw(t, client, table, "ACCT#cy")
	w := startWatch(t, append([]string{"--from", "trim-horizon", "--exit-on-problem", "--json"}, flags...)...)
	if e := w.nextEvent(); e.Event != "appeared" || e.Kind != "orphan_lock" || e.Owner != "ACCT#cy" || e.Cause.Event != "REMOVE" {
		t.Errorf("%+v; want the orphan the delete before the watch made", e)
	}
	if code, _ := w.exit(); code != cli.ExitProblems {
		t.Errorf("exit %d, want 1", code)
	}
	r := run(t, append([]string{"watch", "--from", "yesterday"}, flags...)...)
	wantError(t, r, cli.ExitError, "--from", "yesterday", "now or trim-horizon")
}

// TestWatchOwnerlessOrphan: a lock that names no owner is reported an
// orphan only after nobody is found holding its value (a consistent scan
// of the accounts here, as the check confirms it); one whose value an
// account holds is not.
func TestWatchOwnerlessOrphan(t *testing.T) {
	client, table, flags := watchedSignup(t, "ACCT#dee", "dee")
	w := startWatch(t, append([]string{"--json"}, flags...)...)
	// dee's own lock, rewritten without its owner, is still held: fine.
	dynamotest.Put(t, client, table, dynamotest.Lock("UNIQ#EMAIL#dee@x.io", ""))
	dynamotest.Put(t, client, table, dynamotest.Lock("UNIQ#EMAIL#nobody@x.io", ""))
	e := w.nextEvent()
	if e.Event != "appeared" || e.Kind != "orphan_lock" || e.Value != "nobody@x.io" || e.Owner != "" || e.Cause.Event != "INSERT" {
		t.Errorf("%+v; want the ownerless orphan of nobody@x.io, and nothing of dee's lock before it", e)
	}
}

// TestWatchSaysExisting: a problem older than the watch (an account
// created without its username lock) is not said to appear when a write
// that did not make it touches the account: the write's old image shows
// it was there, so it is "existing", there before that write, and
// --exit-on-problem goes on. A write that then makes a problem exits.
func TestWatchSaysExisting(t *testing.T) {
	client, table, flags := watchedSignup(t, "ACCT#eve", "eve")
	_, err := client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table),
		Key: dynamo.ItemToSDK(model.Item{"PK": model.S("UNIQ#HANDLE#eve"), "SK": model.S("LOCK")})})
	if err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, append([]string{"--exit-on-problem"}, flags...)...)
	_, err = client.UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(table),
		Key:              dynamo.ItemToSDK(model.Item{"PK": model.S("ACCT#eve"), "SK": model.S("PROFILE")}),
		UpdateExpression: aws.String("SET #n = :n"), ExpressionAttributeNames: map[string]string{"#n": "name"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberS{Value: "Eve"}}})
	if err != nil {
		t.Fatal(err)
	}
	line := w.next()
	if !strings.HasPrefix(line, "existing missing_lock ") || !strings.Contains(line, "there before MODIFY PK=ACCT#eve") {
		t.Errorf("the name written: %q, want the missing username lock existing, there before the MODIFY", line)
	}
	deleteRaw(t, client, table, "ACCT#eve")
	if line := w.next(); !strings.HasPrefix(line, "appeared orphan_lock ") || !strings.Contains(line, "after REMOVE PK=ACCT#eve") {
		t.Errorf("the account deleted: %q, want its email lock's orphan appeared after the REMOVE", line)
	}
	if code, _ := w.exit(); code != cli.ExitProblems {
		t.Errorf("exit %d, want %d at the orphan", code, cli.ExitProblems)
	}
}
