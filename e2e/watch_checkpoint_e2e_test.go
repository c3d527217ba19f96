package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/reliability"
)

// checkpointEvent is what the kill test reads of a line of watch --json:
// the problem's identity, the event, and the record that caused it.
type checkpointEvent struct {
	Kind       string `json:"kind"`
	Constraint string `json:"constraint"`
	Value      string `json:"value"`
	Event      string `json:"event"`
	Cause      struct {
		Event    string            `json:"event"`
		Keys     map[string]string `json:"keys"`
		Sequence string            `json:"sequence_number"`
	} `json:"cause"`
}

// id is the event's identity: the problem, the event, and the cause's
// sequence number. Two lines with one id are one line printed twice.
func (e checkpointEvent) id() string {
	return strings.Join([]string{e.Kind, e.Constraint, e.Value, e.Event, e.Cause.Sequence}, "|")
}

// TestWatchCheckpointKill (issue 40): watch --checkpoint, killed with
// SIGKILL at seeded random moments while a writer deletes and puts back
// email locks, and started again each time, prints between its runs
// exactly the lines of one uninterrupted run: each lock's removal an
// appeared missing_lock, each put-back its resolved, in the stream's
// order; no write missed, no problem appeared twice. A line may be
// printed twice only identically (same problem, event and cause), by a
// watch killed between printing it and recording it.
//
// One run's lines are known without running one: the writer writes a
// lock again only once the line of its last write is out, so each
// judgement reads the table as that write left it, whatever the timing.
func TestWatchCheckpointKill(t *testing.T) {
	dynamotest.Endpoint(t)
	t.Parallel()
	seed := reliability.Seed(t)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	values, rounds, kills := reliability.Scale(50, 150), 20, reliability.Scale(24, 60)

	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table := store.Schema.Table
	var items []model.Item
	for i := range values {
		id := fmt.Sprintf("ACCT#%04d", i)
		items = append(items, dynamotest.Account(id, email(i), fmt.Sprintf("user%04d", i)),
			dynamotest.Lock("UNIQ#EMAIL#"+email(i), id), dynamotest.Lock(fmt.Sprintf("UNIQ#HANDLE#user%04d", i), id))
	}
	dynamotest.Put(t, client, table, items...)
	// Enabled after the seed: the stream holds the test's writes only.
	dynamotest.EnableStream(t, client, table)

	dir := t.TempDir()
	out := filepath.Join(dir, "watch.jsonl")
	w := &killedWatch{t: t, args: []string{"watch", "--json", "--checkpoint", filepath.Join(dir, "checkpoint.json"), "--from", "trim-horizon",
		"--endpoint-url", dynamotest.Endpoint(t), "--table", table}, out: out, stderr: filepath.Join(dir, "stderr")}

	done := make(chan struct{})
	go w.run(rng, kills, done)
	ctx := context.Background()
	for r := range rounds {
		for i := range values {
			writeLock(t, ctx, client, table, i, r%2 == 0)
		}
		// Each lock is written again only once its last write's line is
		// out (the order that makes one run's lines known).
		w.await(func(got map[string][]checkpointEvent) bool { return settled(got, values, r+1) })
	}
	close(done)
	w.wait()

	got, lines := w.events()
	distinct, missed, wrong := 0, 0, 0
	for i := range values {
		evs := got[email(i)]
		distinct += len(evs)
		if len(evs) != rounds {
			missed++
			t.Errorf("%s: %d events, want %d (one per write): %v", email(i), len(evs), rounds, evs)
			continue
		}
		for r, e := range evs {
			want, cause := "appeared", "REMOVE"
			if r%2 == 1 {
				want, cause = "resolved", "INSERT"
			}
			if e.Event != want || e.Kind != "missing_lock" || e.Constraint != "email" || e.Cause.Event != cause || e.Cause.Keys["PK"] != "UNIQ#EMAIL#"+email(i) {
				wrong++
				t.Errorf("%s: event %d is %+v; want %s missing_lock after the lock's %s", email(i), r, e, want, cause)
			}
		}
	}
	t.Logf("%d writes, %d kills, %d lines, %d distinct events, %d printed twice", values*rounds, w.killed, lines, distinct, lines-distinct)
	// Each start prints again at most the one line it cannot know was
	// out: the first of those the last run recorded and did not journal.
	var fig reliability.Figures
	fig.Add("watch_writes", int64(values*rounds))
	fig.Add("watch_kills", int64(w.killed))
	fig.Add("watch_lines_printed_twice", int64(lines-distinct))
	fig.Add("violations_watch_values_with_a_change_missed", int64(missed))
	fig.Add("violations_watch_events_out_of_order", int64(wrong))
	if err := fig.Append(); err != nil {
		t.Error(err)
	}
	if lines-distinct > w.killed {
		t.Errorf("%d lines printed twice over %d kills; want at most one a kill", lines-distinct, w.killed)
	}
}

func email(i int) string { return fmt.Sprintf("user%04d@x.io", i) }

// writeLock deletes value i's email lock, or puts it back (remove false).
func writeLock(t *testing.T, ctx context.Context, client *dynamodb.Client, table string, i int, remove bool) {
	t.Helper()
	lock := dynamotest.Lock("UNIQ#EMAIL#"+email(i), fmt.Sprintf("ACCT#%04d", i))
	var err error
	if remove {
		_, err = client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table),
			Key: dynamo.ItemToSDK(model.Item{"PK": lock["PK"], "SK": lock["SK"]})})
	} else {
		_, err = client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: dynamo.ItemToSDK(lock)})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// settled reports whether every value has n distinct events.
func settled(got map[string][]checkpointEvent, values, n int) bool {
	for i := range values {
		if len(got[email(i)]) < n {
			return false
		}
	}
	return true
}

// killedWatch runs locktable watch again and again, its stdout appended
// to one file, killing it with SIGKILL at random moments until it was
// killed so many times.
type killedWatch struct {
	t           *testing.T
	args        []string
	out, stderr string
	killed      int
	ended       chan struct{}
}

// run starts the watch again and again until done closes and it was
// killed kills times: each run is killed, while kills remain, after a
// random delay or right after its output grows (between printing a line
// and recording it), else runs until done. Once done (the writes all
// seen), the kills that remain come after a delay: the count does not
// hang on how fast the machine is.
func (w *killedWatch) run(rng *rand.Rand, kills int, done <-chan struct{}) {
	w.ended = make(chan struct{})
	defer close(w.ended)
	for {
		finished := false
		select {
		case <-done:
			finished = true
		default:
		}
		if finished && w.killed >= kills {
			return
		}
		stdout, err := os.OpenFile(w.out, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			w.t.Error(err)
			return
		}
		stderr, _ := os.OpenFile(w.stderr, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		cmd := exec.Command(binary, w.args...)
		cmd.Env = environ(nil)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Start(); err != nil {
			w.t.Error(err)
			return
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		var at, stop <-chan struct{}
		if w.killed < kills {
			at = w.moment(rng, !finished)
		} else {
			stop = done
		}
		select {
		case <-at:
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-exited
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				w.killed++
			}
		case <-stop:
			_ = cmd.Process.Signal(syscall.SIGKILL)
			<-exited
		case <-exited:
			b, _ := os.ReadFile(w.stderr)
			w.t.Errorf("watch ended by itself (%v):\n%s", cmd.ProcessState, b)
		}
		stdout.Close()
		stderr.Close()
	}
}

// moment is when the next kill comes: after a random delay of up to
// 300 ms, or, one time in two while lines come (writing), within a
// millisecond of the output growing.
func (w *killedWatch) moment(rng *rand.Rand, writing bool) <-chan struct{} {
	at := make(chan struct{})
	delay := time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
	onOutput := rng.IntN(2) == 0 && writing
	go func() {
		defer close(at)
		if onOutput {
			size := fileSize(w.out)
			for deadline := time.Now().Add(5 * time.Second); fileSize(w.out) == size && time.Now().Before(deadline); {
				time.Sleep(200 * time.Microsecond)
			}
			delay = time.Duration(rng.Int64N(int64(time.Millisecond)))
		}
		time.Sleep(delay)
	}()
	return at
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// wait waits for the last run to be stopped.
func (w *killedWatch) wait() { <-w.ended }

// await waits until the events printed so far satisfy ok: a generous
// deadline, not an assertion of speed.
func (w *killedWatch) await(ok func(map[string][]checkpointEvent) bool) {
	w.t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		if got, _ := w.events(); ok(got) {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(w.stderr)
			w.t.Fatalf("the writes' lines did not come in a minute; stderr:\n%s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// events are the distinct events printed so far by value, in the order of
// their causes in the stream, and how many lines were printed.
func (w *killedWatch) events() (map[string][]checkpointEvent, int) {
	w.t.Helper()
	b, err := os.ReadFile(w.out)
	if err != nil && !os.IsNotExist(err) {
		w.t.Fatal(err)
	}
	seen := map[string]bool{}
	got := map[string][]checkpointEvent{}
	lines := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		var e checkpointEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			w.t.Fatalf("line %d is not a JSON object: %q: %v", lines, sc.Text(), err)
		}
		if !seen[e.id()] {
			seen[e.id()] = true
			got[e.Value] = append(got[e.Value], e)
		}
	}
	// Not sorted: per value, the lines must come in the stream's order.
	return got, lines
}
