package stream_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/model"
)

// TestLambdaRecordChange: a record as Lambda hands it on (the AWS
// documentation's example event) is the change GetRecords' record is:
// the table from the stream's ARN, images in DynamoDB JSON, the time from
// epoch seconds.
func TestLambdaRecordChange(t *testing.T) {
	const event = `{"Records":[{"eventID":"c4ca4238a0b923820dcc509a6f75849b","eventName":"MODIFY","eventVersion":"1.1",
	 "eventSource":"aws:dynamodb","awsRegion":"us-east-1",
	 "dynamodb":{"Keys":{"PK":{"S":"ACCT#a1"},"SK":{"S":"PROFILE"}},
	  "NewImage":{"PK":{"S":"ACCT#a1"},"SK":{"S":"PROFILE"},"email":{"S":"ada@x.io"},"n":{"N":"7"}},
	  "OldImage":{"PK":{"S":"ACCT#a1"},"SK":{"S":"PROFILE"},"email":{"NULL":true}},
	  "ApproximateCreationDateTime":1428537600.5,"SequenceNumber":"4421584500000000017450439091",
	  "SizeBytes":26,"StreamViewType":"NEW_AND_OLD_IMAGES"},
	 "eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/accounts/stream/2015-06-27T00:48:05.899"}]}`
	var e stream.LambdaEvent
	if err := json.Unmarshal([]byte(event), &e); err != nil {
		t.Fatal(err)
	}
	c, err := e.Records[0].Change()
	if err != nil {
		t.Fatal(err)
	}
	if c.Event != model.ChangeModify || c.Table != "accounts" || c.Sequence != "4421584500000000017450439091" ||
		!c.At.Equal(time.Unix(1428537600, 5e8)) || c.Keys["PK"].S != "ACCT#a1" || c.New["email"].S != "ada@x.io" ||
		c.New["n"].DynamoJSON() != `{"N":"7"}` || c.Old["email"].Kind != model.KindNULL {
		t.Errorf("change %+v", c)
	}
}

// TestLambdaRecordOfAnotherSource: a record whose eventSourceARN is not a
// table's stream is an error, not a change of no table.
func TestLambdaRecordOfAnotherSource(t *testing.T) {
	for _, arn := range []string{"", "arn:aws:kinesis:us-east-1:1:stream/x", "arn:aws:dynamodb:us-east-1:1:table/accounts"} {
		r := stream.LambdaRecord{EventSourceARN: arn, DynamoDB: stream.LambdaChange{Keys: model.Item{"PK": model.S("x")}}}
		if _, err := r.Change(); err == nil {
			t.Errorf("ARN %q: no error", arn)
		}
	}
}

// TestSequenceBefore compares sequence numbers as the numbers they are.
func TestSequenceBefore(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"9", "10", true}, {"10", "9", false}, {"000100", "99", false}, {"100", "100", false}, {"4421584500000000017450439091", "4421584500000000017450439092", true}} {
		if got := stream.SequenceBefore(c.a, c.b); got != c.want {
			t.Errorf("SequenceBefore(%s, %s) = %v", c.a, c.b, got)
		}
	}
}
