package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/dynamo/dynamotest"
)

// Terminal sequences the UI writes, as bytes on the wire.
const (
	pushTitle  = "\x1b[22;0t"     // XTWINOPS: save the window title
	popTitle   = "\x1b[23;0t"     // XTWINOPS: restore it
	setTitle   = "\x1b]2;"        // OSC 2: set the title
	emptyTitle = "\x1b]2;\x07"    // what Bubble Tea writes on exit
	mouseOn    = "\x1b[?1002h"    // button-event tracking: the terminal no longer selects text
	mouseSGR   = "\x1b[?1006h"    // SGR mouse reports
	demoHeader = "locktable  │  " // the header, once the UI draws
)

// recorded runs the demo in tmux with args, every byte it writes to the
// terminal recorded (pipe-pane), and returns that stream once it quit.
func recorded(t *testing.T, args ...string) string {
	t.Helper()
	tm := startTUISized(t, 80, 24, append([]string{"--demo"}, args...)...)
	out := filepath.Join(t.TempDir(), "stream")
	tm.tmux("pipe-pane", "-o", "-t", tm.session, "cat >> "+shellQuote(out))
	tm.start()
	tm.waitText("the header", demoHeader)
	if got := tm.quit(); got != "EXIT=0" {
		t.Fatalf("after q: %q, want EXIT=0", got)
	}
	// pipe-pane's cat may lag the pane by a moment.
	deadline := time.Now().Add(tmuxWait)
	for {
		b, _ := os.ReadFile(out)
		if s := string(b); strings.Contains(s, popTitle) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTUIRestoresTheTitle: the title the terminal had is saved before the
// UI names the table in it and restored after the UI empties it on exit,
// rather than left empty.
func TestTUIRestoresTheTitle(t *testing.T) {
	s := recorded(t)
	push, set := strings.Index(s, pushTitle), strings.Index(s, setTitle+"locktable: ")
	if push < 0 || set < 0 || push > set {
		t.Fatalf("title saved at byte %d, set at %d: want it saved before it is set; stream %q", push, set, tail(s))
	}
	empty, pop := strings.LastIndex(s, emptyTitle), strings.LastIndex(s, popTitle)
	if pop < 0 || pop < empty {
		t.Fatalf("title emptied at byte %d, restored at %d: want it restored last; stream %q", empty, pop, tail(s))
	}
}

// TestTUIMouseOffByDefault: without mouse: in the config the UI never
// turns mouse reporting on, so the terminal's own selection works; with
// mouse: true it does.
func TestTUIMouseOffByDefault(t *testing.T) {
	if s := recorded(t); strings.Contains(s, mouseOn) || strings.Contains(s, mouseSGR) {
		t.Errorf("mouse reporting turned on without mouse: in the config; stream %q", tail(s))
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("mouse: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := recorded(t, "--config", cfg); !strings.Contains(s, mouseOn) {
		t.Errorf("mouse: true did not turn mouse reporting on; stream %q", tail(s))
	}
}

// tail is the end of a stream, for a failure's message.
func tail(s string) string { return s[max(len(s)-600, 0):] }

// secondTable seeds first+"-b" with 2 accounts on ep, deleted after the
// test, for a test that switches tables.
func secondTable(t *testing.T, ep, first string) string {
	t.Helper()
	client, _ := dynamotest.Client(t)
	second := first + "-b"
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, second) })
	if r := locktable(t, map[string]string{"XDG_STATE_HOME": t.TempDir()}, "seed", "--endpoint-url", ep, "--table", second, "--accounts", "2"); r.code != 0 {
		t.Fatalf("seed: exit %d, stderr %q", r.code, r.stderr)
	}
	return second
}

// TestTUISwitchTable: :table opens another table of the endpoint in the
// same terminal, completed with tab from the endpoint's tables, and the
// command line remembers what was entered before the switch.
func TestTUISwitchTable(t *testing.T) {
	ep, first := seededTable(t, "--accounts", "3")
	second := secondTable(t, ep, first)
	tm := startTUISized(t, 120, 30, "--endpoint-url", ep, "--table", first)
	tm.start()
	tm.waitText("the first table", "locktable  │  "+first+" @ ")
	tm.keys(":")
	tm.text("table " + first + "-")
	tm.keys("Tab")
	tm.waitText("the table completed", ":table "+second)
	tm.keys("Enter")
	tm.waitText("the second table", "locktable  │  "+second+" @ ")
	tm.waitText("its accounts", "2 accounts loaded")
	tm.keys(":", "Up")
	tm.waitText("the history carried over", ":table "+second)
	tm.keys("Escape")
	tm.waitText("the line closed", "2 accounts loaded")
	if got := tm.quit(); got != "EXIT=0" {
		t.Errorf("after q: %q, want EXIT=0", got)
	}
}

// TestTUITableTypoKeepsTheSession: :table with a typo quit the UI with
// exit 2, losing the writes log and undo, and even a valid :table opened
// the other table with an empty log. The typo is refused on the line, and
// the log of the session's writes lasts across tables.
func TestTUITableTypoKeepsTheSession(t *testing.T) {
	ep, first := seededTable(t, "--accounts", "3")
	second := secondTable(t, ep, first)
	tm := renamedAda0(t, ep, first)

	tm.keys(":")
	tm.text("table nope")
	tm.keys("Enter")
	tm.waitText("the typo refused", `no NAME "nope"`)
	tm.keys("Escape")
	tm.waitText("the first table still", "locktable  │  "+first+" @ ")

	tm.keys(":")
	tm.text("table " + second)
	tm.keys("Enter")
	tm.waitText("the second table", "locktable  │  "+second+" @ ")
	tm.waitText("its accounts", "2 accounts loaded")
	tm.wantRenameLoggedAndQuit()
}

// TestTUITableThatWillNotOpenKeepsTheUI: :table of a table the endpoint
// lists but locktable cannot open (keyed otherwise than the schema says)
// quit the UI for good, exit 2. The UI comes back on the table it left,
// saying why, the writes log with it.
func TestTUITableThatWillNotOpenKeepsTheUI(t *testing.T) {
	ep, first := seededTable(t, "--accounts", "3")
	client, _ := dynamotest.Client(t)
	other := first + "-id"
	_, err := client.CreateTable(context.Background(), &dynamodb.CreateTableInput{
		TableName: aws.String(other), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, other) })
	tm := renamedAda0(t, ep, first)
	tm.keys(":")
	tm.text("table " + other)
	tm.keys("Enter")
	tm.waitText("why it did not open", "not opened: ")
	tm.waitText("the first table again", "locktable  │  "+first+" @ ")
	tm.wantRenameLoggedAndQuit()
}

// renamedAda0 opens the UI on table (with an audit log, so that writes
// are allowed and logged) and commits a rename of ada0's email.
func renamedAda0(t *testing.T, ep, table string) *term {
	t.Helper()
	state := t.TempDir()
	tm := startTUISized(t, 120, 30, "--endpoint-url", ep, "--table", table, "--audit-log", state+"/audit.log")
	tm.start()
	tm.waitText("the first account", "└ UNIQ#HANDLE#ada0")
	tm.previewRenameAda0("ada@analytical.engine")
	tm.keys("Enter")
	tm.waitText("the result", "COMMITTED")
	tm.keys("Enter")
	tm.waitText("the new lock row", "└ UNIQ#EMAIL#ada@analytical.engine")
	return tm
}

// wantRenameLoggedAndQuit opens the writes log, wants renamedAda0's
// rename in it, and quits, wanting exit 0.
func (tm *term) wantRenameLoggedAndQuit() {
	tm.t.Helper()
	tm.keys("w")
	tm.waitFor("the rename in the writes log", func(s string) bool {
		return regexp.MustCompile(`#1 committed\s+rename\s+ACCT#00000000`).MatchString(s)
	})
	tm.keys("Escape")
	if got := tm.quit(); got != "EXIT=0" {
		tm.t.Errorf("after q: %q, want EXIT=0", got)
	}
}
