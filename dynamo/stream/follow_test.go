package stream_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/model"
)

// following is a follower of a fake stream run by a test: its clock is
// manual, so each round ends with the follower asleep, and the test
// changes the stream and advances the clock in between.
type following struct {
	t       *testing.T
	clock   *clocktest.Manual
	fake    *fakeStreams
	batches chan stream.Batch
	done    chan error
	ctx     context.Context
	mu      sync.Mutex
	notes   []string
	// follower is the one followed; marks are its Marks as the last
	// batch was delivered.
	follower *stream.Follower
	marks    map[string]stream.Marks
}

const poll = time.Second

func follow(t *testing.T, fake *fakeStreams, from stream.Position) *following {
	t.Helper()
	r, err := start(t, fake, stream.Options{From: from})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return r
}

// start starts a follower of fake with o (its clock, poll and notes the
// test's), and returns Start's error, if any, without following.
func start(t *testing.T, fake *fakeStreams, o stream.Options) (*following, error) {
	t.Helper()
	// A generous deadline, as a timeout: nothing here waits on the
	// machine's time.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	r := &following{t: t, clock: clocktest.NewManual(time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)), fake: fake,
		batches: make(chan stream.Batch, 100), done: make(chan error, 1), ctx: ctx}
	o.Clock, o.Poll, o.Refresh = r.clock.Clock(), poll, 1
	o.Note = func(table, note string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.notes = append(r.notes, table+": "+note)
	}
	f := stream.NewFollower(fake, []stream.Source{{Table: "accounts", ARN: "arn:stream", View: "NEW_AND_OLD_IMAGES"}}, o)
	r.follower = f
	if err := f.Start(ctx); err != nil {
		return nil, err
	}
	go func() {
		r.done <- f.Follow(ctx, func(_ context.Context, b stream.Batch) error {
			r.mu.Lock()
			r.marks = f.Marks()
			r.mu.Unlock()
			r.batches <- b
			return nil
		})
	}()
	return r, nil
}

// round lets the follower read everything it can, until it sleeps, and
// returns the keys it delivered meanwhile, in order.
// wantNote fails unless the follow said one note, and it holds word.
func (r *following) wantNote(t *testing.T, word string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.notes) != 1 || !strings.Contains(r.notes[0], word) {
		t.Errorf("notes %q, want one saying %s", r.notes, word)
	}
}

func (r *following) round() []string {
	r.t.Helper()
	r.clock.Advance(poll)
	return keys(r.settle())
}

// settle waits until the follower sleeps, and returns what it delivered
// meanwhile.
func (r *following) settle() []model.Change {
	r.t.Helper()
	if err := r.clock.WaitForSleepers(r.ctx, 1); err != nil {
		select {
		case err := <-r.done:
			r.t.Fatalf("the follow ended: %v", err)
		default:
		}
		r.t.Fatalf("the follower never slept: %v", err)
	}
	return r.drain()
}

// drain returns what the follower delivered so far.
func (r *following) drain() []model.Change {
	var got []model.Change
	for {
		select {
		case b := <-r.batches:
			if b.Source.Table != "accounts" {
				r.t.Errorf("a batch of table %q", b.Source.Table)
			}
			got = append(got, b.Changes...)
		default:
			return got
		}
	}
}

func keys(changes []model.Change) []string {
	var ks []string
	for _, c := range changes {
		ks = append(ks, c.Keys["PK"].S)
	}
	return ks
}

func wantKeys(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: delivered %q, want %q", what, got, want)
	}
}

// TestFollowFromNowSkipsThePast: from Latest, what was written before
// Start is not delivered, what is written after is, once, as a Change.
func TestFollowFromNowSkipsThePast(t *testing.T) {
	fake := newFake("s1")
	fake.write("s1", "INSERT", "before")
	r := follow(t, fake, stream.Latest)
	got := r.settle()
	fake.write("s1", "INSERT", "a")
	fake.write("s1", "REMOVE", "b")
	for i := 0; len(got) < 2 && i < 3; i++ {
		r.clock.Advance(poll)
		got = append(got, r.settle()...)
	}
	if len(got) != 2 {
		t.Fatalf("delivered %q, want a and b", keys(got))
	}
	if got[0].Keys["PK"].S != "a" || got[0].Event != model.ChangeInsert || got[0].Sequence != "2" || got[0].New["PK"].S != "a" ||
		got[0].At.Second() != 2 || got[1].Keys["PK"].S != "b" || got[1].Event != model.ChangeRemove {
		t.Errorf("changes %+v", got)
	}
	wantKeys(t, "a round with nothing new", r.round())
}

// TestFollowReadsAChildAfterItsParent: from the trim horizon, a closed
// shard's records come before its child's, whatever order the shards are
// listed in.
func TestFollowReadsAChildAfterItsParent(t *testing.T) {
	fake := newFake("child", "parent")
	fake.set(func(f *fakeStreams) {
		f.shards[0].parent = "parent"
		f.shards[1].closed = true
	})
	fake.write("parent", "INSERT", "p1")
	fake.write("parent", "MODIFY", "p2")
	fake.write("child", "MODIFY", "c1")
	r := follow(t, fake, stream.TrimHorizon)
	wantKeys(t, "from the trim horizon", keys(r.settle()), "p1", "p2", "c1")
}

// TestFollowSurvivesAShardsEnd: a shard that closes and splits while it
// is followed is read to its end, then its children from their start.
func TestFollowSurvivesAShardsEnd(t *testing.T) {
	fake := newFake("s1")
	r := follow(t, fake, stream.Latest)
	r.settle()
	fake.write("s1", "INSERT", "a")
	wantKeys(t, "before the split", r.round(), "a")
	fake.write("s1", "INSERT", "b")
	fake.split("s1", "s2")
	fake.split("s1", "s3")
	fake.write("s2", "INSERT", "c")
	fake.write("s3", "INSERT", "d")
	wantKeys(t, "the split", r.round(), "b", "c", "d")
	fake.write("s3", "MODIFY", "e")
	wantKeys(t, "after the split", r.round(), "e")
}

// TestFollowSurvivesAnExpiredIterator: the iterator is taken again after
// the last record read, so nothing is lost or delivered twice.
func TestFollowSurvivesAnExpiredIterator(t *testing.T) {
	fake := newFake("s1")
	r := follow(t, fake, stream.Latest)
	r.settle()
	fake.write("s1", "INSERT", "a")
	wantKeys(t, "before", r.round(), "a")
	fake.write("s1", "INSERT", "b")
	fake.set(func(f *fakeStreams) { f.expire = 1 })
	got := r.round()
	got = append(got, r.round()...)
	wantKeys(t, "after the iterator expired", got, "b")
	fake.mu.Lock()
	taken := slices.Clone(fake.taken)
	fake.mu.Unlock()
	if last := taken[len(taken)-1]; last != "s1 AFTER_SEQUENCE_NUMBER 1" {
		t.Errorf("iterators taken %q; want the last after sequence number 1", taken)
	}
	r.wantNote(t, "expired")
}

// TestFollowSurvivesTrimmedRecordsAndThrottling: records trimmed before
// they were read are skipped to the oldest kept, with a note; a throttled
// read or description waits on the clock and goes on.
func TestFollowSurvivesTrimmedRecordsAndThrottling(t *testing.T) {
	fake := newFake("s1")
	r := follow(t, fake, stream.Latest)
	r.settle()
	fake.write("s1", "INSERT", "a")
	fake.set(func(f *fakeStreams) { f.throttle, f.throttleDescribe = 2, 1 })
	// The waits double, on the manual clock: 1, 2, then 4 seconds.
	var got []string
	for i := 0; len(got) == 0 && i < 12; i++ {
		got = append(got, r.round()...)
	}
	wantKeys(t, "after throttling", got, "a")
	fake.set(func(f *fakeStreams) { f.trim = 1 })
	fake.write("s1", "INSERT", "b")
	got = nil
	for range 3 {
		got = append(got, r.round()...)
	}
	// From the oldest kept: the fake keeps everything, so a comes again.
	wantKeys(t, "after the trim", got, "a", "b")
	r.wantNote(t, "trimmed")
}

// TestFollowReportsADisabledStream: a stream disabled while it is
// followed ends the follow with a *DisabledError naming the table, not a
// crash or a hang.
func TestFollowReportsADisabledStream(t *testing.T) {
	fake := newFake("s1")
	r := follow(t, fake, stream.Latest)
	r.settle()
	fake.write("s1", "INSERT", "a")
	fake.set(func(f *fakeStreams) { f.disabled = true })
	r.clock.Advance(poll)
	select {
	case err := <-r.done:
		var d *stream.DisabledError
		if !errors.As(err, &d) || d.Table != "accounts" {
			t.Fatalf("the follow ended with %v; want a *DisabledError of accounts", err)
		}
	case <-r.ctx.Done():
		t.Fatal("the follow did not end")
	}
	wantKeys(t, "what the stream still held", keys(r.drain()), "a")
}

// TestFindNamesTheTablesWithoutAStream: the error names each table and
// the line that enables its stream.
func TestFindNamesTheTablesWithoutAStream(t *testing.T) {
	err := (&stream.NoStreamError{Tables: []string{"accounts"}, Endpoint: "http://127.0.0.1:8000"}).Error()
	want := "aws dynamodb update-table --table-name accounts --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES --endpoint-url http://127.0.0.1:8000"
	if !strings.Contains(err, want) {
		t.Errorf("%q does not hold %q", err, want)
	}
}

// TestFollowReadsAChildAtOnce: a shard that ends has its child read in
// the same round, with no poll's wait; once the parent is trimmed from
// the stream (and forgotten), the child is read on.
func TestFollowReadsAChildAtOnce(t *testing.T) {
	fake := newFake("s1")
	r := follow(t, fake, stream.Latest)
	r.settle()
	fake.split("s1", "s2")
	fake.write("s2", "INSERT", "a")
	wantKeys(t, "the child", r.round(), "a")
	fake.set(func(f *fakeStreams) { f.shards = f.shards[1:] }) // s1 trimmed
	fake.write("s2", "INSERT", "b")
	wantKeys(t, "after the parent was trimmed", r.round(), "b")
}

// TestFollowResumesAtItsMarks (issue 40): started from a checkpoint's
// marks, a follow reads a shard read part way on after its last record,
// skips one read to its end, and reads a child opened meanwhile from its
// oldest record; as it delivers a batch, Marks count it read.
func TestFollowResumesAtItsMarks(t *testing.T) {
	fake := newFake("old", "s1")
	fake.set(func(f *fakeStreams) { f.shards[0].closed = true; f.shards[1].parent = "old" })
	fake.write("old", "INSERT", "o1")
	fake.write("s1", "INSERT", "a")
	fake.write("s1", "INSERT", "b")
	fake.split("s1", "s2")
	fake.write("s2", "INSERT", "c")
	r, err := start(t, fake, stream.Options{From: stream.Latest, Resume: map[string]stream.Marks{"arn:stream": {"old": {After: "1", Done: true}, "s1": {After: "2"}}}})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	wantKeys(t, "resumed", keys(r.settle()), "b", "c")
	r.mu.Lock()
	defer r.mu.Unlock()
	want := stream.Marks{"old": {After: "1", Done: true}, "s1": {After: "3", Done: true}, "s2": {After: "4"}}
	if got := r.marks["arn:stream"]; !maps.Equal(got, want) {
		t.Errorf("marks %v; want %v", got, want)
	}
}

// TestFollowResumeSaysAGap (issue 40): a checkpoint whose records were
// trimmed, or whose shard is gone before it was read to its end, cannot
// be followed on without a gap: Start says so with a *GapError, never
// skipping them. A shard read to its end may be gone.
func TestFollowResumeSaysAGap(t *testing.T) {
	for _, c := range []struct {
		name  string
		marks stream.Marks
		trim  bool
		gap   string
	}{
		{"records trimmed", stream.Marks{"s1": {After: "1"}}, true, "records of shard s1 after 1 are trimmed"},
		{"shard gone", stream.Marks{"gone": {After: "7"}, "s1": {After: "1"}}, false, "shard gone, read to record 7, is trimmed away"},
		{"shard gone, read to its end", stream.Marks{"gone": {After: "7", Done: true}, "s1": {After: "1"}}, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := newFake("s1")
			fake.write("s1", "INSERT", "a")
			fake.set(func(f *fakeStreams) { f.trimIterators = c.trim })
			_, err := start(t, fake, stream.Options{Resume: map[string]stream.Marks{"arn:stream": c.marks}})
			var gap *stream.GapError
			switch {
			case c.gap == "" && err != nil:
				t.Errorf("start: %v; want it to follow on", err)
			case c.gap != "" && (!errors.As(err, &gap) || gap.Table != "accounts" || !strings.Contains(err.Error(), c.gap)):
				t.Errorf("start: %v; want a *GapError of accounts saying %q", err, c.gap)
			}
		})
	}
}
