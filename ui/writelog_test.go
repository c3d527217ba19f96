package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// commitRename renames account id (found by searching q) and closes the
// committed result.
func commitRename(d *driver, q, id, attr, v string) {
	d.t.Helper()
	renameAccount(d, q, id, attr, v)
	waitScreen(d, "the preview of "+id+"'s rename", "owner "+id)
	d.press("enter")
	waitScreen(d, "the result of "+id+"'s rename", "COMMITTED")
	d.press("enter")
}

// cancelRenameOntoAda renames bob's username onto ada's, whose lock is
// held: the guard cancels it.
func cancelRenameOntoAda(d *driver) {
	d.t.Helper()
	renameAccount(d, "bob", "ACCT#b2", "username", "ada")
	waitScreen(d, "the preview", "put lock UNIQ#HANDLE#ada (owner ACCT#b2)")
	sendAndLeave(d, "CANCELLED")
}

// sendAndLeave sends the write previewed, waits for its outcome and
// leaves the dialog (back to the form, then closed).
func sendAndLeave(d *driver, outcome string) {
	d.t.Helper()
	d.press("enter")
	waitScreen(d, "the result", outcome)
	d.press("esc", "esc")
	if d.m.layers.write.Open() {
		d.t.Fatalf("the dialog is still open:\n%s", d.screen())
	}
}

// redo presses u where it redoes a write, sees its preview named title
// (never "undo undo"), and sends it.
func redo(d *driver, title string) {
	d.t.Helper()
	d.press("u")
	waitScreen(d, "the redo's preview", title)
	if strings.Contains(d.screen(), "undo undo") {
		d.t.Fatalf("the redo is called an undo of the undo:\n%s", d.screen())
	}
	d.press("enter")
	waitScreen(d, "the redo's result", "COMMITTED")
}

// logRow is the index of the screen line that starts, past the
// selection mark, with fields prefix, failing when there is none.
func logRow(d *driver, prefix string) int {
	d.t.Helper()
	i := d.rowIndex(prefix)
	if i < 0 {
		d.t.Fatalf("no row %q in the writes log:\n%s", prefix, d.screen())
	}
	return i
}

// emailOf is account id's email as the store has it now.
func emailOf(t *testing.T, b any, id string) string {
	t.Helper()
	a, found, err := roles(b).Pages.Account(context.Background(), id)
	if err != nil || !found {
		t.Fatalf("account %s: found %v, %v", id, found, err)
	}
	return a.Item["email"].S
}

// TestWritesLogListsTheWritesNewestFirst: w shows every write of the
// session, the newest on top, each with its number, outcome, operation,
// keys and token (the one it was sent with), and the audit log's path.
func TestWritesLogListsTheWritesNewestFirst(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store), AuditLog: "/var/tmp/locktable/audit.log"}, 120, 40)
	d.ready()
	d.press("w")
	if !strings.Contains(d.screen(), "no write yet in this session") {
		t.Fatalf("w before any write:\n%s", d.screen())
	}
	d.press("esc")

	commitRename(d, "ada", "ACCT#a1", "email", "ada@new.io")
	cancelRenameOntoAda(d)
	tokens := store.Control.Tokens()
	if len(tokens) != 2 {
		t.Fatalf("tokens sent: %q, want two", tokens)
	}

	d.press("w")
	if !strings.Contains(d.screen(), "writes of this session, newest first: 2") || !strings.Contains(d.screen(), "audit log: /var/tmp/locktable/audit.log") {
		t.Fatalf("the log's head:\n%s", d.screen())
	}
	second, first := logRow(d, "#2 cancelled rename ACCT#b2"), logRow(d, "#1 committed rename ACCT#a1")
	if second > first {
		t.Errorf("the older write is listed first:\n%s", d.screen())
	}
	ls := d.lines()
	if !strings.Contains(ls[second+1], "token "+tokens[1]) || !strings.Contains(ls[first+1], "token "+tokens[0]) {
		t.Errorf("the rows do not carry the tokens sent (%q):\n%s", tokens, d.screen())
	}
	if !strings.Contains(ls[second+1], "username ada is taken by ACCT#a1") {
		t.Errorf("the cancelled write does not say why:\n%s", d.screen())
	}
	if !strings.Contains(d.selected(), "#2 cancelled") {
		t.Errorf("the newest write is not selected: %q", d.selected())
	}
	// enter shows all of it; esc goes back to the log.
	d.press("enter")
	if s := d.screen(); !d.m.layers.detail.Shown() || !strings.Contains(s, "write #2: rename") || !strings.Contains(s, "token      "+tokens[1]) {
		t.Fatalf("enter on #2:\n%s", s)
	}
	d.press("esc")
	if !d.m.layers.writelog.Shown() || d.m.layers.detail.Shown() {
		t.Fatalf("esc from the detail does not go back to the log:\n%s", d.screen())
	}
	// The keys of the list under it do nothing while the log is shown.
	d.press("e", "d")
	if d.m.layers.write.Open() {
		t.Fatalf("a key for the list under the log opened a dialog:\n%s", d.screen())
	}
	d.press("esc")
	if d.m.layers.writelog.Shown() {
		t.Fatalf("esc leaves the log open:\n%s", d.screen())
	}
}

// TestWritesLogUndoesAnOlderWrite: u on an older committed write of the
// log previews its undo (nothing written before it is sent) and takes that
// write back, leaving the later one; the write taken back is not offered
// again, and the undo's row offers the redo, so named.
func TestWritesLogUndoesAnOlderWrite(t *testing.T) {
	t.Parallel()
	undoAnOlderWrite(t, fakePlanted())
}

// TestWritesLogUndoesAnOlderWriteOnDynamoDB is the same through the
// store, its undo journal and dynoxide.
func TestWritesLogUndoesAnOlderWriteOnDynamoDB(t *testing.T) {
	t.Parallel()
	store, _ := planted(t)
	journaled(t, store)
	undoAnOlderWrite(t, store)
}

func undoAnOlderWrite(t *testing.T, store any) {
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	commitRename(d, "ada", "ACCT#a1", "email", "ada@new.io")
	commitRename(d, "bob", "ACCT#b2", "email", "bob@new.io")

	d.press("w", "down")
	if !strings.Contains(fields(d.selected()), "#1 committed rename ACCT#a1") {
		t.Fatalf("down does not select the first write:\n%s", d.screen())
	}
	if !strings.Contains(d.screen(), "u on #1: undo rename ACCT#a1") {
		t.Errorf("the log does not say what u does:\n%s", d.screen())
	}
	d.press("u")
	waitScreen(d, "the undo's preview", "set account ACCT#a1 back as it was")
	if !strings.Contains(d.screen(), "undo rename ACCT#a1") {
		t.Errorf("the preview does not name the write it undoes:\n%s", d.screen())
	}
	if got := emailOf(t, store, "ACCT#a1"); got != "ada@new.io" {
		t.Fatalf("the preview wrote: ada's email is %q", got)
	}
	d.press("enter")
	waitScreen(d, "the undo's result", "COMMITTED")
	d.press("enter")
	if a, b := emailOf(t, store, "ACCT#a1"), emailOf(t, store, "ACCT#b2"); a != "ada@x.io" || b != "bob@new.io" {
		t.Fatalf("after undoing #1: ada %q, bob %q; want ada@x.io (undone), bob@new.io (kept)", a, b)
	}

	// The log is still shown, the undo on top and #1 still selected.
	logRow(d, "#3 committed undo #1 ACCT#a1")
	if !strings.Contains(fields(d.selected()), "#1 committed rename ACCT#a1") {
		t.Fatalf("the selection moved off #1:\n%s", d.screen())
	}
	if ls := d.lines(); !strings.Contains(ls[logRow(d, "#1 committed")+1], "taken back by #3") {
		t.Errorf("#1 does not say it was taken back:\n%s", d.screen())
	}
	d.press("u")
	if d.m.layers.write.Open() || !strings.Contains(d.screen(), "#1 was taken back by #3: u on #3 puts it back") {
		t.Fatalf("u on a write taken back:\n%s", d.screen())
	}

	d.press("g") // the newest: the undo
	if !strings.Contains(d.screen(), "u on #3: redo rename ACCT#a1") {
		t.Errorf("the undo's row does not offer the redo:\n%s", d.screen())
	}
	redo(d, "redo rename ACCT#a1")
	d.press("enter")
	if got := emailOf(t, store, "ACCT#a1"); got != "ada@new.io" {
		t.Fatalf("after the redo ada's email is %q, want ada@new.io", got)
	}
	logRow(d, "#4 committed redo #1 ACCT#a1")
}

// TestWritesLogOffersNoUndoOfWhatWroteNothing: a cancelled write and one
// whose outcome is unknown are not offered for undo; u says why, and no
// undo is planned.
func TestWritesLogOffersNoUndoOfWhatWroteNothing(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	// bob holds his username without its lock: the holder lookup refuses
	// ada's rename onto it before anything is sent.
	renameAccount(d, "ada", "ACCT#a1", "username", "bob")
	waitScreen(d, "the refusal", "username bob is taken by ACCT#b2")
	d.press("esc")
	cancelRenameOntoAda(d)
	store.Control.LoseWrites(1)
	renameAccount(d, "ada", "ACCT#a1", "email", "ada@new.io")
	waitScreen(d, "the preview", "owner ACCT#a1")
	sendAndLeave(d, "UNKNOWN")

	d.press("w")
	logRow(d, "#3 unknown rename ACCT#a1")
	if ls := d.lines(); !strings.Contains(ls[logRow(d, "#1 cancelled rename ACCT#a1")+1], "never sent, no token · username bob is taken by ACCT#b2") {
		t.Errorf("the refusal is not logged as such:\n%s", d.screen())
	}
	for _, want := range []string{
		"#3 is not offered for undo: its outcome is unknown, so it may have written nothing",
		"#2 is not offered for undo: it was cancelled, so it wrote nothing",
		"#1 is not offered for undo: it was cancelled, so it wrote nothing",
	} {
		if !strings.Contains(fields(d.screen()), want) {
			t.Errorf("the log does not say %q:\n%s", want, d.screen())
		}
		d.press("u")
		if status := d.lines()[len(d.lines())-2]; d.m.layers.write.Open() || !strings.Contains(status, "not offered for undo") {
			t.Errorf("u on a write that wrote nothing: the status says %q:\n%s", status, d.screen())
		}
		d.press("down")
	}
	if n := store.Control.Calls("UndoToken"); n != 0 {
		t.Errorf("%d undos planned of writes that wrote nothing", n)
	}
	// u over the lists takes back the newest committed write: there is
	// none.
	d.press("esc", "u")
	if d.m.layers.write.Open() || !strings.Contains(d.screen(), "nothing to undo: no write of this session has committed") {
		t.Errorf("u with no committed write:\n%s", d.screen())
	}
}

// TestGoldenWritesLog renders the writes log after a rename, a cancelled
// rename and the undo of the first, the undo selected, at a classic
// terminal's size, the smallest locktable draws and a large one.
func TestGoldenWritesLog(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {60, 16}, {200, 50}} {
		d := newDriver(t, Options{Roles: roles(fakePlanted()), AuditLog: "/home/ada/.local/state/locktable/audit.log"}, size[0], size[1])
		d.ready()
		commitRename(d, "ada", "ACCT#a1", "email", "ada@new.io")
		cancelRenameOntoAda(d)
		d.press("w", "down")
		d.press("u")
		waitScreen(d, "the undo's preview", "set account ACCT#a1 back as it was")
		d.press("enter")
		waitScreen(d, "the undo's result", "COMMITTED")
		d.press("enter", "g")
		d.golden(fmt.Sprintf("writes_log_%dx%d", size[0], size[1]))
	}
}

// TestWritesLogTakesTheFirstEsc (issue 38, 6): the writes log opened over
// a filtered list takes esc first, closing itself; the filter under it is
// kept, and a second esc clears it.
func TestWritesLogTakesTheFirstEsc(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted())}, 80, 24)
	d.ready()
	d.press("/")
	d.typeText("carol")
	d.press("enter", "w")
	if !d.m.layers.writelog.Shown() || d.m.listFilter() != "carol" {
		t.Fatalf("w over the filter carol: log shown %v, filter %q", d.m.layers.writelog.Shown(), d.m.listFilter())
	}
	d.press("esc")
	if d.m.layers.writelog.Shown() || d.m.listFilter() != "carol" {
		t.Fatalf("esc over the log: log shown %v, filter %q; want the log closed and the filter kept\n%s", d.m.layers.writelog.Shown(), d.m.listFilter(), d.screen())
	}
	d.press("esc")
	if d.m.listFilter() != "" {
		t.Errorf("esc on the filtered list left the filter %q", d.m.listFilter())
	}
}
