package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/dynamo/stream/checkpoint"
	"github.com/locktable/locktable/model"
)

// recorder keeps watch --checkpoint's file: after each batch, how far the
// streams are read and what the tracker knows and holds back, so that a
// watch started again neither skips a record nor reports again a problem
// it reported. Nil without --checkpoint: it then records nothing.
type recorder struct {
	path     string
	file     checkpoint.File
	sources  []stream.Source
	follower *stream.Follower
	tracker  *backend.Tracker
	journal  *checkpoint.Journal
}

// loadCheckpoint reads --checkpoint's file (nil: no flag, or nothing
// recorded yet). A file that is not a checkpoint of this table is a usage
// error, in words.
func loadCheckpoint(path string, sc *model.Schema) (*checkpoint.File, error) {
	if path == "" {
		return nil, nil
	}
	cp, err := checkpoint.Load(path, sc.Table)
	var bad *checkpoint.Error
	if errors.As(err, &bad) {
		return nil, usageErr("--checkpoint %v", err)
	}
	return cp, err
}

// started is where a follow started: what "watching ... from" says, and
// whether it skipped a gap after a checkpoint.
type started struct {
	from string
	gap  bool
}

// startFollow starts following sources where cp left them, else as from
// says. A checkpoint that cannot be followed on without a gap (its
// records trimmed, its stream replaced) is exit 2, unless --from was
// given: then the follow starts there, and says what it skips.
func (a *app) startFollow(ctx context.Context, f watchFlags, o stream.Options, sources []stream.Source, cp *checkpoint.File, say sayer) (*stream.Follower, started, error) {
	var err error
	at := started{from: f.from}
	if cp != nil {
		o.Resume, err = cp.Resume(sources)
		at.from = "the checkpoint " + model.Printable(f.checkpoint)
	}
	follower := stream.NewFollower(a.conn.Streams(), sources, o)
	if err == nil {
		err = follower.Start(ctx)
	}
	var gap *stream.GapError
	switch {
	case errors.As(err, &gap) && f.fromSet:
		say.note(gap.Table, gap.Error()+"; starting from "+f.from+" as --from says: the problems reported are read again, "+
			"and what the writes in between did is reported only as those reads find it")
		o.Resume, at = nil, started{from: f.from, gap: true}
		follower = stream.NewFollower(a.conn.Streams(), sources, o)
		err = follower.Start(ctx)
	case errors.As(err, &gap):
		return nil, at, &exitError{code: ExitError, err: fmt.Errorf("%w; a watch never skips records unsaid: "+
			"start it with --from now or --from trim-horizon to go on from there with the gap, or name a new checkpoint file", gap)}
	}
	return follower, at, err
}

// newRecorder is the recorder of --checkpoint (nil without it), and
// tells tracker what cp knew: the problems reported and not resolved,
// and the changes that waited.
func newRecorder(f watchFlags, cp *checkpoint.File, sc *model.Schema, sources []stream.Source, follower *stream.Follower, tracker *backend.Tracker) (*recorder, error) {
	if f.checkpoint == "" {
		return nil, nil
	}
	journal, err := checkpoint.OpenJournal(f.checkpoint)
	if err != nil {
		return nil, err
	}
	r := &recorder{path: f.checkpoint, file: checkpoint.File{Table: sc.Table}, sources: sources, follower: follower, tracker: tracker, journal: journal}
	if cp == nil {
		return r, nil
	}
	var known []model.Problem
	for _, p := range cp.Problems {
		tied, ok := sc.Tie(p)
		if !ok {
			return nil, usageErr("--checkpoint %s: a problem of %q, which the schema does not constrain: the checkpoint of another schema", f.checkpoint, p.Constraint)
		}
		known = append(known, tied)
	}
	tracker.Know(known, 0)
	tracker.Wait(cp.Waiting)
	r.file.Reporting, r.file.Batch = cp.Reporting, cp.Batch
	return r, nil
}

// unsure are the events the last watch recorded before printing them
// and did not journal as out: it was stopped in between, so they are
// printed now. The first of them may be out already (stopped between
// printing it and journaling it): the one case a line comes twice, the
// same event, problem and cause.
func (r *recorder) unsure(sc *model.Schema) []backend.Event {
	if r == nil {
		return nil
	}
	var events []backend.Event
	for _, rep := range r.file.Reporting[r.file.Out(r.path):] {
		p, _ := sc.Tie(rep.Problem)
		events = append(events, backend.Event{Kind: backend.EventKind(rep.Event), Problem: p, Cause: rep.Cause})
	}
	return events
}

// report records the state after a batch judged into events, and prints
// them: the events recorded first, as being reported, and journaled as
// each is out, so that a watch stopped before they are all out prints
// the rest when started again.
func (r *recorder) report(events []backend.Event, print func(backend.Event) error) error {
	if r == nil {
		return printAll(events, print, func() error { return nil })
	}
	r.file.Reporting = r.file.Reporting[:0]
	for _, e := range events {
		if reported(e.Kind) {
			r.file.Reporting = append(r.file.Reporting, checkpoint.Report{Event: string(e.Kind), Problem: e.Problem, Cause: e.Cause})
		}
	}
	if len(r.file.Reporting) == 0 {
		return r.save()
	}
	r.file.Batch++
	if err := r.save(); err != nil {
		return err
	}
	if err := r.journal.Begin(); err != nil {
		return err
	}
	// One synced save a batch: once every line is out, the journal says
	// so (File.Out), and a restart prints none of them again.
	batch := r.file.Batch
	return printAll(events, print, func() error { return r.journal.Out(batch) })
}

// printAll prints the events watch reports, calling out after each line
// printed (--exit-on-problem's exit too comes after its line).
func printAll(events []backend.Event, print func(backend.Event) error, out func() error) error {
	for _, e := range events {
		if !reported(e.Kind) {
			continue
		}
		err := print(e)
		var exit *exitError
		if err == nil || errors.As(err, &exit) {
			if oerr := out(); oerr != nil {
				return oerr
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// close closes the journal.
func (r *recorder) close() {
	if r != nil {
		_ = r.journal.Close()
	}
}

// save writes the checkpoint as the follow and the tracker are now.
func (r *recorder) save() error {
	r.file.Record(r.sources, r.follower.Marks())
	r.file.Problems = r.tracker.Known()
	r.file.Waiting = r.tracker.Waiting()
	return r.file.Save(r.path)
}

// withReported is the problems a check found, plus those known that it
// did not find.
func withReported(found, known []model.Problem) []model.Problem {
	out := slices.Clone(found)
	for _, k := range known {
		if !slices.ContainsFunc(found, func(p model.Problem) bool { return model.SameProblem(k, p) }) {
			out = append(out, k)
		}
	}
	return out
}

// catchUp prints what a watch started again owes before it follows: the
// lines the last one recorded and did not print, then, after a gap, the
// problems it reported read again (those resolved in the gap).
func (a *app) catchUp(ctx context.Context, rec *recorder, tracker *backend.Tracker, gap bool, sc *model.Schema, say sayer, print func(backend.Event) error) error {
	if unsure := rec.unsure(sc); len(unsure) > 0 {
		say.note("", fmt.Sprintf("the last watch stopped before it printed the %d lines below (the first may have been out already)", len(unsure)))
		if err := rec.report(unsure, print); err != nil {
			return err
		}
	}
	if !gap {
		return nil
	}
	events, err := tracker.Recheck(ctx, model.Change{Event: model.ChangeRecheck, Table: sc.Table, Keys: model.Item{}, At: a.clock.Now()})
	if err != nil {
		return err
	}
	return rec.report(events, print)
}
