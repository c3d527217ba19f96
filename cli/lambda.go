package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/model"
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
func (a *app) runLambda(ctx context.Context, s model.Schema, say sayer) error {
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
	sc := &store.Schema
	h := &lambdaHandler{
		judge:  &judge{tracker: backend.NewTracker(sc, store.Pages, store.Lookup, func() int64 { return model.Epoch(a.clock.Now()) })},
		judged: newJudgedRecords(sc),
		say:    say,
		print: func(events []backend.Event) error {
			return a.printEvents(events, sc, watchFlags{asJSON: true}, nil)
		},
	}
	say.info(fmt.Sprintf("judging the stream records Lambda hands on, of %s", sc.Table), "table", sc.Table)
	lambda.StartWithOptions(h.handle, lambda.WithContext(ctx))
	return nil
}

// lambdaHandler judges the batches of stream records Lambda hands on,
// one tracker over the life of the execution environment.
type lambdaHandler struct {
	judge  *judge
	judged *judgedRecords
	print  func([]backend.Event) error
	say    sayer
}

// handle judges the records of e that were not judged before, as watch
// judges a batch, and prints the events. The records it could not judge
// (a read failed or timed out, a record it cannot read) go back as batch
// item failures: with ReportBatchItemFailures, Lambda sends again from
// the first of them, so none is dropped.
func (h *lambdaHandler) handle(ctx context.Context, e stream.LambdaEvent) (events.DynamoDBEventResponse, error) {
	var changes []model.Change
	var failed []string // sequence numbers of the records not judged
	h.judged.begin()
	for i, r := range e.Records {
		c, err := r.Change()
		if err != nil {
			h.say.note("", fmt.Sprintf("a record handed on is not a table's stream record (handed back, with the %d after it): %v", len(e.Records)-i-1, err))
			for _, rest := range e.Records[i:] {
				failed = append(failed, rest.DynamoDB.SequenceNumber)
			}
			break
		}
		if h.judged.fresh(c) {
			changes = append(changes, c)
		}
	}
	if len(changes) > 0 {
		jctx, cancel := beforeDeadline(ctx)
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
		}
	}
	resp := events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}
	for _, seq := range failed {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: seq})
	}
	return resp, nil
}

// beforeDeadline is ctx ending a little before the invocation's
// deadline: a judgement still reading then fails, and its records go
// back, rather than Lambda ending the invocation and retrying all of it.
func beforeDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	margin := min(time.Second, time.Until(deadline)/4)
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
