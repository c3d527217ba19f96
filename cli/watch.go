package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/metrics"
	"github.com/locktable/locktable/model"
)

func (a *app) watchCommand() *cobra.Command {
	f := watchFlags{from: "now"}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Follow the table's stream and report each problem as a write makes or resolves it (Ctrl-C stops)",
		Long: `watch follows the DynamoDB stream of the table (in layout tables, of every
table) and judges each write as check does: the keys it touched are read
again with strongly consistent reads, so the records of one transaction,
which arrive one by one, never raise an alarm on their own. It prints one
line for each problem that appears and for each one it saw that is
resolved, naming the write that did it: of the writes that touched the
value, the last that changed what the check reads of it. Records arrive
after their writes: where the reads show an item as a later write, not
yet streamed, left it, the judgement waits for that write's record.

A problem first seen after writes that changed nothing the check reads of
its value (their old and new images say so: NEW_AND_OLD_IMAGES) was there
before them: it is "existing", not "appeared". With keys or new images
only, nobody can tell, and every problem first seen is said to appear.
It says "watching" on stderr once the writes made from then on are
followed.

Reading a stream costs no read capacity; the confirming reads are metered
and paced within --max-rcu. A table without a stream is an error (exit 2)
that prints the line enabling one:

  aws dynamodb update-table --table-name TABLE \
    --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES

--checkpoint FILE records, after each batch, how far the stream is read
and the problems reported; a watch started again with FILE goes on from
there: no record skipped, no problem reported appeared twice (a line
killed between printing and recording may come once more, the same).
A checkpoint older than the stream keeps (24 hours) is exit 2, unless
--from is given.

Exit: 130 on Ctrl-C; 1 at the first problem with --exit-on-problem; 2 on an
error, a table without a stream, or a stream disabled while it is watched.`,
		Example: `  locktable watch --endpoint-url http://localhost:8000
  locktable watch --json | jq 'select(.event == "appeared")'
  locktable watch --exit-on-problem      # exit 1 at the first problem, e.g. beside an application's integration tests
  locktable watch --from trim-horizon    # the last 24 hours first
  locktable watch --json --checkpoint watch.checkpoint >>events.jsonl  # stop and start again without a gap`,
		GroupID: "read",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.fromSet = cmd.Flags().Changed("from")
			return a.runWatch(cmd.Context(), f)
		},
	}
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print one JSON object a line: the problem as check --json has it, its \"event\" and its \"cause\"")
	cmd.Flags().StringVar(&f.from, "from", f.from, "where to start: now (the writes made from now on) or trim-horizon (every record the stream keeps, its last 24 hours)")
	cmd.Flags().StringVar(&f.checkpoint, "checkpoint", "", "record in FILE how far the stream is read and the problems reported, after each batch, and go on from there when started again: no record skipped, no problem reported twice (exit 2 when the records after it are trimmed, unless --from is given)")
	cmd.Flags().BoolVar(&f.exitOnProblem, "exit-on-problem", false, "exit 1 at the first problem that appears (one there before the write, existing, is printed, not an exit)")
	cmd.Flags().StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at /metrics, and /healthz and /readyz, on this address (:9090; port 0 takes a free one); the problems gauge starts from a check, which reads the table once")
	cmd.Flags().DurationVar(&f.readyLag, "ready-lag", metrics.DefaultReadyLag, "with --metrics-addr, /readyz fails when the follow is further behind the table than this")
	f.lambda.register(cmd.Flags())
	cmd.Flags().StringVar(&f.logFormat, "log-format", "text", "what watch says on stderr: text (lines for a person) or json (log/slog's JSON records); stdout is the same either way")
	_ = cmd.RegisterFlagCompletionFunc("log-format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{"now", "trim-horizon"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// watchFlags are watch's own flags.
type watchFlags struct {
	asJSON, exitOnProblem bool
	lambda                lambdaFlags
	from                  string
	fromSet               bool   // --from given: a checkpoint too old for the stream starts there
	checkpoint            string // --checkpoint's file
	metricsAddr           string
	readyLag              time.Duration
	logFormat             string
}

// position reads --from.
func (f watchFlags) position() (stream.Position, error) {
	switch f.from {
	case "now":
		return stream.Latest, nil
	case "trim-horizon":
		return stream.TrimHorizon, nil
	}
	return 0, usageErr("--from %q: want now or trim-horizon", f.from)
}

// runWatch is watch: the streams of the schema's tables followed, each
// batch of changes judged (backend.Tracker) and its events printed; with
// --metrics-addr, counted for Prometheus from a first check on.
func (a *app) runWatch(ctx context.Context, f watchFlags) error {
	s, err := a.schema()
	if err != nil {
		return err
	}
	from, err := f.position()
	if err != nil {
		return err
	}
	say, err := newSayer(a.stderr, f.logFormat)
	if err != nil {
		return err
	}
	if f.lambda.on {
		return a.runLambda(ctx, f.lambda, s, say)
	}
	if a.demo {
		return usageErr("watch follows a DynamoDB stream, and the demo's embedded backend has none: try a local emulator that serves streams (dynoxide)")
	}
	store, err := a.open(ctx, s)
	if err != nil {
		return err
	}
	met, err := a.serveMetrics(ctx, f, store, say)
	if err != nil {
		return err
	}
	defer met.Stopped()
	sources, err := stream.Find(ctx, a.conn.DynamoDB(), store.Schema.Tables(), store.Endpoint.URL)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	cp, err := loadCheckpoint(f.checkpoint, &store.Schema)
	if err != nil {
		return err
	}
	follower, at, err := a.startFollow(ctx, f, stream.Options{From: from, Clock: a.clock, Note: say.note, Round: met.Round}, sources, cp, say)
	if err != nil {
		return a.streamError(err, store)
	}
	say.watching(sources, at.from)
	w := &judge{tracker: backend.NewTracker(&store.Schema, store.Pages, store.Lookup, func() int64 { return model.Epoch(a.clock.Now()) }), met: met}
	rec, err := newRecorder(f, cp, &store.Schema, sources, follower, w.tracker)
	if err != nil {
		return err
	}
	defer rec.close()
	w.resumed = cp != nil
	print := func(e backend.Event) error { return a.printEvent(e, &store.Schema, f, met) }
	if err := a.catchUp(ctx, rec, w.tracker, at.gap, &store.Schema, say, print); err != nil {
		return err
	}
	if met != nil {
		go w.know(ctx, store.Checker, say)
	}
	err = follower.Follow(ctx, func(ctx context.Context, b stream.Batch) error {
		return w.judge(ctx, b.Changes, func(events []backend.Event) error { return rec.report(events, print) })
	})
	if ctx.Err() == nil { // Follow ends with an error only
		met.Failed("stream")
	}
	return a.streamError(err, store)
}

// judge is watch's tracker and what counts its judgements. The follow
// and the first check (know) take turns at it.
type judge struct {
	mu      sync.Mutex
	tracker *backend.Tracker
	met     *metrics.Watch
	// resumed: the tracker knows the problems a checkpoint recorded as
	// reported, which the first check does not replace (know).
	resumed bool
}

// judge judges one batch of changes and hands its events to print.
func (j *judge) judge(ctx context.Context, changes []model.Change, print func([]backend.Event) error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	events, err := j.tracker.Judge(ctx, changes)
	if err != nil {
		j.met.Failed("judge")
		return err
	}
	j.met.Judged(changes)
	if j.met != nil { // Known gathers and sorts every problem known: not for nothing
		j.met.Problems(j.tracker.Known())
	}
	if err := print(events); err != nil {
		j.met.Failed("output")
		return err
	}
	return nil
}

// know runs a check and tells the tracker its problems, those there
// before the follow began, so that the problems gauge counts the table's
// (a batch judged while it ran knows better than the check of its
// values: Tracker.Know). A failed check is said, and leaves /readyz
// failing.
func (j *judge) know(ctx context.Context, c *dynamo.Checker, say sayer) {
	j.mu.Lock()
	since := j.tracker.Batch()
	j.mu.Unlock()
	report, err := c.Check(ctx, func(model.CheckProgress) {})
	if err != nil {
		if ctx.Err() == nil {
			j.met.Failed("check")
			say.note("", "the first check failed, so the problems gauge counts only what the stream shows: "+err.Error())
		}
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	ps := report.Problems
	if j.resumed {
		// A problem reported and gone while no watch ran is still known
		// until the stream's record of the write that resolved it says
		// resolved.
		ps = withReported(ps, j.tracker.Known())
	}
	j.tracker.Know(ps, since)
	j.met.Problems(j.tracker.Known())
	j.met.Checked()
}

// serveMetrics starts serving the metrics --metrics-addr asks for (nil
// without it), and says where.
func (a *app) serveMetrics(ctx context.Context, f watchFlags, store *dynamo.Store, say sayer) (*metrics.Watch, error) {
	if f.metricsAddr == "" {
		return nil, nil
	}
	if f.readyLag <= 0 {
		return nil, usageErr("--ready-lag %v: want a positive duration (1m, 30s)", f.readyLag)
	}
	met := metrics.New(metrics.Options{Now: a.clock.Now, ReadUnits: store.ConsumedRCU, ReadyLag: f.readyLag, Table: store.Schema.Table})
	addr, err := met.Listen(ctx, f.metricsAddr)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	say.info(fmt.Sprintf("serving metrics at http://%s/metrics (and /healthz, /readyz)", addr), "addr", addr.String())
	return met, nil
}

// sayer is what watch says on stderr: lines for a person, or with
// --log-format json one log/slog JSON record each.
type sayer struct {
	w   io.Writer
	log *slog.Logger // nil: lines
}

// newSayer reads --log-format.
func newSayer(w io.Writer, format string) (sayer, error) {
	switch format {
	case "text":
		return sayer{w: w}, nil
	case "json":
		return sayer{w: w, log: slog.New(slog.NewJSONHandler(w, nil))}, nil
	}
	return sayer{}, usageErr("--log-format %q: want text or json", format)
}

// info says msg, with attrs for a JSON record.
func (s sayer) info(msg string, attrs ...any) {
	if s.log != nil {
		s.log.Info(msg, attrs...)
		return
	}
	fmt.Fprintf(s.w, "locktable: %s\n", msg)
}

// note says what the follow survived or what a person may want to know,
// about table ("": none in particular).
func (s sayer) note(table, note string) {
	table, note = model.Printable(table), model.Printable(note)
	switch {
	case s.log != nil:
		s.log.Warn(note, "table", table)
	case table == "":
		fmt.Fprintf(s.w, "locktable: note: %s\n", note)
	default:
		fmt.Fprintf(s.w, "locktable: note: %s: %s\n", table, note)
	}
}

// watching tells what is followed from where, once the follow has
// started: a write made after this is seen.
func (s sayer) watching(sources []stream.Source, from string) {
	var tables []string
	for _, src := range sources {
		tables = append(tables, fmt.Sprintf("%s (%s)", model.Printable(src.Table), src.View))
		if !src.OldImages() {
			s.note(src.Table, fmt.Sprintf("the stream carries no old images (%s): a deleted or renamed account's old values, "+
				"and so the locks it leaves behind, are seen only where a known problem names them; NEW_AND_OLD_IMAGES shows them", src.View))
		}
	}
	s.info(fmt.Sprintf("watching %s from %s (Ctrl-C stops)", strings.Join(tables, ", "), from), "tables", tables, "from", from)
}

// streamError is err as watch ends with it: a stream disabled while it
// was followed says how to enable it again (exit 2).
func (a *app) streamError(err error, store *dynamo.Store) error {
	var d *stream.DisabledError
	if errors.As(err, &d) {
		return &exitError{code: ExitError, err: fmt.Errorf("%w; enable it again with: %s", d, stream.EnableCommand(d.Table, store.Endpoint.URL))}
	}
	return err
}

// reported reports whether watch prints events of kind: a problem
// found again with other details is nothing new to report.
func reported(kind backend.EventKind) bool { return kind != backend.Changed }

// printEvent prints e (one that is reported), as a JSON line or for a
// person, and with --exit-on-problem ends the watch at the first problem
// that appeared.
func (a *app) printEvent(e backend.Event, sc *model.Schema, f watchFlags, met *metrics.Watch) error {
	var err error
	if f.asJSON {
		err = writeEventJSON(a, e, sc)
	} else {
		_, err = fmt.Fprintln(a.stdout, eventLine(e, sc, model.Epoch(a.clock.Now())))
	}
	if err != nil {
		return err
	}
	met.Reported(string(e.Kind))
	if f.exitOnProblem && e.Kind == backend.Appeared {
		return &exitError{code: ExitProblems}
	}
	return nil
}

// causeJSON is the stream record that made a problem appear or resolved
// it, in watch --json.
type causeJSON struct {
	Event    model.ChangeEvent `json:"event"`
	Table    string            `json:"table"`
	Keys     map[string]string `json:"keys"`
	Sequence string            `json:"sequence_number"`
	At       string            `json:"approximate_time"`
	Old      model.Item        `json:"old_image,omitempty"`
	New      model.Item        `json:"new_image,omitempty"`
}

// writeEventJSON prints e as one JSON object: the problem's fields
// exactly as check --json writes them, then "event" and "cause".
func writeEventJSON(a *app, e backend.Event, sc *model.Schema) error {
	problem, err := json.Marshal(e.Problem)
	if err != nil {
		return err
	}
	c := e.Cause
	extra, err := json.Marshal(struct {
		Event backend.EventKind `json:"event"`
		Cause causeJSON         `json:"cause"`
	}{e.Kind, causeJSON{Event: c.Event, Table: c.Table, Keys: sc.KeyOf(c.Table, c.Keys), Sequence: c.Sequence,
		At: c.At.UTC().Format(time.RFC3339), Old: c.Old, New: c.New}})
	if err != nil {
		return err
	}
	// One object: the problem's closing brace gives way to the rest.
	line := append(problem[:len(problem)-1], ',')
	return writeJSON(a.stdout, json.RawMessage(append(line, extra[1:]...)))
}

// eventLine is e for a person: whether it appeared or was resolved, the
// problem in the words of check's report, and the write that did it,
// every table-sourced string made printable.
func eventLine(e backend.Event, sc *model.Schema, now int64) string {
	line := fmt.Sprintf("%-8s %s", e.Kind, problemLine(e.Problem))
	if why := e.Problem.TTLNote(now); why != "" {
		line += "  " + why
	}
	c := e.Cause
	key := keyPairs(sc.KeyOf(c.Table, c.Keys))
	if c.Table != sc.Table {
		key = c.Table + ":" + key
	}
	after := "after"
	switch {
	case c.Event == model.ChangeRecheck:
		return fmt.Sprintf("%s  read again after a gap in the stream at %s", line, c.At.UTC().Format(time.RFC3339))
	case e.Kind == backend.Existing:
		after = "there before"
	}
	return fmt.Sprintf("%s  %s %s %s at %s", line, after, c.Event, quote(key), c.At.UTC().Format(time.RFC3339))
}
