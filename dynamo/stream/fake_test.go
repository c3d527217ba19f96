package stream_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// fakeStreams is one stream of shards held in memory, whose test can
// close and split shards, expire iterators, trim records, throttle reads
// and disable the stream between the follower's rounds.
type fakeStreams struct {
	mu     sync.Mutex
	shards []*fakeShard
	seq    int // the last sequence number given
	// disabled: the stream is gone, DescribeStream and GetShardIterator
	// say so; GetRecords returns nothing, as dynoxide does.
	disabled bool
	// expire, trim and throttle fail the next GetRecords so many times;
	// throttleDescribe the next DescribeStream.
	expire, trim, throttle, throttleDescribe int
	gen                                      int // iterators of an older generation expire
	// trimIterators: an iterator after a sequence number is refused as
	// trimmed (the record is older than the stream keeps).
	trimIterators bool
	taken         []string
}

type fakeShard struct {
	id, parent string
	records    []types.Record
	closed     bool
}

func newFake(ids ...string) *fakeStreams {
	f := &fakeStreams{}
	for _, id := range ids {
		f.shards = append(f.shards, &fakeShard{id: id})
	}
	return f
}

// write appends a record of key to shard id.
func (f *fakeStreams) write(id, event, key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	sh := f.shard(id)
	at := time.Date(2026, 12, 3, 12, 0, f.seq, 0, time.UTC)
	keys := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: key}}
	sh.records = append(sh.records, types.Record{EventName: types.OperationType(event), Dynamodb: &types.StreamRecord{
		Keys: keys, NewImage: keys, SequenceNumber: aws.String(strconv.Itoa(f.seq)), ApproximateCreationDateTime: &at,
		StreamViewType: types.StreamViewTypeNewAndOldImages}})
}

// split closes shard parent and opens child under it.
func (f *fakeStreams) split(parent, child string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.shard(parent).closed = true
	f.shards = append(f.shards, &fakeShard{id: child, parent: parent})
}

func (f *fakeStreams) set(change func(f *fakeStreams)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

func (f *fakeStreams) shard(id string) *fakeShard {
	for _, sh := range f.shards {
		if sh.id == id {
			return sh
		}
	}
	return nil
}

func (f *fakeStreams) DescribeStream(_ context.Context, in *dynamodbstreams.DescribeStreamInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.disabled {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
	}
	if f.throttleDescribe > 0 {
		f.throttleDescribe--
		return nil, &types.LimitExceededException{Message: aws.String("Rate exceeded")}
	}
	d := &types.StreamDescription{StreamArn: in.StreamArn, StreamStatus: types.StreamStatusEnabled}
	for _, sh := range f.shards {
		s := types.Shard{ShardId: aws.String(sh.id), SequenceNumberRange: &types.SequenceNumberRange{}}
		if sh.parent != "" {
			s.ParentShardId = aws.String(sh.parent)
		}
		if sh.closed {
			s.SequenceNumberRange.EndingSequenceNumber = aws.String(strconv.Itoa(f.seq))
		}
		d.Shards = append(d.Shards, s)
	}
	return &dynamodbstreams.DescribeStreamOutput{StreamDescription: d}, nil
}

func (f *fakeStreams) GetShardIterator(_ context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sh := f.shard(aws.ToString(in.ShardId))
	if f.disabled || sh == nil {
		return nil, &types.ResourceNotFoundException{Message: aws.String("Requested resource not found")}
	}
	if f.trimIterators && in.ShardIteratorType == types.ShardIteratorTypeAfterSequenceNumber {
		return nil, &types.TrimmedDataAccessException{Message: aws.String("trimmed")}
	}
	pos := 0
	switch in.ShardIteratorType {
	case types.ShardIteratorTypeLatest:
		pos = len(sh.records)
	case types.ShardIteratorTypeAfterSequenceNumber:
		for i, r := range sh.records {
			if aws.ToString(r.Dynamodb.SequenceNumber) == aws.ToString(in.SequenceNumber) {
				pos = i + 1
			}
		}
	}
	f.taken = append(f.taken, fmt.Sprintf("%s %s %s", sh.id, in.ShardIteratorType, aws.ToString(in.SequenceNumber)))
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String(f.iterator(sh.id, pos))}, nil
}

func (f *fakeStreams) iterator(id string, pos int) string {
	return fmt.Sprintf("%s|%d|%d", id, pos, f.gen)
}

func (f *fakeStreams) GetRecords(_ context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	parts := strings.Split(aws.ToString(in.ShardIterator), "|")
	pos, _ := strconv.Atoi(parts[1])
	gen, _ := strconv.Atoi(parts[2])
	switch {
	case f.throttle > 0:
		f.throttle--
		return nil, &types.LimitExceededException{Message: aws.String("Rate exceeded")}
	case f.expire > 0 || gen < f.gen:
		if f.expire > 0 {
			f.expire--
			f.gen++
		}
		return nil, &types.ExpiredIteratorException{Message: aws.String("Iterator expired")}
	case f.trim > 0:
		f.trim--
		return nil, &types.TrimmedDataAccessException{Message: aws.String("trimmed")}
	}
	sh := f.shard(parts[0])
	out := &dynamodbstreams.GetRecordsOutput{Records: sh.records[pos:]}
	if !sh.closed || f.disabled {
		out.NextShardIterator = aws.String(f.iterator(sh.id, len(sh.records)))
	}
	return out, nil
}
