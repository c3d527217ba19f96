package checkpoint_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locktable/locktable/dynamo/stream"
	"github.com/locktable/locktable/dynamo/stream/checkpoint"
	"github.com/locktable/locktable/model"
)

// TestCheckpointRoundTrip: what Save writes, Load reads back whole; no
// file, or an empty one, is nothing recorded; the journal says how many
// of the events being reported are out, its lines of another batch not
// counted.
func TestCheckpointRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cp.json")
	if f, err := checkpoint.Load(path, "accounts"); f != nil || err != nil {
		t.Fatalf("no file: %v, %v; want nothing", f, err)
	}
	p := model.Problem{Kind: model.MissingLock, Constraint: "email", Value: "ada@x.io", Accounts: []string{"ACCT#ada"}}
	c := model.Change{Event: model.ChangeRemove, Table: "accounts", Keys: model.Item{"PK": model.S("UNIQ#EMAIL#ada@x.io")}, Sequence: "42"}
	sources := []stream.Source{{Table: "accounts", ARN: "arn:1"}}
	f := checkpoint.File{Table: "accounts", Problems: []model.Problem{p}, Waiting: []model.Change{c},
		Reporting: []checkpoint.Report{{Event: "appeared", Problem: p, Cause: c}, {Event: "resolved", Problem: p, Cause: c}}, Batch: 3}
	f.Record(sources, map[string]stream.Marks{"arn:1": {"s1": {After: "42"}, "s0": {Done: true}}})
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := checkpoint.Load(path, "accounts")
	if err != nil {
		t.Fatal(err)
	}
	resume, err := got.Resume(sources)
	if err != nil || resume["arn:1"]["s1"].After != "42" || !resume["arn:1"]["s0"].Done {
		t.Errorf("resume %v, %v; want s1 after 42, s0 done", resume, err)
	}
	if len(got.Problems) != 1 || got.Problems[0].Value != "ada@x.io" || len(got.Waiting) != 1 || got.Waiting[0].Keys["PK"].S != "UNIQ#EMAIL#ada@x.io" ||
		len(got.Reporting) != 2 || got.Reporting[1].Cause.Sequence != "42" {
		t.Errorf("read back %+v", got)
	}
	j, err := checkpoint.OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := errors.Join(j.Out(2), j.Out(3)); err != nil {
		t.Fatal(err)
	}
	if n := got.Out(path); n != 1 {
		t.Errorf("out: %d; want 1 (the line of batch 2 is another batch's)", n)
	}
	if err := j.Begin(); err != nil {
		t.Fatal(err)
	}
	if n := got.Out(path); n != 0 {
		t.Errorf("out after Begin: %d; want 0", n)
	}
}

// TestCheckpointRefusesAForeignFile: a file that is not a checkpoint, a
// checkpoint of another version, of another table, or of a stream the
// table no longer has, is refused in words.
func TestCheckpointRefusesAForeignFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, body, want string }{
		{"not JSON", "shard s1 at 42\n", "not a locktable watch checkpoint"},
		{"other JSON", `{"version":1,"table":"accounts"}`, "not a locktable watch checkpoint"},
		{"another version", `{"kind":"locktable watch checkpoint","version":9,"table":"accounts"}`, "version 9"},
		{"another table", `{"kind":"locktable watch checkpoint","version":1,"table":"devices"}`, `table "devices", not of "accounts"`},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
		if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := checkpoint.Load(path, "accounts")
		var bad *checkpoint.Error
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v; want a *checkpoint.Error naming the file and saying %q", c.name, err, c.want)
		}
	}
	f := checkpoint.File{Table: "accounts", Streams: []checkpoint.Stream{{Table: "accounts", ARN: "arn:old"}}}
	_, err := f.Resume([]stream.Source{{Table: "accounts", ARN: "arn:new"}})
	var gap *stream.GapError
	if !errors.As(err, &gap) || !strings.Contains(err.Error(), "arn:old") || !strings.Contains(err.Error(), "arn:new") {
		t.Errorf("another stream: %v; want a *stream.GapError naming both", err)
	}
}
