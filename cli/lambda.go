package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/spf13/pflag"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/config"
	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/notify"
)

// runtimeAPI is the variable the Lambda runtime sets to the address of
// its runtime API: where a function asks for its next invocation.
const runtimeAPI = "AWS_LAMBDA_RUNTIME_API"

// BootstrapArgs are the arguments locktable runs with, given the process's
// argv and environment: started by the Lambda runtime as bootstrap (the
// name a provided.al2023 function's binary has), it is watch --lambda,
// its flags from LOCKTABLE_<FLAG> variables and the config file, as a
// function has no command line.
func BootstrapArgs(argv []string, getenv func(string) string) []string {
	if len(argv) == 0 {
		return nil
	}
	if filepath.Base(argv[0]) == "bootstrap" && getenv(runtimeAPI) != "" {
		return append([]string{"watch", "--lambda"}, argv[1:]...)
	}
	return argv[1:]
}

// runLambda is watch --lambda: the judge of runWatch as a Lambda
// function that a DynamoDB Streams event source mapping invokes with
// batches of records, which the mapping reads, in place of the follow.
// It returns only on an error before the first invocation: the runtime
// loop ends the process when the runtime API fails (Lambda starts
// another).
func (a *app) runLambda(ctx context.Context, l lambdaFlags, s model.Schema, say sayer) error {
	if os.Getenv(runtimeAPI) == "" {
		return usageErr("--lambda runs inside AWS Lambda, which sets %s: it is not set", runtimeAPI)
	}
	if a.demo {
		return usageErr("--lambda judges a table's stream records, and the demo's embedded backend has none")
	}
	store, err := a.open(ctx, s)
	if err != nil {
		return err
	}
	sender, err := l.sender(a.conn.Config())
	if err != nil {
		return err
	}
	sc := &store.Schema
	h := &lambdaHandler{
		now:    a.clock.Now,
		sender: sender,
		judge:  &judge{tracker: backend.NewTracker(sc, store.Pages, store.Lookup, func() int64 { return model.Epoch(a.clock.Now()) })},
		judged: newJudgedRecords(sc),
		say:    say,
	}
	if sender != nil {
		// The lines printed are sent on too: printEvent writes them.
		a.stdout = io.MultiWriter(a.stdout, (*lineOutbox)(&h.outbox))
	}
	h.print = func(events []backend.Event) error {
		return printAll(events, func(e backend.Event) error { return a.printEvent(e, sc, watchFlags{asJSON: true}, nil) }, func() error { return nil })
	}
	say.info(fmt.Sprintf("judging the stream records Lambda hands on, of %s", sc.Table), "table", sc.Table)
	lambda.StartWithOptions(h.handle, lambda.WithContext(ctx))
	return nil
}

// lambdaHandler judges the batches of stream records Lambda hands on,
// one tracker over the life of the execution environment.
type lambdaHandler struct {
	now    func() time.Time // the time of day: the invocation's deadline is one
	judge  *judge
	judged *judgedRecords
	print  func([]backend.Event) error
	say    sayer
	// sender, when set, sends on the lines printed; outbox holds those
	// not sent yet (a send failed), which go first at the next
	// invocation.
	sender notify.Sender
	outbox []string
	// strangers are the tables not the schema's whose records came,
	// said once each.
	strangers map[string]bool
}

// noteStranger says, once, that records of table come, which the schema
// does not name: the event source mapping reads another table's stream,
// or the flags name another table. Such records say nothing of the
// schema's tables, and are passed over.
func (h *lambdaHandler) noteStranger(table string) {
	if h.strangers[table] {
		return
	}
	if h.strangers == nil {
		h.strangers = map[string]bool{}
	}
	h.strangers[table] = true
	h.say.note(table, "records of this table come, which the schema does not name (--table, --unique): they are passed over; "+
		"does the event source mapping read the right stream?")
}

// handle judges the records of e that were not judged before, as watch
// judges a batch, and prints the events. The records it could not judge
// (a read failed or timed out, a record it cannot read) go back as batch
// item failures: with ReportBatchItemFailures, Lambda sends again from
// the first of them, so none is dropped.
func (h *lambdaHandler) handle(ctx context.Context, e stream.LambdaEvent) (events.DynamoDBEventResponse, error) {
	var changes []model.Change
	if err := h.send(ctx); err != nil {
		h.say.note("", fmt.Sprintf("%d lines not sent, sent again first at the next invocation, and this batch of %d records handed back: %v",
			len(h.outbox), len(e.Records), err))
		return failures(sequencesOf(e.Records)), nil
	}
	var failed []string // sequence numbers of the records not judged
	h.judged.begin()
	tables := h.judged.sc.Tables()
	for i, r := range e.Records {
		c, err := r.Change()
		if err != nil {
			h.say.note("", fmt.Sprintf("a record handed on is not a table's stream record (handed back, with the %d after it): %v", len(e.Records)-i-1, err))
			failed = sequencesOf(e.Records[i:])
			break
		}
		if !slices.Contains(tables, c.Table) {
			h.noteStranger(c.Table)
			continue
		}
		if h.judged.fresh(c) {
			changes = append(changes, c)
		}
	}
	if len(changes) > 0 {
		jctx, cancel := beforeDeadline(ctx, h.now())
		defer cancel()
		if err := h.judge.judge(jctx, changes, h.print); err != nil {
			h.say.note("", fmt.Sprintf("%d records not judged, handed back to be sent again: %v", len(changes), err))
			seqs := make([]string, len(changes))
			for i, c := range changes {
				seqs[i] = c.Sequence
			}
			failed = append(seqs, failed...)
		} else {
			h.judged.judged()
			if err := h.send(jctx); err != nil {
				// Judged, so not judged again: handed back, the batch
				// comes again, and the lines are sent first.
				h.say.note("", fmt.Sprintf("%d lines not sent, sent again at the next invocation, which this batch's %d records are handed back for: %v",
					len(h.outbox), len(changes), err))
				failed = sequencesOf(e.Records)
			}
		}
	}
	return failures(failed), nil
}

// send sends the lines of the outbox on, and empties it.
func (h *lambdaHandler) send(ctx context.Context) error {
	if h.sender == nil || len(h.outbox) == 0 {
		return nil
	}
	if err := h.sender.Send(ctx, h.outbox); err != nil {
		return err
	}
	h.outbox = nil
	return nil
}

// failures is the answer that hands back the records of seqs (none: the
// batch is done).
func failures(seqs []string) events.DynamoDBEventResponse {
	resp := events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}
	for _, seq := range seqs {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: seq})
	}
	return resp
}

// sequencesOf are the sequence numbers of records.
func sequencesOf(records []stream.LambdaRecord) []string {
	seqs := make([]string, len(records))
	for i, r := range records {
		seqs[i] = r.DynamoDB.SequenceNumber
	}
	return seqs
}

// lineOutbox takes what printEvent writes, whole lines, one each.
type lineOutbox []string

func (o *lineOutbox) Write(p []byte) (int, error) {
	for line := range strings.Lines(string(p)) {
		*o = append(*o, strings.TrimSuffix(line, "\n"))
	}
	return len(p), nil
}

// lambdaFlags are watch's flags for running inside AWS Lambda.
type lambdaFlags struct {
	on                       bool
	snsTopicARN, sqsQueueURL string
}

func (l *lambdaFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&l.on, "lambda", false, "judge inside AWS Lambda the batches of records a DynamoDB Streams event source mapping hands on, printing JSON lines (the binary named bootstrap does it; docs/watch.md)")
	fs.StringVar(&l.snsTopicARN, "sns-topic-arn", "", "with --lambda, publish each line to this SNS topic too (LOCKTABLE_SNS_TOPIC_ARN)")
	fs.StringVar(&l.sqsQueueURL, "sqs-queue-url", "", "with --lambda, send each line to this SQS queue too (LOCKTABLE_SQS_QUEUE_URL)")
}

// sender is where the flags (else, as a function has no command line,
// their LOCKTABLE_ variables) say the lines go besides stdout: nil for
// nowhere.
func (l lambdaFlags) sender(cfg aws.Config) (notify.Sender, error) {
	for name, v := range map[string]*string{"sns-topic-arn": &l.snsTopicARN, "sqs-queue-url": &l.sqsQueueURL} {
		if *v == "" {
			*v = os.Getenv(config.EnvName(name))
		}
	}
	switch {
	case l.snsTopicARN != "" && l.sqsQueueURL != "":
		return nil, usageErr("--sns-topic-arn and --sqs-queue-url: one of them (a topic can feed a queue)")
	case l.snsTopicARN != "":
		return notify.Topic{API: sns.NewFromConfig(cfg), ARN: l.snsTopicARN}, nil
	case l.sqsQueueURL != "":
		return notify.Queue{API: sqs.NewFromConfig(cfg), URL: l.sqsQueueURL}, nil
	}
	return nil, nil
}

// beforeDeadline is ctx ending a little before the invocation's
// deadline: a judgement still reading then fails, and its records go
// back, rather than Lambda ending the invocation and retrying all of it.
func beforeDeadline(ctx context.Context, now time.Time) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	margin := min(time.Second, deadline.Sub(now)/4)
	return context.WithDeadline(ctx, deadline.Add(-margin))
}

// judgedRecords remembers the last record judged of each item. An event
// source mapping sends a record again (the batch it was in failed, or a
// retry of a whole batch), and across shards records come in any order:
// a record no later than one judged of its item is not judged again, as
// the judgement of the later one read what it wrote. Judged again, it
// would wait for a later write's record that came already (Tracker's
// reads show the item as the later write left it), holding up the
// judgement of its values.
type judgedRecords struct {
	sc   *model.Schema
	last map[string]string // item (KeyRef.ID) -> sequence number
	// batch are the fresh records of the batch being judged.
	batch map[string]string
}

// maxRemembered bounds the items remembered: past it they are
// forgotten, and a record of theirs sent again is judged again.
const maxRemembered = 100_000

func newJudgedRecords(sc *model.Schema) *judgedRecords {
	return &judgedRecords{sc: sc, last: map[string]string{}, batch: map[string]string{}}
}

// fresh reports whether c is later than every record judged of its item
// and every fresh one of this batch, and counts it in the batch.
func (j *judgedRecords) fresh(c model.Change) bool {
	id := model.KeyRef{Table: c.Table, Key: j.sc.KeyOf(c.Table, c.Keys)}.ID()
	for _, seen := range []map[string]string{j.last, j.batch} {
		if seq, ok := seen[id]; ok && !stream.SequenceBefore(seq, c.Sequence) {
			return false
		}
	}
	j.batch[id] = c.Sequence
	return true
}

// begin starts a batch: the fresh records of one that was not judged
// are forgotten.
func (j *judgedRecords) begin() { clear(j.batch) }

// judged remembers the batch's fresh records as judged.
func (j *judgedRecords) judged() {
	if len(j.last)+len(j.batch) > maxRemembered {
		clear(j.last)
	}
	for id, seq := range j.batch {
		j.last[id] = seq
	}
	clear(j.batch)
}
