package cli

import (
	"context"
	"errors"
	"fmt"

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

// startFollow starts following sources where cp left them, else as from
// says. A checkpoint that cannot be followed on without a gap (its
// records trimmed, its stream replaced) is exit 2, unless --from was
// given: then the follow starts there, and says what it skips.
func (a *app) startFollow(ctx context.Context, f watchFlags, o stream.Options, sources []stream.Source, cp *checkpoint.File, say sayer) (*stream.Follower, error) {
	var err error
	if cp != nil {
		o.Resume, err = cp.Resume(sources)
	}
	follower := stream.NewFollower(a.conn.Streams(), sources, o)
	if err == nil {
		err = follower.Start(ctx)
	}
	var gap *stream.GapError
	switch {
	case errors.As(err, &gap) && f.fromSet:
		say.note(gap.Table, gap.Error()+"; starting from "+f.from+" as --from says: what the writes in between did is not reported")
		o.Resume = nil
		follower = stream.NewFollower(a.conn.Streams(), sources, o)
		err = follower.Start(ctx)
	case errors.As(err, &gap):
		return nil, &exitError{code: ExitError, err: fmt.Errorf("%w; a watch never skips records unsaid: "+
			"start it with --from now or --from trim-horizon to go on from there with the gap, or name a new checkpoint file", gap)}
	}
	return follower, err
}

// newRecorder is the recorder of --checkpoint (nil without it), and
// tells tracker what cp knew: the problems reported and not resolved,
// and the changes that waited.
func newRecorder(f watchFlags, cp *checkpoint.File, sc *model.Schema, sources []stream.Source, follower *stream.Follower, tracker *backend.Tracker) (*recorder, error) {
	if f.checkpoint == "" {
		return nil, nil
	}
	r := &recorder{path: f.checkpoint, file: checkpoint.File{Table: sc.Table}, sources: sources, follower: follower, tracker: tracker}
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
	r.file.Reporting = cp.Reporting
	return r, nil
}

// unsure are the events the last watch recorded before printing them and
// did not record as printed: it may have been stopped in between, so
// they are printed again (the one case a line can come twice: the same
// event, problem and cause).
func (r *recorder) unsure(sc *model.Schema) []backend.Event {
	if r == nil {
		return nil
	}
	var events []backend.Event
	for _, rep := range r.file.Reporting {
		p, _ := sc.Tie(rep.Problem)
		events = append(events, backend.Event{Kind: backend.EventKind(rep.Event), Problem: p, Cause: rep.Cause})
	}
	return events
}

// report records the state after a batch judged into events, and prints
// them: the events recorded first, as being reported, so that a watch
// stopped before they are all out prints them when started again; then,
// once they are out, recorded as reported.
func (r *recorder) report(events []backend.Event, print func([]backend.Event) error) error {
	if r == nil {
		return print(events)
	}
	r.file.Reporting = r.file.Reporting[:0]
	for _, e := range events {
		if e.Kind != backend.Changed {
			r.file.Reporting = append(r.file.Reporting, checkpoint.Report{Event: string(e.Kind), Problem: e.Problem, Cause: e.Cause})
		}
	}
	if len(r.file.Reporting) > 0 {
		if err := r.save(); err != nil {
			return err
		}
	}
	if err := print(events); err != nil {
		return err
	}
	r.file.Reporting = nil
	return r.save()
}

// save writes the checkpoint as the follow and the tracker are now.
func (r *recorder) save() error {
	r.file.Record(r.sources, r.follower.Marks())
	r.file.Problems = r.tracker.Known()
	r.file.Waiting = r.tracker.Waiting()
	return r.file.Save(r.path)
}
