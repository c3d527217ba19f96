package stream

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// Position is where a follow starts.
type Position int

// The positions a follow starts at.
const (
	// Latest follows the writes made from the moment Start returns.
	Latest Position = iota
	// TrimHorizon reads every record the stream still keeps (its last
	// 24 hours) first.
	TrimHorizon
)

// Defaults of Options.
const (
	DefaultPoll    = time.Second
	DefaultRefresh = 10
	// maxBackoff bounds the wait after throttling.
	maxBackoff = 30 * time.Second
)

// Options say how a Follower follows.
type Options struct {
	From Position
	// Resume, by stream ARN, is where an earlier follow left each shard
	// (its checkpoint): a stream found there starts from its marks, not
	// from From; a shard it does not mark that is a child of one it does
	// starts at its oldest record.
	Resume map[string]Marks
	// Clock does all the follower's waiting: between polls, and after
	// throttling.
	Clock clock.Clock
	// Poll is the wait before reading the shards again when none had
	// anything new (DefaultPoll when 0).
	Poll time.Duration
	// Refresh is every how many rounds the shards are described again, to
	// find new ones and a disabled stream (DefaultRefresh when 0); a shard
	// that ended has them described at once.
	Refresh int
	// Note, when set, is told what the follower survived that a person
	// may want to know (an expired iterator, records trimmed before they
	// were read), with the table.
	Note func(table, note string)
	// Round, when set, is told after each round of reads: how many
	// shards are followed (not read to their end), and whether any had
	// records (a round that read nothing has caught up with the table).
	Round func(shards int, busy bool)
}

// Batch is what one read of one shard returned: writes to the source's
// table, in the order they were made to each item.
type Batch struct {
	Source  Source
	Changes []model.Change
}

// Mark is how far a follow read one shard: to the record with sequence
// number After ("": none yet, from its oldest record), or to its end.
type Mark struct {
	After string `json:"after,omitempty"`
	Done  bool   `json:"done,omitempty"`
}

// Marks are the marks of a stream's shards, by shard id.
type Marks map[string]Mark

// GapError is a follow that cannot resume where it was left: the records
// after its mark were trimmed (older than the stream keeps, 24 hours),
// or the stream it followed is not the table's any more.
type GapError struct {
	Table string
	Why   string
}

func (e *GapError) Error() string {
	return "the stream of table " + e.Table + " cannot be followed on from where the checkpoint left it: " + e.Why
}

// Follower follows the streams of some tables. Start positions it; Follow
// reads on until its context ends or a stream is disabled.
type Follower struct {
	api     API
	o       Options
	streams []*followed
	rounds  int
	backoff time.Duration // the wait after the last throttling, 0 when none
}

// followed is one stream and where each of its shards is read to.
type followed struct {
	Source
	shards   map[string]*shard
	order    []string        // shard ids as described, parents before children
	listed   map[string]bool // the shards the last description listed
	disabled bool            // described as disabling or disabled
}

// shard is one shard of a stream, and how far it is read.
type shard struct {
	id, parent string
	iterator   *string
	after      string                  // the sequence number of the last record read
	startAt    types.ShardIteratorType // where reading starts when it is the shard's turn
	started    bool                    // an iterator was taken
	ended      bool                    // read to its end: closed, nothing more to come
}

// NewFollower is a follower of the sources over api, not yet started.
func NewFollower(api API, sources []Source, o Options) *Follower {
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.Refresh <= 0 {
		o.Refresh = DefaultRefresh
	}
	f := &Follower{api: api, o: o}
	for _, s := range sources {
		f.streams = append(f.streams, &followed{Source: s, shards: map[string]*shard{}})
	}
	return f
}

// Start describes every stream and positions its shards: from Latest, the
// open shards at their latest record (the closed ones are the past); from
// TrimHorizon, every shard at its oldest, each read after its parent. A
// write made after Start returns is followed.
func (f *Follower) Start(ctx context.Context) error {
	for _, s := range f.streams {
		if err := f.describe(ctx, s, true); err != nil {
			return err
		}
		if s.disabled {
			return &DisabledError{Table: s.Table}
		}
		if marks, ok := f.o.Resume[s.ARN]; ok {
			if err := f.resume(ctx, s, marks); err != nil {
				return err
			}
			continue
		}
		for _, id := range s.order {
			if sh := s.shards[id]; !sh.ended && f.o.From == Latest {
				if err := f.position(ctx, s, sh); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resume positions s's shards at marks: a marked shard read to its end
// stays ended, one read part way goes on after its last record, and a
// shard not marked starts at its oldest record when it is a child of a
// marked one (it opened while nobody read), else at its latest (it is
// older than the checkpoint, which never read it). A marked shard that
// is not read to its end and is gone, or whose records after the mark
// are trimmed, is a *GapError: what it held is lost.
func (f *Follower) resume(ctx context.Context, s *followed, marks Marks) error {
	for id, m := range marks {
		if _, ok := s.shards[id]; !ok && !m.Done {
			return &GapError{Table: s.Table, Why: fmt.Sprintf("shard %s, read to record %s, is trimmed away (older than 24 hours)", id, orNone(m.After))}
		}
	}
	for _, id := range s.order {
		sh := s.shards[id]
		m, marked := marks[id]
		_, parentMarked := marks[sh.parent]
		switch {
		case marked:
			sh.after, sh.ended, sh.startAt = m.After, m.Done, types.ShardIteratorTypeTrimHorizon
		case parentMarked:
			sh.startAt = types.ShardIteratorTypeTrimHorizon
		default:
			sh.startAt = types.ShardIteratorTypeLatest
		}
		if sh.ended || sh.after == "" {
			continue
		}
		out, err := f.api.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(s.ARN), ShardId: aws.String(id),
			ShardIteratorType: types.ShardIteratorTypeAfterSequenceNumber, SequenceNumber: aws.String(sh.after)})
		var trimmed *types.TrimmedDataAccessException
		switch {
		case errors.As(err, &trimmed):
			return &GapError{Table: s.Table, Why: fmt.Sprintf("the records of shard %s after %s are trimmed (older than 24 hours)", id, sh.after)}
		case err != nil:
			// Anything else is what a follow meets: position says.
			if err := f.position(ctx, s, sh); err != nil {
				return err
			}
		default:
			sh.iterator, sh.started = out.ShardIterator, true
		}
	}
	return nil
}

// Marks are how far each stream's shards are read, by stream ARN: what a
// checkpoint records. Within deliver, the batch delivered counts as read.
func (f *Follower) Marks() map[string]Marks {
	out := map[string]Marks{}
	for _, s := range f.streams {
		marks := Marks{}
		for id, sh := range s.shards {
			// A shard started at its latest record with nothing read
			// has no mark that says where: a restart takes it at its
			// latest again.
			if sh.ended || sh.after != "" || sh.startAt == types.ShardIteratorTypeTrimHorizon {
				marks[id] = Mark{After: sh.after, Done: sh.ended}
			}
		}
		out[s.ARN] = marks
	}
	return out
}

// Follow reads every shard of every stream in turn, a child once its
// parent is read to its end, and hands each non-empty batch to deliver,
// until ctx ends (its error), deliver fails (its error) or a stream is
// disabled (a *DisabledError, after what it still held was delivered).
func (f *Follower) Follow(ctx context.Context, deliver func(context.Context, Batch) error) error {
	for {
		f.rounds++
		read, ended := false, false
		for _, s := range f.streams {
			r, e, err := f.readStream(ctx, s, deliver)
			if err != nil {
				return err
			}
			if s.disabled {
				return &DisabledError{Table: s.Table}
			}
			read, ended = read || r, ended || e
		}
		if ended || f.rounds%f.o.Refresh == 0 {
			if err := f.refresh(ctx); err != nil {
				return err
			}
		}
		if f.o.Round != nil {
			f.o.Round(f.open(), read)
		}
		// A shard that ended has its children read at once.
		if wait := f.wait(read || ended); wait > 0 {
			if err := f.o.Clock.Sleep(ctx, wait); err != nil {
				return err
			}
		}
	}
}

// open is how many shards are followed: not read to their end.
func (f *Follower) open() int {
	n := 0
	for _, s := range f.streams {
		for _, sh := range s.shards {
			if !sh.ended {
				n++
			}
		}
	}
	return n
}

// refresh describes every stream again; throttled, it waits for a later
// round.
func (f *Follower) refresh(ctx context.Context) error {
	for _, s := range f.streams {
		if err := f.describe(ctx, s, false); err != nil && !f.throttled(err) {
			return err
		}
	}
	return nil
}

// wait is how long to wait before the next round: after throttling, the
// backoff; after a round that read something (busy), nothing.
func (f *Follower) wait(busy bool) time.Duration {
	switch {
	case f.backoff > 0:
		return f.backoff
	case busy:
		return 0
	}
	return f.o.Poll
}

// readStream reads each of s's shards whose turn it is once, and reports
// whether any had records and whether any ended.
func (f *Follower) readStream(ctx context.Context, s *followed, deliver func(context.Context, Batch) error) (read, ended bool, err error) {
	for _, id := range s.order {
		sh := s.shards[id]
		if sh.ended || !s.ready(sh) {
			continue
		}
		n, err := f.read(ctx, s, sh, deliver)
		if err != nil {
			return read, ended, err
		}
		read, ended = read || n > 0, ended || sh.ended
	}
	return read, ended, nil
}

// ready reports whether sh may be read: its parent, if the stream still
// has it, is read to its end.
func (s *followed) ready(sh *shard) bool {
	p, ok := s.shards[sh.parent]
	return sh.parent == "" || !ok || p.ended
}

// read reads sh once, delivering what it holds, and returns how many
// records it read. An expired iterator is taken again after the last
// record read, records trimmed before they were read are skipped to the
// oldest kept, and throttling backs off: each is survived, not returned.
func (f *Follower) read(ctx context.Context, s *followed, sh *shard, deliver func(context.Context, Batch) error) (int, error) {
	if !sh.started {
		if err := f.position(ctx, s, sh); err != nil || !sh.started {
			return 0, err
		}
	}
	out, err := f.api.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: sh.iterator})
	if err != nil {
		return 0, f.survive(ctx, s, sh, err)
	}
	f.backoff = 0
	changes := make([]model.Change, 0, len(out.Records))
	for _, r := range out.Records {
		c, err := change(s.Table, r)
		if err != nil {
			return 0, err
		}
		changes = append(changes, c)
	}
	// The batch counts as read while it is delivered (Marks); a failed
	// delivery ends the follow.
	sh.iterator = out.NextShardIterator
	sh.ended = out.NextShardIterator == nil
	if len(changes) > 0 {
		sh.after = changes[len(changes)-1].Sequence
		if err := deliver(ctx, Batch{Source: s.Source, Changes: changes}); err != nil {
			return 0, err
		}
	}
	return len(changes), nil
}

// survive handles a failed read of sh: what a follow lives through is
// dealt with and nil returned; anything else is returned.
func (f *Follower) survive(ctx context.Context, s *followed, sh *shard, err error) error {
	var expired *types.ExpiredIteratorException
	var trimmed *types.TrimmedDataAccessException
	var gone *types.ResourceNotFoundException
	switch {
	case errors.As(err, &expired):
		f.note(s, fmt.Sprintf("the iterator of shard %s expired; reading on after record %s", sh.id, orNone(sh.after)))
		sh.started = false // position takes it again after sh.after
		return nil
	case errors.As(err, &trimmed):
		f.note(s, fmt.Sprintf("records of shard %s were trimmed (older than 24 hours) before they were read; reading on from the oldest kept", sh.id))
		sh.started, sh.after, sh.startAt = false, "", types.ShardIteratorTypeTrimHorizon
		return nil
	case errors.As(err, &gone):
		return &DisabledError{Table: s.Table, Err: err}
	case f.throttled(err):
		return nil
	}
	return fmt.Errorf("read the stream of table %s: %w", s.Table, err)
}

// position takes an iterator for sh: after the last record read, else
// where it starts. A shard the stream no longer has (trimmed) is ended.
func (f *Follower) position(ctx context.Context, s *followed, sh *shard) error {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(s.ARN), ShardId: aws.String(sh.id), ShardIteratorType: sh.startAt}
	if sh.after != "" {
		in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(sh.after)
	}
	out, err := f.api.GetShardIterator(ctx, in)
	var trimmed *types.TrimmedDataAccessException
	var gone *types.ResourceNotFoundException
	switch {
	case errors.As(err, &trimmed) && sh.after != "":
		f.note(s, fmt.Sprintf("records of shard %s after %s were trimmed before they were read; reading on from the oldest kept", sh.id, sh.after))
		sh.after, sh.startAt = "", types.ShardIteratorTypeTrimHorizon
		return f.position(ctx, s, sh)
	case errors.As(err, &gone):
		// The shard, or the whole stream, is gone: a stream described
		// without the shard trimmed it away, and its children go on.
		if derr := f.describe(ctx, s, false); derr != nil {
			return derr
		}
		if s.listed[sh.id] {
			return &DisabledError{Table: s.Table, Err: err}
		}
		sh.ended = true
		return nil
	case f.throttled(err):
		return nil // taken on a later round
	case err != nil:
		return fmt.Errorf("read the stream of table %s: %w", s.Table, err)
	}
	sh.iterator, sh.started = out.ShardIterator, true
	return nil
}

// describe reads s's shards and status, adding the shards it did not
// know: at the start, as Options.From says; later, from their oldest
// record (they are children of shards followed). A stream that is gone
// is disabled.
func (f *Follower) describe(ctx context.Context, s *followed, first bool) error {
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(s.ARN)}
	s.listed = map[string]bool{}
	for {
		out, err := f.api.DescribeStream(ctx, in)
		var gone *types.ResourceNotFoundException
		if errors.As(err, &gone) {
			return &DisabledError{Table: s.Table, Err: err}
		}
		if err != nil {
			return fmt.Errorf("describe the stream of table %s: %w", s.Table, err)
		}
		d := out.StreamDescription
		if d == nil {
			return fmt.Errorf("describe the stream of table %s: no description", s.Table)
		}
		if d.StreamStatus == types.StreamStatusDisabling || d.StreamStatus == types.StreamStatusDisabled {
			s.disabled = true
		}
		for _, sd := range d.Shards {
			s.add(sd, first, f.o.From)
			s.listed[aws.ToString(sd.ShardId)] = true
		}
		if d.LastEvaluatedShardId == nil {
			if first && f.o.From == Latest {
				s.pastParents()
			}
			s.forget()
			return nil
		}
		in.ExclusiveStartShardId = d.LastEvaluatedShardId
	}
}

// add records shard sd if s does not know it yet. At the start from
// Latest, every shard starts at its latest record (pastParents then ends
// the ones that are the past); any other reads from its oldest record.
func (s *followed) add(sd types.Shard, first bool, from Position) {
	id := aws.ToString(sd.ShardId)
	if _, ok := s.shards[id]; ok || id == "" {
		return
	}
	sh := &shard{id: id, parent: aws.ToString(sd.ParentShardId), startAt: types.ShardIteratorTypeTrimHorizon}
	if first && from == Latest {
		sh.startAt = types.ShardIteratorTypeLatest
	}
	s.shards[id] = sh
	s.order = append(s.order, id)
}

// forget drops the shards read to their end that the stream no longer
// lists (trimmed after 24 hours), so that a follow of weeks holds only
// the shards of a day; a child whose parent is gone is ready.
func (s *followed) forget() {
	s.order = slices.DeleteFunc(s.order, func(id string) bool {
		if sh := s.shards[id]; sh.ended && !s.listed[id] {
			delete(s.shards, id)
			return true
		}
		return false
	})
}

// pastParents ends, at the start from Latest, the shards that have a
// child: they closed before now. Whether a shard is closed is told by its
// children, not by an ending sequence number, which dynoxide gives an
// open shard too.
func (s *followed) pastParents() {
	for _, sh := range s.shards {
		if p, ok := s.shards[sh.parent]; ok {
			p.ended = true
		}
	}
}

// throttled reports whether err is throttling, which the follower backs
// off from (the SDK's own retries having given up) instead of failing.
func (f *Follower) throttled(err error) bool {
	if !retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err).Bool() {
		return false
	}
	f.backoff = min(max(2*f.backoff, f.o.Poll), maxBackoff)
	return true
}

func (f *Follower) note(s *followed, note string) {
	if f.o.Note != nil {
		f.o.Note(s.Table, note)
	}
}

func orNone(seq string) string {
	if seq == "" {
		return "(none yet)"
	}
	return seq
}

// change is record r of table's stream as a model.Change.
func change(table string, r types.Record) (model.Change, error) {
	c := model.Change{Event: model.ChangeEvent(r.EventName), Table: table}
	d := r.Dynamodb
	if d == nil {
		return c, fmt.Errorf("a record of the stream of table %s (event %s) has no item", table, r.EventName)
	}
	c.Sequence = aws.ToString(d.SequenceNumber)
	c.At = aws.ToTime(d.ApproximateCreationDateTime).UTC()
	var err error
	for _, side := range []struct {
		from map[string]types.AttributeValue
		to   *model.Item
	}{{d.Keys, &c.Keys}, {d.OldImage, &c.Old}, {d.NewImage, &c.New}} {
		if side.from == nil || err != nil {
			continue
		}
		*side.to, err = item(side.from)
	}
	if err != nil {
		return c, fmt.Errorf("a record of the stream of table %s: %w", table, err)
	}
	return c, nil
}

// item converts a stream's item to a model item.
func item(av map[string]types.AttributeValue) (model.Item, error) {
	ddb, err := attributevalue.FromDynamoDBStreamsMap(av)
	if err != nil {
		return nil, err
	}
	return dynamo.ItemFromSDK(ddb), nil
}
