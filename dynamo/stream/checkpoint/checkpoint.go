// Package checkpoint is the file in which locktable watch records how far
// it followed a table's streams and what it reported, so that a watch
// started again goes on where the last one stopped: without a gap in the
// records judged, and without reporting again a problem it reported.
//
// The file is JSON, versioned; it is replaced whole (written beside,
// synced, renamed over), so that a process killed at any moment leaves
// the last one written or the one before it, never a mix.
package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/model"
)

// Version is the version of the file format this package writes and reads.
const Version = 1

// kind says what the file is, so that another JSON file is refused in
// words rather than read as an empty checkpoint.
const kind = "locktable watch checkpoint"

// File is one checkpoint.
type File struct {
	Kind    string `json:"kind"`
	Version int    `json:"version"`
	// Table is the account table watched: a checkpoint of another is
	// refused.
	Table   string   `json:"table"`
	Streams []Stream `json:"streams"`
	// Problems are those reported (appeared or existing) and not resolved
	// since, as check --json has them: a watch started again knows them,
	// so that one still there is not reported again.
	Problems []model.Problem `json:"problems"`
	// Waiting are the changes read whose judgement waits for a later
	// write's record (backend.Tracker.Waiting).
	Waiting []model.Change `json:"waiting,omitempty"`
	// Reporting are the events of the last batch judged, recorded before
	// they are printed and cleared once they are all out; the journal
	// beside the file (Journal) says which of them are out, so that a
	// watch killed in between prints the others.
	Reporting []Report `json:"reporting,omitempty"`
	// Batch numbers the batches recorded with events to report, so that
	// the journal's lines of an older one are not taken for this one's.
	Batch int `json:"batch"`
}

// Stream is how far one table's stream was read.
type Stream struct {
	Table  string       `json:"table"`
	ARN    string       `json:"arn"`
	Shards stream.Marks `json:"shards"`
}

// Report is one event a watch reported: a problem that appeared, was
// there before (existing), or was resolved, and the change after which.
type Report struct {
	Event   string        `json:"event"`
	Problem model.Problem `json:"problem"`
	Cause   model.Change  `json:"cause"`
}

// Error is a file that is not a checkpoint this watch can resume from.
type Error struct {
	Path string
	Why  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Why }

// Load reads the checkpoint at path; nil (and no error) when there is no
// file, or it is empty: nothing was recorded yet. A file that is not a
// checkpoint, of another version, or of a table other than table, is an
// *Error.
func Load(path, table string) (*File, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the checkpoint: %w", err)
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil || f.Kind != kind {
		return nil, &Error{Path: path, Why: "not a " + kind + " (a file locktable watch --checkpoint wrote); move it away or name another file"}
	}
	switch {
	case f.Version != Version:
		return nil, &Error{Path: path, Why: fmt.Sprintf("a checkpoint of version %d; this locktable reads version %d", f.Version, Version)}
	case f.Table != table:
		return nil, &Error{Path: path, Why: fmt.Sprintf("the checkpoint of a watch of table %q, not of %q; name a checkpoint file of its own for each table", f.Table, table)}
	}
	return &f, nil
}

// Save replaces the file at path with f, atomically: written to a file
// beside it, synced, renamed over it, and the directory synced, so that
// the rename itself survives a crash.
func (f *File) Save(path string) error {
	f.Kind, f.Version = kind, Version
	if f.Problems == nil {
		f.Problems = []model.Problem{}
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := write(tmp, append(b, '\n')); err != nil {
		return fmt.Errorf("write the checkpoint: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write the checkpoint: %w", err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("write the checkpoint: %w", err)
	}
	return nil
}

// syncDir syncs directory dir, so that a rename in it survives a crash.
// Windows cannot sync a directory, and journals its renames.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// write writes b to path and syncs it.
func write(path string, b []byte) error {
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := out.Write(b); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Resume is where each stream of sources goes on from, by stream ARN, as
// stream.Options.Resume takes it. A stream the file recorded under
// another ARN (the table's stream was disabled and enabled again, or the
// table made anew) is a *stream.GapError: the records in between are
// lost.
func (f *File) Resume(sources []stream.Source) (map[string]stream.Marks, error) {
	resume := map[string]stream.Marks{}
	for _, s := range f.Streams {
		i := indexOf(sources, s.Table)
		if i < 0 {
			continue // a table the schema no longer names
		}
		if sources[i].ARN != s.ARN {
			return nil, &stream.GapError{Table: s.Table, Why: fmt.Sprintf("the checkpoint followed stream %s, and the table's stream is now %s (enabled again since)", s.ARN, sources[i].ARN)}
		}
		resume[s.ARN] = s.Shards
	}
	return resume, nil
}

// Record sets the streams' marks, by ARN (stream.Follower.Marks).
func (f *File) Record(sources []stream.Source, marks map[string]stream.Marks) {
	f.Streams = f.Streams[:0]
	for _, s := range sources {
		f.Streams = append(f.Streams, Stream{Table: s.Table, ARN: s.ARN, Shards: marks[s.ARN]})
	}
}

func indexOf(sources []stream.Source, table string) int {
	for i, s := range sources {
		if s.Table == table {
			return i
		}
	}
	return -1
}

// Journal is the file beside a checkpoint (its name plus ".out") that
// says which of the events being reported are out: a line per event
// printed, naming its batch. It is appended to, not replaced, so that
// marking an event out costs one small write; a process killed leaves
// what it wrote, since the kernel holds it (a crash of the machine may
// lose the last lines: those events are printed again).
type Journal struct{ f *os.File }

// OpenJournal opens the journal of the checkpoint at path.
func OpenJournal(path string) (*Journal, error) {
	f, err := os.OpenFile(path+".out", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the checkpoint's journal: %w", err)
	}
	return &Journal{f: f}, nil
}

// Begin empties the journal for a batch whose events are recorded (Save)
// and about to be printed.
func (j *Journal) Begin() error { return j.f.Truncate(0) }

// Out says that the next event of batch is printed.
func (j *Journal) Out(batch int) error {
	_, err := fmt.Fprintf(j.f, "%d\n", batch)
	return err
}

// Close closes the journal.
func (j *Journal) Close() error { return j.f.Close() }

// Out is how many of f.Reporting the journal beside path says are out:
// the lines naming f's batch.
func (f *File) Out(path string) int {
	b, err := os.ReadFile(path + ".out")
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range bytes.Split(b, []byte("\n")) {
		if string(line) == strconv.Itoa(f.Batch) {
			n++
		}
	}
	return min(n, len(f.Reporting))
}
