// Package live keeps the terminal UI's picture of the table live. It
// follows the table's stream off the update loop, judges each batch of
// changes as watch does (backend.Tracker: the keys involved re-read
// consistently, so the records of one transaction raise nothing on their
// own), and hands the root what changed and the problems that appeared
// or were resolved; the views read those keys again. Without a stream it
// says how to enable one.
package live

import (
	"context"
	"errors"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/redact"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
)

// Handler is what a Stream tells the UI.
type Handler struct {
	// Started is called once the writes made from then on are followed.
	Started func()
	// Note is told what the follow survived that a person may want to
	// know (an expired iterator, records trimmed), with the table.
	Note func(table, note string)
	// Deliver is handed each batch of changes, in the order they were
	// made to each item.
	Deliver func(ctx context.Context, changes []model.Change) error
}

// Stream follows the streams of the table's tables (the cli adapts
// dynamo/stream's Follower): it tells h what it follows until ctx ends,
// and returns why it could not follow or stopped, an *Off when there is
// no stream or it was disabled.
type Stream func(ctx context.Context, h Handler) error

// Off says the table has no stream to follow, or that its stream was
// disabled while it was followed.
type Off struct {
	Why    string // what is off, in a few words: "no stream", "stream disabled"
	Enable string // the line (or lines) that enable a stream
}

func (o *Off) Error() string { return o.Why + "; enable one with: " + o.Enable }

// StartedMsg says the stream is followed: a write made from now on shows.
// Resumed says it is followed again after it failed: what was written
// meanwhile was not seen one write at a time.
type StartedMsg struct{ Resumed bool }

// NoteMsg is what the follow survived, for the status line.
type NoteMsg struct{ Table, Note string }

// ChangedMsg is a batch of changes someone made to the table, and the
// problems they made appear or resolved.
type ChangedMsg struct {
	Changes            []model.Change
	Appeared, Resolved []model.Problem
	// Err is why the changes could not be judged: their rows are read
	// again all the same.
	Err error
	// Batch numbers the judgement (backend.Tracker.Batch), for Know.
	Batch int
}

// EndedMsg ends the follow: why it could not go on, and, for a failure
// that may pass (not an *Off), when it is tried again (0: never).
type EndedMsg struct {
	Err   error
	Retry time.Duration
}

// Waits between tries to follow a stream that failed: doubling from the
// first, up to the last.
const (
	firstRetry = time.Second
	lastRetry  = time.Minute
)

// retryAfter is the wait before try n (0-based) to follow again.
func retryAfter(n int) time.Duration { return min(firstRetry<<min(n, 10), lastRetry) }

// TickMsg is the clock's second: the time words on screen are redrawn.
type TickMsg struct{ Now time.Time }

// tickEvery is how often the time words are redrawn.
const tickEvery = time.Second

// state is where the follow stands.
type state int

const (
	none      state = iota // no stream to follow was given: nothing is said
	ready                  // not asked yet (Start)
	starting               // asked, not yet following
	following              // a write made now shows
	off                    // no stream, it was disabled, or the follow failed
)

// Model follows the table's stream for the UI.
type Model struct {
	ctx    context.Context
	stream Stream
	pump   events.Pump
	schema *model.Schema
	src    backend.Reader
	finder backend.HolderFinder
	clock  clock.Clock
	// known carries the last report's problems to the follower's tracker,
	// which judges changes against them.
	known chan knownReport
	// rejudged carries, in order, what reads of a few problems' keys found
	// since (a fix's: check.Rejudge), to the tracker.
	rejudged chan rejudgement
	state    state
	err      error
	// fell says the follow ended after it had started: the UI fell back
	// to reading on r.
	fell bool
	// ticking says the clock's seconds are posted (Start).
	ticking bool
	// retryAt is when a failed follow is tried again (zero: it is not).
	retryAt time.Time
	// readAt is when the rows were last read (Read), now the last tick's
	// time: the header says how old the screen is when it is not live.
	readAt, now time.Time
	// poll is how often the rows on screen are read again when the table
	// is not followed (0: never), polled when they last were.
	poll   time.Duration
	polled time.Time
}

// New is a follow of stream (nil: none, and nothing is said of it) that
// posts to pump and judges through src and finder (nil: ownerless
// orphans are not confirmed), at the time clk tells, which also ticks
// the time words (a zero clock: no tick; it must be set with a stream).
// Without a stream, or once it ends, the rows on screen are read again
// every poll (0: only when r is pressed; see Poll).
func New(ctx context.Context, stream Stream, pump events.Pump, sc *model.Schema, src backend.Reader, finder backend.HolderFinder, clk clock.Clock, poll time.Duration) Model {
	m := Model{ctx: ctx, stream: stream, pump: pump, schema: sc, src: src, finder: finder, clock: clk, poll: poll}
	if stream != nil {
		m.state, m.known, m.rejudged = ready, make(chan knownReport, 1), make(chan rejudgement, maxRejudged)
	}
	return m
}

// Start follows the stream in the background, once (nil without one, or
// a second time), and ticks the clock's seconds (TickMsg). Each batch is
// judged there, by a tracker that knows the last report's problems
// (Know), and posted as a ChangedMsg. A follow that fails otherwise than
// by an *Off (the network, the endpoint, credentials) is tried again,
// after a wait that doubles up to a minute (EndedMsg.Retry), and says
// when it follows again (StartedMsg.Resumed).
func (m Model) Start() (Model, tea.Cmd) {
	tick := m.tick()
	if m.state != ready {
		return m, tick
	}
	m.state = starting
	ctx, stream, pump, known, rejudged, clk := m.ctx, m.stream, m.pump, m.known, m.rejudged, m.clock
	now := func() int64 { return model.Epoch(clk.Now()) }
	t := backend.NewTracker(m.schema, m.src, m.finder, now)
	return m, tea.Batch(tick, func() tea.Msg {
		go func() {
			failed := 0 // tries in a row that failed
			for {
				resumed := failed > 0
				err := stream(ctx, Handler{
					Started: func() { failed = 0; pump.Post(ctx, StartedMsg{Resumed: resumed}, true) },
					Note:    func(table, note string) { pump.Post(ctx, NoteMsg{Table: table, Note: note}, true) },
					Deliver: func(ctx context.Context, changes []model.Change) error {
						select {
						case k := <-known:
							t.Know(k.problems, k.since) // the changes waiting for a later record wait on
						default:
						}
						for len(rejudged) > 0 {
							r := <-rejudged
							t.Rejudged(r.gone, r.there, r.since)
						}
						pump.Post(ctx, judge(ctx, t, changes), true)
						return nil
					},
				})
				if ctx.Err() != nil {
					return
				}
				var o *Off
				if errors.As(err, &o) {
					pump.Post(ctx, EndedMsg{Err: err}, true)
					return
				}
				wait := retryAfter(failed)
				failed++
				pump.Post(ctx, EndedMsg{Err: err, Retry: wait}, true)
				if clk.Sleep(ctx, wait) != nil {
					return
				}
			}
		}()
		return nil
	})
}

// tick posts the clock's time now and every second from then on, once
// (nil with no clock, or a second time): a tick that finds the UI busy
// is dropped.
func (m *Model) tick() tea.Cmd {
	if m.ticking || !m.clock.Set() {
		return nil
	}
	m.ticking = true
	m.now = m.clock.Now()
	m.polled = m.now // the rows were just read
	ctx, clk, pump := m.ctx, m.clock, m.pump
	return func() tea.Msg {
		go func() {
			for clk.Sleep(ctx, tickEvery) == nil {
				pump.Post(ctx, TickMsg{Now: clk.Now()}, false)
			}
		}()
		return TickMsg{Now: clk.Now()}
	}
}

// Poll reports, on a tick, whether the rows on screen are to be read
// again now: the table is not followed, and the last poll (or read) is
// poll ago.
func (m Model) Poll() (Model, bool) {
	if m.poll <= 0 || m.now.IsZero() || (m.state != none && m.state != off) || m.now.Before(m.polled.Add(m.poll)) {
		return m, false
	}
	m.polled, m.readAt = m.now, m.now
	return m, true
}

// Read notes that the rows are read now, again or (again false) for the
// first time: the header counts the screen's age from it.
func (m *Model) Read(again bool) {
	if m.clock.Set() && (again || m.readAt.IsZero()) {
		m.readAt = m.clock.Now()
	}
}

// judge judges changes with t.
func judge(ctx context.Context, t *backend.Tracker, changes []model.Change) ChangedMsg {
	msg := ChangedMsg{Changes: changes}
	found, err := t.Judge(ctx, changes)
	msg.Err, msg.Batch = err, t.Batch()
	for _, e := range found {
		if e.Kind != backend.Resolved { // appeared, there before the write (existing), or its details changed
			msg.Appeared = append(msg.Appeared, e.Problem)
		} else {
			msg.Resolved = append(msg.Resolved, e.Problem)
		}
	}
	return msg
}

// rejudgement is what reads of a few problems' keys found, for the
// tracker (Rejudged).
type rejudgement struct {
	gone, there []model.Problem
	since       int
}

// maxRejudged bounds the rejudgements waiting for the next batch of
// changes; past it the oldest are dropped, as a finished check's report
// (Know) then tells the tracker all of it again.
const maxRejudged = 256

// Rejudged hands the follower what reads of a few problems' keys found
// (a fix's, check.Rejudge): the problems gone and those there now, which
// the changes are judged against from then on; since is as Know's. A
// problem a fix resolved that someone else then makes again is so told
// as appeared, not taken for one known already.
func (m Model) Rejudged(gone, there []model.Problem, since int) {
	if m.rejudged == nil || len(gone)+len(there) == 0 {
		return
	}
	r := rejudgement{slices.Clone(gone), slices.Clone(there), since}
	for {
		select {
		case m.rejudged <- r:
			return
		default:
			select {
			case <-m.rejudged: // full: the oldest goes
			default:
			}
		}
	}
}

// knownReport is a finished check's problems, for the tracker: the check
// began once batch since of the follow's judgements had been handled.
type knownReport struct {
	problems []model.Problem
	since    int
}

// Know hands the follower the problems of a finished check's report,
// which the changes are judged against from then on, but where a batch
// after since (ChangedMsg.Batch: the last handled when the check began)
// judged what the check may have read before.
func (m Model) Know(ps []model.Problem, since int) {
	if m.known == nil {
		return
	}
	select {
	case <-m.known: // an older report's: this one replaces it
	default:
	}
	select {
	case m.known <- knownReport{slices.Clone(ps), since}:
	default:
	}
}

// Update follows the follow's start and end.
func (m Model) Update(msg tea.Msg) Model {
	switch msg := msg.(type) {
	case StartedMsg:
		m.state, m.fell, m.retryAt = following, false, time.Time{}
	case EndedMsg:
		m.fell = m.fell || m.state == following
		m.state, m.err, m.retryAt = off, msg.Err, time.Time{}
		if msg.Retry > 0 {
			m.retryAt = m.clock.Now().Add(msg.Retry)
		}
	case TickMsg:
		m.now = msg.Now
	}
	return m
}

// Following reports whether a write made now shows.
func (m Model) Following() bool { return m.state == following }

// Header is what the header says of the follow: "live" while it
// follows, why not when it does not ("" when no stream was asked for).
func (m Model) Header() string {
	switch m.state {
	case none:
		if m.poll > 0 {
			return "polling every " + pollWords(m.poll) + m.age()
		}
	case ready, starting:
		return "live: starting"
	case following:
		return "live"
	case off:
		not := "not live: "
		if m.fell {
			not = "not live, fell back: "
		}
		var o *Off
		if errors.As(m.err, &o) {
			return not + o.Why + m.polling() + m.age() + " (r reads again; ? says how to enable one)"
		}
		return not + "the stream could not be followed" + m.retrying() + m.polling() + m.age() + " (r reads again)"
	}
	return ""
}

// retrying says when a failed follow is tried again, if it is.
func (m Model) retrying() string {
	if m.retryAt.IsZero() {
		return ""
	}
	if m.now.Before(m.retryAt) {
		return ", retrying in " + model.Until(m.retryAt.Unix(), m.now.Unix())
	}
	return ", retrying"
}

// polling says how often the rows on screen are read again, if they are.
func (m Model) polling() string {
	if m.poll <= 0 {
		return ""
	}
	return ", polling every " + pollWords(m.poll)
}

// pollWords is a polling interval in words: "10 s", "2 min".
func pollWords(d time.Duration) string { return model.Until(int64(d/time.Second), 0) }

// age says how old the screen is: when its rows were read.
func (m Model) age() string {
	if m.readAt.IsZero() || m.now.IsZero() {
		return ""
	}
	if d := m.now.Sub(m.readAt); d >= time.Second {
		return ", read " + model.Until(m.readAt.Unix(), m.now.Unix()) + " ago"
	}
	return ", read just now"
}

// Help is what help says of the follow: why it is off and the line that
// enables a stream, or nothing.
func (m Model) Help() []string {
	var o *Off
	poll := ""
	if m.poll > 0 {
		poll = " The rows on screen are read again every " + pollWords(m.poll) + " (--follow): the accounts about the selection and the locks they own."
	}
	switch {
	case m.state == none && poll != "":
		return []string{"", "not live:" + poll}
	case m.state == none:
		return nil
	case m.state != off:
		return []string{"", "live: the table's stream is followed. What anyone writes shows within seconds, unasked: the rows it touches are read again " +
			"and marked " + rows.ChangedGlyph + " for a moment, the problems it makes or resolves join or leave the Problems view, and an open write dialog " +
			"about what changed says so before anything is sent."}
	case errors.As(m.err, &o):
		return []string{"", "not live: " + o.Why + ". Others' writes show when r reads again." + poll + " Enable a stream (then open the table again) with:", "  " + o.Enable}
	case m.err != nil:
		retry := ""
		if !m.retryAt.IsZero() {
			retry = " It is tried again, after a wait that doubles up to a minute; once it follows again, the rows on screen are read again."
		}
		return []string{"", "not live: the stream could not be followed: " + model.OneLine(redact.String(m.err.Error())) + "." + retry + poll}
	}
	return nil
}

// Touched lists what changes touched that the cache holds, to be read
// again: the accounts written, or that own a lock written, or hold its
// value (someone else's lock put there is no longer missing), or hold a
// value an account written held or holds (its rename ends a duplicate,
// or makes one); and the lock items written.
func Touched(sc *model.Schema, cache *items.Cache, changes []model.Change) (accounts []string, locks []model.KeyRef) {
	cl := model.Classifier{Schema: sc}
	seen := map[string]bool{}
	add := func(id string) {
		if id != "" && !model.IsClaim(id) && cache.Has(id) && !seen[id] {
			seen[id] = true
			accounts = append(accounts, id)
		}
	}
	values := map[items.LockValue]bool{} // of the locks written
	for _, c := range changes {
		switch e := cl.Classify(c.Table, c.Image()); e.Kind {
		case model.EntryAccount:
			add(e.ID)
			// The values it held and holds: the other holders' rows say
			// duplicate, or ok, by whether it holds theirs too.
			for _, img := range []model.Item{c.Old, c.New} {
				for ci := range sc.Constraints {
					if h, v := sc.Held(ci, img); img != nil && h == model.HoldsValue {
						values[items.LockValue{Constraint: ci, Value: v}] = true
					}
				}
			}
		case model.EntryLock:
			for _, img := range []model.Item{c.Old, c.New} {
				if img != nil {
					add(sc.NamedOwner(img))
				}
			}
			values[items.LockValue{Constraint: e.Constraint, Value: e.Value}] = true
			ref := model.KeyRef{Table: c.Table, Key: sc.KeyOf(c.Table, c.Keys)}
			if cache.Lock(items.LockKey(ref.Table, ref.Key)).Table != "" {
				locks = append(locks, ref)
			}
		}
	}
	for _, id := range cache.Holding(values) {
		add(id)
	}
	return accounts, locks
}

// Involved lists what changes involve, whether the cache holds it or
// not: the accounts written, the owners of the locks written, and the
// values the accounts written held or hold and the locks written are
// for. The accounts view reads again, when they come back from disk, the
// accounts among them or holding those values (accounts.TouchedMsg).
func Involved(sc *model.Schema, changes []model.Change) (accounts []string, values []items.LockValue) {
	cl := model.Classifier{Schema: sc}
	for _, c := range changes {
		switch e := cl.Classify(c.Table, c.Image()); e.Kind {
		case model.EntryAccount:
			accounts = append(accounts, e.ID)
			for _, img := range []model.Item{c.Old, c.New} {
				for ci := range sc.Constraints {
					if h, v := sc.Held(ci, img); img != nil && h == model.HoldsValue {
						values = append(values, items.LockValue{Constraint: ci, Value: v})
					}
				}
			}
		case model.EntryLock:
			for _, img := range []model.Item{c.Old, c.New} {
				if owner := sc.NamedOwner(img); img != nil && owner != "" && !model.IsClaim(owner) {
					accounts = append(accounts, owner)
				}
			}
			values = append(values, items.LockValue{Constraint: e.Constraint, Value: e.Value})
		}
	}
	return accounts, values
}

// TouchedItems are the keys of the items changes touched that the cache
// holds as neither an account nor a lock (the Items view's, a
// partition's): each is to be read again, as Touched's are.
func TouchedItems(sc *model.Schema, cache *items.Cache, changes []model.Change) []model.KeyRef {
	var refs []model.KeyRef
	for _, c := range changes {
		ref := model.KeyRef{Table: c.Table, Key: sc.KeyOf(c.Table, c.Keys)}
		if c.Table == sc.Table && cache.Item(items.LockKey(ref.Table, ref.Key)) != nil {
			refs = append(refs, ref)
		}
	}
	return refs
}
