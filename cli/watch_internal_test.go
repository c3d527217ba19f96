package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// hostileEvent is an orphan whose account key carries a terminal title
// escape and a bidi override, deleted by the write that is its cause.
func hostileEvent(sc *model.Schema) backend.Event {
	id := "ACCT#\x1b]0;pwned\x07\u202eevil"
	old := model.Item{"PK": model.S(id), "SK": model.S("PROFILE"), "email": model.S("a@x.io")}
	return backend.Event{Kind: backend.Appeared, Problem: model.Classifier{Schema: sc}.LockProblem(model.OrphanLock, 0, "a@x.io", id),
		Cause: model.Change{Event: model.ChangeRemove, Table: sc.Table, Keys: model.Item{"PK": model.S(id), "SK": model.S("PROFILE")},
			Sequence: "7", At: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC), Old: old}}
}

// TestWatchLineIsSanitized: the human line passes the table's text
// through the printable helpers; the JSON line keeps it whole, the same
// value with the dangerous characters as \u escapes.
func TestWatchLineIsSanitized(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	e := hostileEvent(&sc)
	line := eventLine(e, &sc, 0)
	if strings.ContainsAny(line, "\x1b\x07\u202e") {
		t.Errorf("the human line carries the escapes: %q", line)
	}
	if !strings.HasPrefix(line, "appeared orphan_lock      email a@x.io  lock PK=UNIQ#EMAIL#a@x.io,SK=LOCK  owner ") ||
		!strings.HasSuffix(line, ",SK=PROFILE at 2026-12-03T12:00:00Z") || !strings.Contains(line, "  after REMOVE ") {
		t.Errorf("line %q", line)
	}
	var out bytes.Buffer
	if err := writeEventJSON(&app{stdout: &out}, e, &sc); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\x07\u202e") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("the JSON line carries the escapes raw: %q", out.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	cause, _ := got["cause"].(map[string]any)
	keys, _ := cause["keys"].(map[string]any)
	if got["owner"] != e.Problem.Owner || keys["PK"] != e.Problem.Owner || got["event"] != "appeared" || got["kind"] != "orphan_lock" ||
		cause["sequence_number"] != "7" || cause["approximate_time"] != "2026-12-03T12:00:00Z" || cause["old_image"] == nil {
		t.Errorf("the JSON line %s", out.String())
	}
	if _, ok := cause["new_image"]; ok {
		t.Errorf("a REMOVE has a new image: %s", out.String())
	}
}

// TestWatchLineOfARecheck: a problem found resolved by reading it again
// after a gap in the stream names no write: the line says so, and when.
func TestWatchLineOfARecheck(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	e := hostileEvent(&sc)
	e.Kind, e.Cause = backend.Resolved, model.Change{Event: model.ChangeRecheck, Table: sc.Table, Keys: model.Item{}, At: time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC)}
	line := eventLine(e, &sc, 0)
	if !strings.HasPrefix(line, "resolved orphan_lock ") || !strings.HasSuffix(line, "  read again after a gap in the stream at 2026-12-06T20:00:00Z") {
		t.Errorf("line %q", line)
	}
}
