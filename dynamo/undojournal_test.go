package dynamo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/model"
)

// TestUndoJournalRotates: a journal past its limit is moved aside when a
// process opens it; writes recorded before stay undoable (readers read
// every generation kept) until more than keep generations are moved aside.
func TestUndoJournalRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log.undo")
	write := func(token string) {
		t.Helper()
		line, err := json.Marshal(UndoEntry{Time: time.Now().UTC(), Event: UndoBefore,
			UndoRecord: model.UndoRecord{Token: token, Keys: []string{strings.Repeat("k", 400)}}})
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(append(line, '\n'))
		f.Close()
	}
	tokens := func() []string {
		t.Helper()
		us, err := ReadUndoJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, u := range us {
			out = append(out, u.Record.Token)
		}
		return out
	}
	write("a")
	if err := rotateUndo(path, 1<<20, 2); err != nil {
		t.Fatal(err)
	}
	if g := undoGenerations(path); len(g) != 0 {
		t.Fatalf("a journal under its limit was moved aside: %v", g)
	}
	for _, tok := range []string{"b", "c", "d"} {
		if err := rotateUndo(path, 100, 2); err != nil { // past 100 bytes: aside
			t.Fatal(err)
		}
		write(tok)
	}
	// a, moved aside first, then b, then c: three generations, two kept.
	if g := undoGenerations(path); len(g) != 2 {
		t.Errorf("generations kept: %v, want 2", g)
	}
	if got := strings.Join(tokens(), " "); got != "b c d" {
		t.Errorf("writes read back, oldest first: %q, want \"b c d\" (a was in the generation removed)", got)
	}
}
