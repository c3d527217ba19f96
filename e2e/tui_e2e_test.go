package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo/dynamotest"
)

// tmuxWait bounds every wait for the terminal to show something.
const tmuxWait = 15 * time.Second

// term is a detached tmux server of its own (its own socket), with one
// session that runs locktable in a pane (120x40 unless startTUISized).
type term struct {
	t        *testing.T
	socket   string
	session  string
	exitFile string
	goFile   string
}

// startTUI runs locktable with args in a fresh tmux session. The binary
// waits for t.start, so that the test can prepare the pane first; its exit
// status lands in a file.
func startTUI(t *testing.T, args ...string) *term {
	t.Helper()
	return startTUISized(t, 120, 40, args...)
}

// startTUISized is startTUI in a width x height pane.
func startTUISized(t *testing.T, width, height int, args ...string) *term {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed: CI must run the terminal tests")
		}
		t.Skip("tmux is not installed")
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	dir := t.TempDir()
	tm := &term{
		t: t, socket: "locktable-e2e-" + hex.EncodeToString(b), session: "tui-" + hex.EncodeToString(b),
		exitFile: filepath.Join(dir, "exit"), goFile: filepath.Join(dir, "go"),
	}
	cmd := []string{shellQuote(binary)}
	for _, a := range args {
		cmd = append(cmd, shellQuote(a))
	}
	script := "while [ ! -e " + shellQuote(tm.goFile) + " ]; do sleep 0.02; done; " +
		strings.Join(cmd, " ") + "; echo EXIT=$? > " + shellQuote(tm.exitFile)
	c := exec.Command("tmux", "-L", tm.socket, "new-session", "-d", "-s", tm.session, "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "sh", "-c", script)
	c.Env = environ(map[string]string{"XDG_STATE_HOME": dir, "TMUX": "", "TERM": "xterm-256color"})
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tm.socket, "kill-server").Run() })
	return tm
}

// start lets the binary run.
func (tm *term) start() {
	if err := os.WriteFile(tm.goFile, nil, 0o644); err != nil {
		tm.t.Fatal(err)
	}
}

func (tm *term) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (tm *term) capture() string { return tm.tmux("capture-pane", "-p", "-t", tm.session) }

// keys sends tmux key names (Enter, Escape, Down).
func (tm *term) keys(keys ...string) {
	tm.tmux(append([]string{"send-keys", "-t", tm.session}, keys...)...)
}

// text types s literally.
func (tm *term) text(s string) { tm.tmux("send-keys", "-t", tm.session, "-l", s) }

// waitFor polls the pane until ok holds, and returns that screen.
func (tm *term) waitFor(what string, ok func(screen string) bool) string {
	tm.t.Helper()
	return tm.waitWithin(what, tmuxWait, ok)
}

// waitWithin polls the pane until ok holds, for at most d, and returns
// that screen.
func (tm *term) waitWithin(what string, d time.Duration, ok func(screen string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := tm.capture()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("waited %v for %s; the pane:\n%s", d, what, s)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (tm *term) waitText(what, text string) string {
	tm.t.Helper()
	return tm.waitFor(what, func(s string) bool { return strings.Contains(s, text) })
}

// quit presses q and returns the exit status line the shell wrote.
func (tm *term) quit() string {
	tm.t.Helper()
	tm.keys("q")
	deadline := time.Now().Add(tmuxWait)
	for {
		if b, err := os.ReadFile(tm.exitFile); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("locktable did not exit after q; the pane:\n%s", tm.capture())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var (
	accountRow = regexp.MustCompile(`^(?:▸ |  )(ACCT#\S+)\s+email=(\S+)\s+username=(\S+)`)
	statusWord = func(word string) *regexp.Regexp { return regexp.MustCompile(`UNIQ#\S+ .*\s` + word + `\s*$`) }
)

// TestTUISmoke drives the real binary in a real terminal: a seeded table
// with every kind of problem, the accounts with their locks, an orphan and
// a missing lock in words, the detail of a lock, a search, and q.
func TestTUISmoke(t *testing.T) {
	ep, table := seededTable(t, "--accounts", "20", "--anomalies")

	tm := startTUI(t, "--endpoint-url", ep, "--table", table)
	tm.start()
	tm.waitText("the header", "locktable  │  "+table+" @ "+ep)
	screen := tm.waitText("the orphans the check confirms", "orphan locks (")

	// An account row, then its email lock, then its username lock.
	lines := strings.Split(screen, "\n")
	found := false
	for i, l := range lines {
		m := accountRow.FindStringSubmatch(l)
		if m == nil || i+2 >= len(lines) {
			continue
		}
		found = true
		if !strings.Contains(lines[i+1], "└ UNIQ#EMAIL#"+m[2]) || !strings.Contains(lines[i+2], "└ UNIQ#HANDLE#"+m[3]) {
			t.Errorf("account %s is not followed by its two locks:\n%s\n%s\n%s", m[1], l, lines[i+1], lines[i+2])
		}
		break
	}
	if !found {
		t.Fatalf("no account row on screen:\n%s", screen)
	}
	if !hasLine(screen, statusWord("orphan")) {
		t.Errorf("no lock marked orphan:\n%s", screen)
	}

	// Enter on a lock row shows the item as DynamoDB JSON; esc comes back.
	tm.keys("Down")
	tm.waitFor("the lock row selected", func(s string) bool { return strings.Contains(s, "▸   └ UNIQ#EMAIL#") })
	tm.keys("Enter")
	detail := tm.waitText("the lock's detail", `{"S":`)
	if !strings.Contains(detail, `"PK": {"S": "UNIQ#EMAIL#`) || !strings.Contains(detail, "esc: back") {
		t.Errorf("detail of a lock:\n%s", detail)
	}
	tm.keys("Escape")
	tm.waitFor("the accounts again", func(s string) bool {
		return !strings.Contains(s, `{"S":`) && strings.Contains(s, "▸   └ UNIQ#EMAIL#")
	})

	// Filter the loaded rows by an email: its account and its locks.
	tm.keys("/")
	tm.waitText("the filter field", "filter: email, username")
	tm.text("LINUS.13@")
	tm.waitText("the filter's count", "3 of ")
	tm.keys("Enter")
	screen = tm.waitText("the filter kept", "filter linus.13@: 3 of")
	if !hasLine(screen, regexp.MustCompile(`^▸ ACCT#\S+\s+email=linus\.13@example\.org\s+username=linus13`)) || strings.Contains(screen, "ada.1@") {
		t.Errorf("the filter does not keep the account alone, selected:\n%s", screen)
	}
	tm.keys("Escape")
	tm.waitFor("the filter cleared", func(s string) bool { return !strings.Contains(s, "filter linus") })

	// Look an email up in the whole table (:find): the account is pinned
	// on top with its locks.
	tm.keys(":")
	tm.waitText("the command line", "command (tab lists them)")
	tm.text("find linus.13@example.org")
	tm.keys("Enter")
	screen = tm.waitText("the search result", "search: linus.13@example.org")
	if !hasLine(screen, regexp.MustCompile(`^▸ ACCT#\S+\s+email=linus\.13@example\.org\s+username=linus13`)) {
		t.Errorf("search result does not select the account:\n%s", screen)
	}

	// The first account with a planted missing lock (the seed's 21st).
	tm.keys(":")
	tm.text("find ada.20@example.org")
	tm.keys("Enter")
	screen = tm.waitText("the second search", "search: ada.20@example.org")
	if !hasLine(screen, regexp.MustCompile(`└ UNIQ#EMAIL#ada\.20@example\.org\s+expected, not found\s+missing\s*$`)) {
		t.Errorf("no lock marked missing:\n%s", screen)
	}

	if got := tm.quit(); got != "EXIT=0" {
		t.Errorf("after q: %q, want EXIT=0", got)
	}
}

func hasLine(screen string, re *regexp.Regexp) bool {
	for _, l := range strings.Split(screen, "\n") {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

// TestTUIRename renames an account through the write dialog: e opens the
// form, the preview shows the exact request, enter sends it, and the
// account's row comes back with its new lock; u then undoes it.
func TestTUIRename(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "accounts")
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, table) })
	state := t.TempDir()
	if r := locktable(t, map[string]string{"XDG_STATE_HOME": state}, "seed", "--endpoint-url", ep, "--table", table, "--accounts", "3"); r.code != 0 {
		t.Fatalf("seed: exit %d, stderr %q", r.code, r.stderr)
	}
	tm := startTUI(t, "--endpoint-url", ep, "--table", table, "--audit-log", state+"/audit.log")
	tm.start()
	tm.waitText("the first account", "└ UNIQ#HANDLE#ada0")

	preview := tm.previewRenameAda0("ada@analytical.engine")
	for _, want := range []string{
		"update account ACCT#00000000",
		"delete lock UNIQ#EMAIL#ada.0@example.org, released by ACCT#00000000",
		// The account is guarded on both attributes the form showed, and
		// the preview says each condition the request carries.
		`only if its email is "ada.0@example.org"`,
		`only if its username is "ada0"`,
		`"ConditionExpression": "(#0 = :0) AND (#1 = :1)"`,
		"aws dynamodb transact-write-items --cli-input-json",
	} {
		// The request wraps at the pane's width: read it as one line.
		if !strings.Contains(strings.ReplaceAll(preview, "\n", ""), want) {
			t.Errorf("preview lacks %q:\n%s", want, preview)
		}
	}
	tm.keys("Enter")
	tm.waitText("the result", "COMMITTED")
	tm.keys("Enter")
	screen := tm.waitText("the new lock row", "└ UNIQ#EMAIL#ada@analytical.engine")
	if !regexp.MustCompile(`└ UNIQ#EMAIL#ada@analytical\.engine\s+owner ACCT#00000000\s+ok`).MatchString(screen) {
		t.Errorf("the new lock is not shown ok:\n%s", screen)
	}
	if strings.Contains(screen, "UNIQ#EMAIL#ada.0@example.org") {
		t.Errorf("the released lock is still shown:\n%s", screen)
	}

	// u takes the rename back, previewed like any write.
	tm.keys("u")
	preview = tm.waitText("the undo's preview", "set account ACCT#00000000 back as it was")
	if !strings.Contains(preview, "undo rename ACCT#00000000") || !strings.Contains(preview, "put lock UNIQ#EMAIL#ada.0@example.org (owner ACCT#00000000)") {
		t.Errorf("the undo's preview:\n%s", preview)
	}
	tm.keys("Enter")
	tm.waitText("the undo's result", "COMMITTED")
	tm.keys("Enter")
	screen = tm.waitText("the old lock row back", "└ UNIQ#EMAIL#ada.0@example.org")
	if strings.Contains(screen, "UNIQ#EMAIL#ada@analytical.engine") {
		t.Errorf("the renamed lock is still shown after undo:\n%s", screen)
	}
	if out := tm.quit(); !strings.Contains(out, "EXIT=0") {
		t.Errorf("exit: %q", out)
	}
	audit, err := os.ReadFile(state + "/audit.log")
	if err != nil || !strings.Contains(string(audit), `"operation":"rename"`) || !strings.Contains(string(audit), `"outcome":"committed"`) {
		t.Errorf("audit log: %q, %v", audit, err)
	}
}

// previewRenameAda0 finds ada0 (:find) and previews renaming its email to
// email; it returns the preview's screen.
func (tm *term) previewRenameAda0(email string) string {
	tm.t.Helper()
	tm.keys(":")
	tm.waitText("the command line", "command (tab lists them)")
	tm.text("find ada0")
	tm.keys("Enter")
	tm.waitText("the search result", "search: ada0")
	tm.keys("e")
	tm.waitText("the rename form", "rename ACCT#00000000")
	tm.keys("C-u")
	tm.text(email)
	tm.keys("Enter")
	return tm.waitText("the preview", "put lock UNIQ#EMAIL#"+email+" (owner ACCT#00000000)")
}

// TestTUIReadOnlySaysWhy: under --read-only, e did nothing, silently; the
// status line says why.
func TestTUIReadOnlySaysWhy(t *testing.T) {
	ep, table := seededTable(t, "--accounts", "3")
	tm := startTUI(t, "--endpoint-url", ep, "--table", table, "--read-only")
	tm.start()
	tm.waitText("the first account", "└ UNIQ#HANDLE#ada0")
	tm.keys("e")
	tm.waitText("why e does nothing", "read-only, refusing to write: --read-only is set")
	if got := tm.quit(); got != "EXIT=0" {
		t.Fatalf("quit: %s", got)
	}
}

// seededTable makes a table on the emulator, seeded with seed's args, and
// marks the test parallel; it returns the endpoint and the table.
func seededTable(t *testing.T, args ...string) (ep, table string) {
	t.Helper()
	ep = dynamotest.Endpoint(t)
	t.Parallel()
	client, _ := dynamotest.Client(t)
	table = dynamotest.Name(t, "accounts")
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, table) })
	seed := append([]string{"seed", "--endpoint-url", ep, "--table", table}, args...)
	if r := locktable(t, map[string]string{"XDG_STATE_HOME": t.TempDir()}, seed...); r.code != 0 {
		t.Fatalf("seed: exit %d, stderr %q", r.code, r.stderr)
	}
	return ep, table
}

// TestTUIRace: R races ten signups for one value against dynoxide in an
// 80x24 terminal: every racer's row resolves, one commits, nine are
// cancelled by the lock's guard, and the verdict stays on screen; closing
// it shows the winner with its lock, ok, and the check finds nothing new.
func TestTUIRace(t *testing.T) {
	ep, table := seededTable(t, "--accounts", "3")
	state := t.TempDir()
	tm := startTUISized(t, 80, 24, "--endpoint-url", ep, "--table", table, "--audit-log", state+"/audit.log")
	tm.start()
	tm.waitText("the first account", "└ UNIQ#HANDLE#ada0")
	tm.waitText("the check", "no problems")
	tm.keys("R")
	tm.waitText("the race form", "race: new accounts claim the same values at once")
	tm.keys("C-u")
	tm.text("race@x.io")
	tm.keys("Enter")
	tm.waitText("the preview", "10 racers send this transaction at the same instant")
	tm.keys("y")
	screen := tm.waitText("the verdict", "1 of 10 racers committed: the guards held")
	if n := strings.Count(screen, "cancelled"); n != 9 {
		t.Errorf("want 9 cancelled racers on screen, got %d:\n%s", n, screen)
	}
	if !strings.Contains(screen, "slot 1: email race@x.io is taken by") { // the winner, cut at 80 columns, is in the verdict
		t.Errorf("a cancelled racer does not say its slot in words:\n%s", screen)
	}
	tm.keys("Enter")
	tm.waitFor("the winner with its lock", func(s string) bool {
		return regexp.MustCompile(`└ UNIQ#EMAIL#race@x\.io\s+owner ACCT#\S+\s+ok`).MatchString(s)
	})
	// The check ran again, and counts the winner's account and lock.
	tm.keys("3")
	tm.waitText("the check again, clean", "items checked, 4 accounts, 7 locks")
	if out := tm.quit(); !strings.Contains(out, "EXIT=0") {
		t.Errorf("exit: %q", out)
	}
	audit, err := os.ReadFile(state + "/audit.log")
	if err != nil || strings.Count(string(audit), `"outcome":"cancelled"`) != 9 || strings.Count(string(audit), `"outcome":"committed"`) != 1 {
		t.Errorf("the audit log does not hold 1 commit and 9 cancellations: %v\n%s", err, audit)
	}
}

// TestTUIReplayAMistake: on a loopback table, B opens the menu of the
// articles' mistakes; delete-leak replays a delete of an account alone on
// a fresh account, the detail shows the requests sent beside the guarded
// transaction, and the check that runs again finds its two orphan locks.
func TestTUIReplayAMistake(t *testing.T) {
	ep, table := seededTable(t, "--accounts", "3")
	state := t.TempDir()
	tm := startTUISized(t, 80, 24, "--endpoint-url", ep, "--table", table, "--audit-log", state+"/audit.log")
	tm.start()
	tm.waitText("the check", "no problems")
	tm.keys("B")
	tm.waitText("the menu", "replay a mistake on fresh accounts")
	tm.keys("j", "j", "j")
	tm.waitText("delete-leak chosen", "▸ delete-leak")
	tm.keys("Enter")
	screen := tm.waitText("the replay", "replayed delete-leak: it leaves orphan_lock")
	for _, want := range []string{"sent, outside any transaction", `"call": "DeleteItem"`} {
		if !strings.Contains(screen, want) {
			t.Errorf("the replay does not show %q:\n%s", want, screen)
		}
	}
	tm.waitText("the check again, with the orphan locks", "orphan 2")
	tm.keys("Escape")
	tm.waitText("the accounts view, the orphan locks on top", "orphan locks (2)")
	if out := tm.quit(); !strings.Contains(out, "EXIT=0") {
		t.Errorf("exit: %q", out)
	}
	audit, err := os.ReadFile(state + "/audit.log")
	if err != nil || !strings.Contains(string(audit), `"operation":"demo break delete-leak"`) {
		t.Errorf("the audit log does not record the replay: %v\n%s", err, audit)
	}
}
