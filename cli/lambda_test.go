package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/internal/testseed"
	"github.com/locktable/locktable/model"
)

// TestBootstrapArgs: the binary started as bootstrap by the Lambda
// runtime is watch --lambda; under any other name, or without the
// runtime's variable, its arguments are its own.
func TestBootstrapArgs(t *testing.T) {
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == "AWS_LAMBDA_RUNTIME_API" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		argv []string
		api  string
		want []string
	}{
		{[]string{"/var/task/bootstrap"}, "127.0.0.1:9001", []string{"watch", "--lambda"}},
		{[]string{"bootstrap", "--table", "t"}, "127.0.0.1:9001", []string{"watch", "--lambda", "--table", "t"}},
		{[]string{"/var/task/bootstrap", "check"}, "", []string{"check"}},
		{[]string{"/usr/bin/locktable", "check"}, "127.0.0.1:9001", []string{"check"}},
	} {
		if got := cli.BootstrapArgs(c.argv, env(c.api)); !slices.Equal(got, c.want) {
			t.Errorf("%q with the runtime API at %q: %q; want %q", c.argv, c.api, got, c.want)
		}
	}
}

// TestLambdaOutsideLambda: watch --lambda where no Lambda runtime is
// says so (exit 2), rather than the runtime library's fatal log.
func TestLambdaOutsideLambda(t *testing.T) {
	t.Setenv("AWS_LAMBDA_RUNTIME_API", "")
	r := run(t, "watch", "--lambda", "--endpoint-url", "http://127.0.0.1:1", "--table", "accounts")
	if r.code != cli.ExitError || !strings.Contains(r.stderr, "AWS_LAMBDA_RUNTIME_API") {
		t.Errorf("exit %d, stderr %q; want 2 naming AWS_LAMBDA_RUNTIME_API", r.code, r.stderr)
	}
}

// TestLambdaJudgesAsWatchDoes (issue 40, 3): the binary started as
// bootstrap under a Lambda runtime API (served here) is handed the
// records of dynoxide's stream as an event source mapping hands them
// on, with records sent again and reordered across batches. Its JSON
// lines, by problem and event, are those of one watch --json over the
// same writes (no problem appears twice for a record sent again). A
// batch whose reads fail (the invocation past its deadline before it
// begins, or the endpoint answering as for a table that does not exist)
// comes back as batch item failures naming its records not judged
// before, which are judged when sent again. Random writes, one at a
// time, each followed by a sentinel (an orphan lock of its own value)
// that tells when watch has judged the write; seeds 1 and 2,
// LOCKTABLE_SEED=N runs seed N alone.
func TestLambdaJudgesAsWatchDoes(t *testing.T) {
	dynamotest.Endpoint(t)
	t.Parallel()
	bin := buildBootstrap(t)
	seeds := []uint64{1, 2}
	if v, ok := testseed.FromEnv(t); ok {
		seeds = []uint64{v}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			judgesAsWatchDoes(t, bin, seed)
		})
	}
}

func judgesAsWatchDoes(t *testing.T, bin string, seed uint64) {
	t.Logf("seed %d (LOCKTABLE_SEED=%d replays it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 40))
	store, client, flags := watchedTable(t)
	table := store.Schema.Table
	w := startWatch(t, append([]string{"--json"}, flags...)...)
	records := newStreamReader(t, client, table)
	var gone atomic.Bool
	fn := startFunction(t, bin, map[string]string{"LOCKTABLE_ENDPOINT_URL": tableGone(t, &gone), "LOCKTABLE_TABLE": table})

	var watched []string // watch's lines, by problem and event
	var sent []stream.LambdaRecord
	failures := 0
	const steps = 12
	for k := range steps {
		what := randomWrite(t, rng, client, table)
		sentinel := fmt.Sprintf("sentinel-%d@x.io", k)
		dynamotest.Put(t, client, table, dynamotest.Lock("UNIQ#EMAIL#"+sentinel, "ACCT#nobody"))
		for {
			e := w.nextEvent()
			watched = append(watched, eventIdentity(e))
			if e.Value == sentinel {
				break
			}
		}
		fresh := records.until(sentinel)
		for _, batch := range batches(rng, fresh, sent) {
			if why := rng.IntN(6); why < 2 {
				deadline := time.Now().Add(time.Minute)
				if why == 0 {
					deadline = time.Now().Add(-time.Second) // past before it begins: every read fails
				} else {
					gone.Store(true) // the table is not found
				}
				failed := fn.invoke(batch, deadline)
				gone.Store(false)
				want := sequences(slices.DeleteFunc(slices.Clone(batch), func(r stream.LambdaRecord) bool { return !slices.Contains(sequences(fresh), r.DynamoDB.SequenceNumber) }))
				if !slices.Equal(failed, want) {
					t.Fatalf("step %d (%s): a batch whose reads failed (%s) handed back %q; want its records not judged before, %q",
						k, what, []string{"past its deadline", "the table not found"}[why], failed, want)
				}
				failures++
			}
			if failed := fn.invoke(batch, time.Now().Add(time.Minute)); len(failed) != 0 {
				t.Fatalf("step %d (%s): batch item failures %q", k, what, failed)
			}
		}
		sent = append(sent, fresh...)
	}
	judged := fn.stop()
	slices.Sort(watched)
	slices.Sort(judged)
	if !slices.Equal(judged, watched) {
		t.Errorf("the function printed\n  %s\nwatch --json printed\n  %s", strings.Join(judged, "\n  "), strings.Join(watched, "\n  "))
	}
	if len(watched) == steps {
		t.Errorf("the writes made no problem but the sentinels: seed %d tests little", seed)
	}
	t.Logf("%d lines alike, %d batches failed and sent again", len(watched), failures)
}

// tableGone is an endpoint that passes requests on to dynoxide, but
// while gone is set answers each as DynamoDB answers for a table that
// does not exist (an error the SDK does not retry).
func tableGone(t *testing.T, gone *atomic.Bool) string {
	t.Helper()
	target, err := url.Parse(dynamotest.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !gone.Load() {
			proxy.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// eventIdentity is a line of watch --json by problem and event.
func eventIdentity(e watchEvent) string {
	return fmt.Sprintf("%s %s %s %q lock=%s owner=%s accounts=%v", e.Event, e.Kind, e.Constraint, e.Value, e.Lock["PK"], e.Owner, e.Accounts)
}

// randomWrite makes one write outside the pattern to a few accounts,
// emails and email locks, and says what it did.
func randomWrite(t *testing.T, rng *rand.Rand, client *dynamodb.Client, table string) string {
	t.Helper()
	id := fmt.Sprintf("ACCT#a%d", rng.IntN(3))
	email := fmt.Sprintf("e%d@x.io", rng.IntN(3))
	var what string
	switch rng.IntN(5) {
	case 0, 1:
		dynamotest.Put(t, client, table, model.Item{"PK": model.S(id), "SK": model.S("PROFILE"), "email": model.S(email)})
		what = "put " + id + " holding " + email
	case 2:
		deleteRaw(t, client, table, id)
		what = "delete " + id
	case 3:
		dynamotest.Put(t, client, table, dynamotest.Lock("UNIQ#EMAIL#"+email, id))
		what = "put the lock of " + email + " owned by " + id
	default:
		_, err := client.DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: aws.String(table),
			Key: dynamo.ItemToSDK(model.Item{"PK": model.S("UNIQ#EMAIL#" + email), "SK": model.S("LOCK")})})
		if err != nil {
			t.Fatal(err)
		}
		what = "delete the lock of " + email
	}
	return what
}

// batches hands fresh records on in one or two batches, shuffled, each
// with up to two records sent before sent again.
func batches(rng *rand.Rand, fresh, sent []stream.LambdaRecord) [][]stream.LambdaRecord {
	records := slices.Clone(fresh)
	rng.Shuffle(len(records), func(i, j int) { records[i], records[j] = records[j], records[i] })
	cut := rng.IntN(len(records) + 1)
	var out [][]stream.LambdaRecord
	for _, b := range [][]stream.LambdaRecord{records[:cut], records[cut:]} {
		for range rng.IntN(3) {
			if len(sent) > 0 {
				at := rng.IntN(len(b) + 1)
				b = slices.Insert(slices.Clip(b), at, sent[rng.IntN(len(sent))])
			}
		}
		if len(b) > 0 {
			out = append(out, b)
		}
	}
	return out
}

func sequences(records []stream.LambdaRecord) []string {
	out := []string{}
	for _, r := range records {
		out = append(out, r.DynamoDB.SequenceNumber)
	}
	return out
}

// streamReader reads a table's stream with the DynamoDB Streams client,
// from its oldest record, and makes each record what Lambda hands on.
type streamReader struct {
	t         *testing.T
	api       *dynamodbstreams.Client
	arn       string
	iterators map[string]*string // by shard
}

func newStreamReader(t *testing.T, client *dynamodb.Client, table string) *streamReader {
	t.Helper()
	conn, err := dynamo.Connect(context.Background(), dynamo.ClientOptions{EndpointURL: dynamotest.Endpoint(t)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatal(err)
	}
	return &streamReader{t: t, api: conn.Streams(), arn: aws.ToString(d.Table.LatestStreamArn), iterators: map[string]*string{}}
}

// until reads the records written since the last read, up to the one
// that puts the lock of sentinel.
func (s *streamReader) until(sentinel string) []stream.LambdaRecord {
	s.t.Helper()
	ctx := context.Background()
	var out []stream.LambdaRecord
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		d, err := s.api.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(s.arn)})
		if err != nil {
			s.t.Fatal(err)
		}
		for _, sh := range d.StreamDescription.Shards {
			id := aws.ToString(sh.ShardId)
			if _, ok := s.iterators[id]; !ok {
				it, err := s.api.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(s.arn), ShardId: sh.ShardId,
					ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
				if err != nil {
					s.t.Fatal(err)
				}
				s.iterators[id] = it.ShardIterator
			}
			for s.iterators[id] != nil {
				got, err := s.api.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: s.iterators[id]})
				if err != nil {
					s.t.Fatal(err)
				}
				s.iterators[id] = got.NextShardIterator
				if len(got.Records) == 0 {
					break
				}
				for _, r := range got.Records {
					out = append(out, s.lambdaRecord(r))
				}
			}
		}
		if slices.ContainsFunc(out, func(r stream.LambdaRecord) bool { return r.DynamoDB.Keys["PK"].S == "UNIQ#EMAIL#"+sentinel }) {
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("the record of %s's lock did not come in 30 s", sentinel)
	return nil
}

// lambdaRecord is r as Lambda hands it on.
func (s *streamReader) lambdaRecord(r streamtypes.Record) stream.LambdaRecord {
	s.t.Helper()
	d := r.Dynamodb
	item := func(av map[string]streamtypes.AttributeValue) model.Item {
		if av == nil {
			return nil
		}
		ddb, err := attributevalue.FromDynamoDBStreamsMap(av)
		if err != nil {
			s.t.Fatal(err)
		}
		return dynamo.ItemFromSDK(ddb)
	}
	return stream.LambdaRecord{
		EventID: aws.ToString(r.EventID), EventName: string(r.EventName), EventSource: "aws:dynamodb", EventSourceARN: s.arn,
		DynamoDB: stream.LambdaChange{
			Keys: item(d.Keys), NewImage: item(d.NewImage), OldImage: item(d.OldImage),
			SequenceNumber: aws.ToString(d.SequenceNumber), SizeBytes: aws.ToInt64(d.SizeBytes), StreamViewType: string(d.StreamViewType),
			ApproximateCreationDateTime: float64(aws.ToTime(d.ApproximateCreationDateTime).Unix()),
		},
	}
}

var bootstrap struct {
	once sync.Once
	bin  string
	err  error
}

// buildBootstrap builds locktable, once for the tests that run it, as a
// Lambda function's binary is named: bootstrap (into the state
// directory TestMain removes).
func buildBootstrap(t *testing.T) string {
	t.Helper()
	bootstrap.once.Do(func() {
		bootstrap.bin = filepath.Join(os.Getenv("XDG_STATE_HOME"), "lambda", "bootstrap")
		out, err := exec.Command("go", "build", "-o", bootstrap.bin, "github.com/locktable/locktable").CombinedOutput()
		if err != nil {
			bootstrap.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if bootstrap.err != nil {
		t.Fatal(bootstrap.err)
	}
	return bootstrap.bin
}

// TestLambdaSendsToAQueue: with LOCKTABLE_SQS_QUEUE_URL (the binary
// started as bootstrap has no command line), each line the function
// prints is also a message of the queue (moto's SQS).
func TestLambdaSendsToAQueue(t *testing.T) {
	dynamotest.Endpoint(t)
	t.Parallel()
	motoURL := startMoto(t)
	ctx := context.Background()
	conn, err := dynamo.Connect(ctx, dynamo.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	q := sqs.NewFromConfig(conn.Config(), func(o *sqs.Options) { o.BaseEndpoint = aws.String(motoURL) })
	created, err := q.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("locktable-problems")})
	if err != nil {
		t.Fatal(err)
	}
	store, client, _ := watchedTable(t)
	table := store.Schema.Table
	records := newStreamReader(t, client, table)
	fn := startFunction(t, buildBootstrap(t), map[string]string{"LOCKTABLE_ENDPOINT_URL": dynamotest.Endpoint(t), "LOCKTABLE_TABLE": table,
		"LOCKTABLE_SQS_QUEUE_URL": aws.ToString(created.QueueUrl), "AWS_ENDPOINT_URL_SQS": motoURL})

	dynamotest.Put(t, client, table, dynamotest.Lock("UNIQ#EMAIL#left@x.io", "ACCT#gone"))
	if failed := fn.invoke(records.until("left@x.io"), time.Now().Add(time.Minute)); len(failed) != 0 {
		t.Fatalf("batch item failures %q", failed)
	}
	got, err := q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: created.QueueUrl, MaxNumberOfMessages: 10})
	if err != nil {
		t.Fatal(err)
	}
	printed := strings.TrimSuffix(fn.stdoutNow(), "\n")
	if len(got.Messages) != 1 || aws.ToString(got.Messages[0].Body) != printed || !strings.Contains(printed, `"kind":"orphan_lock"`) {
		t.Errorf("the queue holds %d messages (%+v); want the one line printed, %s", len(got.Messages), got.Messages, printed)
	}
}

// startMoto starts moto's server (python3 -m moto.server) on a free
// port and returns its URL; without moto the test is skipped.
func startMoto(t *testing.T) string {
	t.Helper()
	if err := exec.Command("python3", "-c", "import moto.server").Run(); err != nil {
		t.Skipf("moto's server is not installed (pip install 'moto[server]'): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("python3", "-m", "moto.server", "-p", strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(url + "/moto-api/"); err == nil {
			resp.Body.Close()
			return url
		}
	}
	t.Fatal("moto's server did not answer in 30 s")
	return ""
}

// function is the binary run by a Lambda runtime API that this test
// serves: each invoke hands it one event and waits for its answer.
type function struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdout  lockedBuffer
	stderr  lockedBuffer
	next    chan invocation
	answers chan answer
	count   int
}

// lockedBuffer is what the function writes to a pipe, which the test
// reads meanwhile.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type invocation struct {
	id       string
	deadline time.Time
	event    []byte
}

type answer struct {
	id, kind string // kind: response or error
	body     []byte
}

// startFunction serves the runtime API (next invocation, response,
// error) and starts bin under it, as bootstrap, with env added.
func startFunction(t *testing.T, bin string, env map[string]string) *function {
	t.Helper()
	f := &function{t: t, next: make(chan invocation), answers: make(chan answer, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", func(w http.ResponseWriter, r *http.Request) {
		select {
		case inv := <-f.next:
			w.Header().Set("Lambda-Runtime-Aws-Request-Id", inv.id)
			w.Header().Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(inv.deadline.UnixMilli(), 10))
			w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:locktable-watch")
			_, _ = w.Write(inv.event)
		case <-r.Context().Done():
		}
	})
	for _, kind := range []string{"response", "error"} {
		mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/"+kind, func(w http.ResponseWriter, r *http.Request) {
			var body bytes.Buffer
			_, _ = body.ReadFrom(r.Body)
			w.WriteHeader(http.StatusAccepted)
			f.answers <- answer{id: r.PathValue("id"), kind: kind, body: body.Bytes()}
		})
	}
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		_, _ = body.ReadFrom(r.Body)
		w.WriteHeader(http.StatusAccepted)
		f.answers <- answer{kind: "init error", body: body.Bytes()}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	f.cmd = exec.Command(bin)
	f.cmd.Env = append(os.Environ(), "AWS_LAMBDA_RUNTIME_API="+strings.TrimPrefix(srv.URL, "http://"), "AWS_EC2_METADATA_DISABLED=true")
	for k, v := range env {
		f.cmd.Env = append(f.cmd.Env, k+"="+v)
	}
	f.cmd.Stdout, f.cmd.Stderr = &f.stdout, &f.stderr
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { _ = f.cmd.Process.Kill(); _ = f.cmd.Wait() }) })
	return f
}

// invoke hands the function records with deadline and returns the
// sequence numbers of the batch item failures it answers.
func (f *function) invoke(records []stream.LambdaRecord, deadline time.Time) []string {
	f.t.Helper()
	f.count++
	id := fmt.Sprintf("request-%d", f.count)
	event, err := json.Marshal(stream.LambdaEvent{Records: records})
	if err != nil {
		f.t.Fatal(err)
	}
	select {
	case f.next <- invocation{id: id, deadline: deadline, event: event}:
	case <-time.After(time.Minute):
		f.t.Fatalf("the function did not ask for its next invocation in a minute\nstderr: %s", f.stderr.String())
	}
	select {
	case a := <-f.answers:
		if a.kind != "response" || a.id != id {
			f.t.Fatalf("the function answered %s %s: %s; want the response to %s\nstderr: %s", a.kind, a.id, a.body, id, f.stderr.String())
		}
		var resp events.DynamoDBEventResponse
		if err := json.Unmarshal(a.body, &resp); err != nil || resp.BatchItemFailures == nil {
			f.t.Fatalf("response %s: %v; want batchItemFailures", a.body, err)
		}
		failed := []string{}
		for _, b := range resp.BatchItemFailures {
			failed = append(failed, b.ItemIdentifier)
		}
		return failed
	case <-time.After(time.Minute):
		f.t.Fatalf("no answer to %s in a minute\nstderr: %s", id, f.stderr.String())
	}
	return nil
}

// stdoutNow is what the function printed so far (only while it waits
// for its next invocation: it prints nothing then).
func (f *function) stdoutNow() string { return f.stdout.String() }

// stop ends the function and returns its JSON lines, by problem and
// event.
func (f *function) stop() []string {
	f.t.Helper()
	_ = f.cmd.Process.Kill()
	_ = f.cmd.Wait()
	var out []string
	for line := range strings.Lines(f.stdout.String()) {
		var e watchEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			f.t.Fatalf("not a JSON line: %q: %v", line, err)
		}
		out = append(out, eventIdentity(e))
	}
	return out
}
