package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
