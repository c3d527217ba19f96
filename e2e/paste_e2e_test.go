package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// paste pastes s as the terminal does when the program asked for
// bracketed paste (tmux paste-buffer -p; a line break is sent as CR), and
// leaves no buffer behind.
func (tm *term) paste(s string) {
	tm.t.Helper()
	f := filepath.Join(tm.t.TempDir(), "paste") // a file: an argument cannot hold a NUL
	if err := os.WriteFile(f, []byte(s), 0o600); err != nil {
		tm.t.Fatal(err)
	}
	tm.tmux("load-buffer", "-b", "locktable-paste", f)
	tm.tmux("paste-buffer", "-p", "-d", "-b", "locktable-paste", "-t", tm.session)
}

// TestTUIPaste (issue 26): a paste into the rename form was dropped, so
// clearing the email and pasting a new one previewed "remove email", and
// y sent it. In a real terminal the paste lands in the field; a paste of
// two lines is refused whole; a paste over the preview sends nothing.
func TestTUIPaste(t *testing.T) {
	ep, table := seededTable(t, "--accounts", "3")
	tm := startTUI(t, "--endpoint-url", ep, "--table", table)
	tm.start()
	tm.waitText("the first account", "└ UNIQ#HANDLE#ada0")

	tm.keys(":")
	tm.waitText("the command line", "command (tab lists them)")
	tm.paste("find ada0")
	tm.keys("Enter")
	tm.waitText("the search result", "search: ada0")
	tm.keys("e")
	tm.waitText("the rename form", "rename ACCT#00000000")
	tm.keys("C-u")
	tm.paste("bobby.pasted@x.io")
	tm.waitFor("the paste in the field", func(s string) bool {
		return strings.Contains(strings.Join(strings.Fields(s), " "), "▸ email bobby.pasted@x.io")
	})
	tm.paste("more\n")
	screen := tm.waitText("the refusal", "not pasted: the text is 2 lines")
	if strings.Contains(screen, "bobby.pasted@x.iomore") || strings.Contains(screen, "enter/y send") {
		t.Fatalf("a paste of two lines was taken, or its enter previewed:\n%s", screen)
	}
	tm.keys("Enter")
	preview := tm.waitText("the preview", "put lock UNIQ#EMAIL#bobby.pasted@x.io (owner ACCT#00000000)")
	if strings.Contains(preview, "remove email") {
		t.Fatalf("the preview removes the email:\n%s", preview)
	}
	tm.paste("y\n")
	screen = tm.waitText("the paste refused over the preview", "not pasted: nothing here takes text")
	if strings.Contains(screen, "COMMITTED") {
		t.Fatalf("a paste sent the write:\n%s", screen)
	}
	tm.keys("Escape")
	tm.waitText("the form again", "esc cancel")
	tm.keys("Escape")
	tm.waitFor("the dialog closed", func(s string) bool { return !strings.Contains(s, "rename ACCT#") })
	if out := tm.quit(); !strings.Contains(out, "EXIT=0") {
		t.Errorf("exit: %q", out)
	}
}

// TestDeleteConfirmsAHostileKey (issue 26): `locktable delete` of an
// account whose key holds a control character asked for the key typed
// back, showed it escaped, and compared the answer with the raw bytes,
// which no keyboard gives: the delete could never be confirmed. It asks
// for the key as the write form shows it, and takes it typed so.
func TestDeleteConfirmsAHostileKey(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table := store.Schema.Table
	id := "ACCT#e\x1b[1m\\x"
	dynamotest.Put(t, client, table, dynamotest.Account(id, "esc@x.io", "esc"),
		dynamotest.Lock("UNIQ#EMAIL#esc@x.io", id), dynamotest.Lock("UNIQ#HANDLE#esc", id))

	tm := startTUI(t, "--endpoint-url", ep, "--table", table, "delete", id)
	tm.start()
	shown := model.EscapeText(id)
	tm.waitText("the question", "type "+shown+" to confirm:")
	tm.text(shown)
	screen := tm.capture()
	tm.keys("Enter")
	var exit []byte
	for deadline := time.Now().Add(tmuxWait); !bytes.HasSuffix(exit, []byte("\n")); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no exit after typing %s back:\n%s", shown, screen)
		}
		exit, _ = os.ReadFile(tm.exitFile)
	}
	if got := strings.TrimSpace(string(exit)); got != "EXIT=0" {
		t.Fatalf("typing %s back: %s", shown, got)
	}
	if _, found, err := store.Pages.Account(context.Background(), id); err != nil || found {
		t.Fatalf("%s is still in the table (%v)", shown, err)
	}
}
