package cli

import (
	"time"

	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/model"
)

// heldItems reads items kept in memory, by partition key.
type heldItems map[string]model.Item

func (h heldItems) ReadConsistent(_ context.Context, refs []model.KeyRef, visit func(string, model.Item)) error {
	for _, r := range refs {
		if it, ok := h[r.Key["PK"]]; ok {
			visit(r.Table, it)
		}
	}
	return nil
}

// flakySender fails its first sends, then keeps what it is sent.
type flakySender struct {
	fail int
	sent []string
}

func (f *flakySender) Send(_ context.Context, lines []string) error {
	if f.fail > 0 {
		f.fail--
		return errors.New("throttled")
	}
	f.sent = append(f.sent, lines...)
	return nil
}

// TestLambdaSendsAgainWhatItCouldNotSend: a line the topic or queue
// refused is not lost though its problem is known now (the records that
// made it would raise nothing again): the batch is handed back, and when
// it comes again the line goes first, once, and the records are not
// judged again.
func TestLambdaSendsAgainWhatItCouldNotSend(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	lock := model.Item{"PK": model.S("UNIQ#EMAIL#left@x.io"), "SK": model.S("LOCK"), "owner": model.S("ACCT#gone")}
	sender := &flakySender{fail: 1}
	h := &lambdaHandler{
		now:    time.Now,
		judge:  &judge{tracker: backend.NewTracker(&sc, heldItems{"UNIQ#EMAIL#left@x.io": lock}, nil, func() int64 { return 0 })},
		judged: newJudgedRecords(&sc),
		say:    sayer{w: io.Discard},
		sender: sender,
	}
	h.print = func(events []backend.Event) error {
		for _, e := range events {
			h.outbox = append(h.outbox, string(e.Kind)+" "+string(e.Problem.Kind)+" "+e.Problem.Value)
		}
		return nil
	}
	event := stream.LambdaEvent{Records: []stream.LambdaRecord{{EventName: "INSERT", EventSource: "aws:dynamodb",
		EventSourceARN: "arn:aws:dynamodb:us-east-1:1:table/" + sc.Table + "/stream/x",
		DynamoDB:       stream.LambdaChange{Keys: model.KeyItem(sc.KeyOf(sc.Table, lock)), NewImage: lock, SequenceNumber: "100"}}}}

	resp, err := h.handle(context.Background(), event)
	if err != nil || len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "100" {
		t.Fatalf("the send failed: %+v, %v; want record 100 handed back", resp, err)
	}
	resp, err = h.handle(context.Background(), event)
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("sent again: %+v, %v; want the batch done", resp, err)
	}
	if want := []string{"appeared orphan_lock left@x.io"}; !slices.Equal(sender.sent, want) {
		t.Errorf("sent %q; want %q, once", sender.sent, want)
	}
}

// TestLambdaPassesOverAnotherTable: records of a table the schema does
// not name (the mapping reads another stream) are not judged, and that
// is said once, not at every batch.
func TestLambdaPassesOverAnotherTable(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	var said strings.Builder
	h := &lambdaHandler{
		now:    time.Now,
		judge:  &judge{tracker: backend.NewTracker(&sc, heldItems{}, nil, func() int64 { return 0 })},
		judged: newJudgedRecords(&sc),
		say:    sayer{w: &said},
		print:  func([]backend.Event) error { t.Error("printed"); return nil },
	}
	lock := model.Item{"PK": model.S("UNIQ#EMAIL#x@x.io"), "SK": model.S("LOCK")}
	for _, seq := range []string{"1", "2"} {
		event := stream.LambdaEvent{Records: []stream.LambdaRecord{{EventName: "INSERT", EventSourceARN: "arn:aws:dynamodb:us-east-1:1:table/orders/stream/x",
			DynamoDB: stream.LambdaChange{Keys: lock, NewImage: lock, SequenceNumber: seq}}}}
		if resp, err := h.handle(context.Background(), event); err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("%+v, %v", resp, err)
		}
	}
	if got := said.String(); strings.Count(got, "orders") != 1 || !strings.Contains(got, "the schema does not name") {
		t.Errorf("said %q; want one note naming orders", got)
	}
}
