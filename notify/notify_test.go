package notify_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/locktable/locktable/notify"
)

// queue keeps the batches sent to it, and fails the entries it is told to.
type queue struct {
	batches [][]string
	failID  string
}

func (q *queue) SendMessageBatch(_ context.Context, in *sqs.SendMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	var bodies []string
	out := &sqs.SendMessageBatchOutput{}
	for _, e := range in.Entries {
		bodies = append(bodies, aws.ToString(e.MessageBody))
		if aws.ToString(e.Id) == q.failID {
			out.Failed = append(out.Failed, sqstypes.BatchResultErrorEntry{Id: e.Id, Code: aws.String("KmsThrottled"), Message: aws.String("slow down")})
		}
	}
	q.batches = append(q.batches, bodies)
	return out, nil
}

// TestQueueSendsTenARequest: 23 lines go as three batches, in order; an
// entry SQS reports failed fails the send.
func TestQueueSendsTenARequest(t *testing.T) {
	var lines []string
	for i := range 23 {
		lines = append(lines, fmt.Sprintf(`{"n":%d}`, i))
	}
	q := &queue{failID: "none"}
	if err := (notify.Queue{API: q, URL: "https://sqs/q"}).Send(context.Background(), lines); err != nil {
		t.Fatal(err)
	}
	if len(q.batches) != 3 || len(q.batches[0]) != 10 || len(q.batches[2]) != 3 || !slices.Equal(slices.Concat(q.batches...), lines) {
		t.Errorf("batches %q", q.batches)
	}
	q = &queue{failID: "1"}
	if err := (notify.Queue{API: q, URL: "https://sqs/q"}).Send(context.Background(), lines[:2]); err == nil {
		t.Error("a failed entry did not fail the send")
	}
}

// topic keeps what is published to it.
type topic struct{ published []string }

func (tp *topic) Publish(_ context.Context, in *sns.PublishInput, _ ...func(*sns.Options)) (*sns.PublishOutput, error) {
	if aws.ToString(in.TopicArn) != "arn:aws:sns:us-east-1:1:problems" {
		return nil, fmt.Errorf("topic %s", aws.ToString(in.TopicArn))
	}
	tp.published = append(tp.published, aws.ToString(in.Message))
	return &sns.PublishOutput{}, nil
}

// TestTopicPublishesEachLine: one message a line, in order, to the topic.
func TestTopicPublishesEachLine(t *testing.T) {
	tp := &topic{}
	lines := []string{`{"kind":"orphan_lock"}`, `{"kind":"missing_lock"}`}
	if err := (notify.Topic{API: tp, ARN: "arn:aws:sns:us-east-1:1:problems"}).Send(context.Background(), lines); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tp.published, lines) {
		t.Errorf("published %q", tp.published)
	}
}
