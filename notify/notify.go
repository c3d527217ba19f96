// Package notify sends watch's problem lines (its JSON objects, one a
// line) on to an Amazon SNS topic or an Amazon SQS queue, one message a
// line, for a function that watches a table's stream from Lambda.
package notify

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Sender sends lines on, each a message, in order; an error means some
// may not have been sent (send them all again: a reader meets a line
// twice, never none).
type Sender interface {
	Send(ctx context.Context, lines []string) error
}

// SNSAPI is the part of the SNS client a topic uses.
type SNSAPI interface {
	Publish(context.Context, *sns.PublishInput, ...func(*sns.Options)) (*sns.PublishOutput, error)
}

var _ SNSAPI = (*sns.Client)(nil)

// Topic publishes each line to an SNS topic.
type Topic struct {
	API SNSAPI
	ARN string
}

// Send publishes lines to the topic, one message each.
func (t Topic) Send(ctx context.Context, lines []string) error {
	for _, line := range lines {
		if _, err := t.API.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(t.ARN), Message: aws.String(line)}); err != nil {
			return fmt.Errorf("publish to %s: %w", t.ARN, err)
		}
	}
	return nil
}

// SQSAPI is the part of the SQS client a queue uses.
type SQSAPI interface {
	SendMessageBatch(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

var _ SQSAPI = (*sqs.Client)(nil)

// Queue sends each line to an SQS queue.
type Queue struct {
	API SQSAPI
	URL string
}

// maxBatch is how many messages one SendMessageBatch takes.
const maxBatch = 10

// Send sends lines to the queue, ten a request.
func (q Queue) Send(ctx context.Context, lines []string) error {
	for start := 0; start < len(lines); start += maxBatch {
		var entries []sqstypes.SendMessageBatchRequestEntry
		for i, line := range lines[start:min(start+maxBatch, len(lines))] {
			entries = append(entries, sqstypes.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(line)})
		}
		out, err := q.API.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(q.URL), Entries: entries})
		if err != nil {
			return fmt.Errorf("send to %s: %w", q.URL, err)
		}
		if len(out.Failed) > 0 {
			f := out.Failed[0]
			return fmt.Errorf("send to %s: %d of %d messages failed, the first with %s: %s", q.URL, len(out.Failed), len(entries),
				aws.ToString(f.Code), aws.ToString(f.Message))
		}
	}
	return nil
}
