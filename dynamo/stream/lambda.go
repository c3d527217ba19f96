package stream

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/locktable/locktable/model"
)

// LambdaEvent is what AWS Lambda hands a function that a DynamoDB Streams
// event source mapping invokes: a batch of one shard's records, in the
// order they were written.
type LambdaEvent struct {
	Records []LambdaRecord `json:"Records"`
}

// LambdaRecord is one stream record as Lambda hands it on: the record of
// GetRecords, its images in DynamoDB JSON (which model.Item reads).
type LambdaRecord struct {
	EventID        string       `json:"eventID"`
	EventName      string       `json:"eventName"`
	EventSource    string       `json:"eventSource"`
	EventSourceARN string       `json:"eventSourceARN"`
	DynamoDB       LambdaChange `json:"dynamodb"`
}

// LambdaChange is a record's "dynamodb" part: the item written.
type LambdaChange struct {
	Keys           model.Item `json:"Keys,omitempty"`
	NewImage       model.Item `json:"NewImage,omitempty"`
	OldImage       model.Item `json:"OldImage,omitempty"`
	SequenceNumber string     `json:"SequenceNumber"`
	SizeBytes      int64      `json:"SizeBytes"`
	StreamViewType string     `json:"StreamViewType"`
	// ApproximateCreationDateTime is in epoch seconds, a number (not the
	// RFC 3339 text of GetRecords' JSON).
	ApproximateCreationDateTime float64 `json:"ApproximateCreationDateTime"`
}

// Change is the write r tells of, on the table its stream's ARN names.
func (r LambdaRecord) Change() (model.Change, error) {
	table, err := TableOfStream(r.EventSourceARN)
	if err != nil {
		return model.Change{}, fmt.Errorf("record %s: %w", r.DynamoDB.SequenceNumber, err)
	}
	d := r.DynamoDB
	if d.Keys == nil {
		return model.Change{}, fmt.Errorf("a record of the stream of table %s (event %s, sequence %s) has no keys", table, r.EventName, d.SequenceNumber)
	}
	sec, frac := math.Modf(d.ApproximateCreationDateTime)
	return model.Change{
		Event:    model.ChangeEvent(r.EventName),
		Table:    table,
		Keys:     d.Keys,
		Sequence: d.SequenceNumber,
		At:       time.Unix(int64(sec), int64(frac*1e9)).UTC(),
		Old:      d.OldImage,
		New:      d.NewImage,
	}, nil
}

// TableOfStream is the table whose stream arn is:
// arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL.
func TableOfStream(arn string) (string, error) {
	_, rest, ok := strings.Cut(arn, ":table/")
	name, _, hasStream := strings.Cut(rest, "/stream/")
	if !ok || !hasStream || name == "" {
		return "", fmt.Errorf("%q is not the ARN of a table's stream (arn:aws:dynamodb:REGION:ACCOUNT:table/NAME/stream/LABEL)", arn)
	}
	return name, nil
}

// SequenceBefore reports whether sequence number a comes before b in a
// shard: they are decimal numbers of any length.
func SequenceBefore(a, b string) bool {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
