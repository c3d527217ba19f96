package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// hostileTexts are strings an attacker who can write to the table may
// store in keys, values and owners: terminal escape sequences of every
// kind (OSC title, hyperlink and clipboard, CSI cursor moves and erases,
// DCS, APC, 8-bit C1), bidi overrides and isolates, zero-width, tag and
// other invisible characters, separators, combining floods.
var hostileTexts = []struct{ name, text string }{
	{"osc0-title-bel", "\x1b]0;pwned-osc0\x07"},
	{"osc2-title-st", "\x1b]2;pwned-osc2\x1b\\"},
	{"osc1-icon", "\x1b]1;pwned-osc1\x07"},
	{"osc8-hyperlink", "\x1b]8;;https://pwned.example/\x1b\\link\x1b]8;;\x1b\\"},
	{"osc52-clipboard", "\x1b]52;c;cHduZWQ=\x07"},
	{"osc52-primary-st", "\x1b]52;p;cHduZWQ=\x1b\\"},
	{"osc4-palette", "\x1b]4;1;rgb:ff/00/00\x07"},
	{"osc11-background", "\x1b]11;rgb:ff/00/00\x07"},
	{"c1-osc-title", "\u009d0;pwned-c1osc\u009c"},
	{"csi-clear-screen", "\x1b[2J"},
	{"csi-home", "\x1b[H"},
	{"csi-cursor-position", "\x1b[12;40H"},
	{"csi-erase-line", "\x1b[2K"},
	{"csi-cursor-up", "\x1b[5A"},
	{"csi-sgr-conceal", "\x1b[8m"},
	{"csi-scroll-region", "\x1b[1;3r"},
	{"csi-alt-screen-off", "\x1b[?1049l"},
	{"csi-device-status", "\x1b[6n"},
	{"esc-save-restore", "\x1b7x\x1b8"},
	{"esc-reset", "\x1bc"},
	{"dcs-decrqss", "\x1bP$qm\x1b\\"},
	{"dcs-tmux-passthrough", "\x1bPtmux;\x1b\x1b]0;pwned-passthrough\x07\x1b\\"},
	{"apc", "\x1b_pwned-apc\x1b\\"},
	{"pm-sos", "\x1b^pm\x1b\\\x1bXsos\x1b\\"},
	{"c1-csi", "\u009b2J"},
	{"c1-dcs", "\u0090$qm\u009c"},
	{"c1-nel-ind", "a\u0085b\u0084"},
	{"c0-controls", "a\x07b\x08c\rd\ne\tf\x00g\x0eh"},
	{"del", "a\x7fb"},
	{"bidi-embeddings", "\u202aa\u202bb\u202c"},
	{"bidi-lro", "\u202dabc"},
	{"bidi-rlo", "\u202eKCAB"},
	{"bidi-isolates", "\u2066a\u2067b\u2068c\u2069"},
	{"bidi-marks", "\u200ea\u200fb\u061c"},
	{"zero-width-space", "a\u200bb"},
	{"zero-width-joiners", "a\u200cb\u200dc"},
	{"word-joiner", "a\u2060b"},
	{"bom", "\ufeffa"},
	{"tags", "a\U000E0001\U000E0041\U000E007F"},
	{"flag-tag-sequence", "\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F"},
	{"line-separator", "a\u2028b"},
	{"paragraph-separator", "a\u2029b"},
	{"soft-hyphen", "ad\u00ada"},
	{"deprecated-format", "\u206a\u206b\u206c\u206d\u206e\u206f"},
	{"invisible-operators", "a\u2061\u2062\u2063\u2064b"},
	{"mongolian-vowel-separator", "a\u180eb"},
	{"interlinear-annotation", "\ufff9a\ufffab\ufffb"},
	{"private-use", "\ue000\U000F0000"},
	{"unassigned", "\u0378\U0001FFFD"},
	{"noncharacters", "\ufdd0\uffff"},
	{"combining-flood", "e" + strings.Repeat("\u0301", 300)},
	{"zalgo", strings.Repeat("z"+strings.Repeat("\u0336\u0489\u035c", 10), 5)},
	{"wide", "日本語テキスト"},
}

// hostileOther are the payloads that are not strings, or too long for a
// key: each is an attribute of one account, under the constraint
// attribute (an invalid_value) and under an attribute of its own.
var hostileOther = []struct {
	name string
	v    model.Value
}{
	{"long-10k", model.S(strings.Repeat("long\u202e", 2048))},
	{"number-38-digits", model.N("-99999999999999999999999999999999999999")},
	{"binary-invalid-utf8", model.Value{Kind: model.KindB, B: []byte("\x1b]0;pwned-binary\x07\x9b2J\xff\xfe")}},
	{"binary-set", model.Value{Kind: model.KindBS, Binaries: [][]byte{{0x9b, '2', 'J'}, {0xc2, 0x9b}}}},
	{"string-set", model.Value{Kind: model.KindSS, Strings: []string{"\x1b]0;pwned-ss\x07", "\u202eset"}}},
	{"list", model.Value{Kind: model.KindL, List: []model.Value{model.S("\x1b[2J"), model.N("1e125")}}},
	{"deep-map-32-levels", deepMap(31)}, // DynamoDB's limit: 31 maps and the string

}

// deepMap nests n maps whose keys are hostile.
func deepMap(n int) model.Value {
	v := model.S("\x1b]0;pwned-deep\x07")
	for i := range n {
		v = model.Value{Kind: model.KindM, Map: map[string]model.Value{fmt.Sprintf("\u202ek%d\x1b[H", i): v}}
	}
	return v
}

// hostileAttrName is an attribute name with a title sequence: names reach
// the detail view too.
const hostileAttrName = "\x1b]0;pwned-attrname\x07"

// hostileTable writes one account per hostile text, keyed and valued by
// it: account hNN (its key and username hold the text, its email is plain
// so that a search can find it), the email lock, a username lock owned by
// someone else (a foreign_lock, even NN) or none (a missing_lock, odd NN),
// and an orphan lock whose value and owner hold the text; two accounts
// that share the first text as username. Then one account per other
// payload.
func hostileTable(t *testing.T) (table string) {
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	table = store.Schema.Table
	var items []model.Item
	for i, h := range hostileTexts {
		id := fmt.Sprintf("ACCT#h%02d-%s", i, h.text)
		email := fmt.Sprintf("h%02d@x.io", i)
		user := fmt.Sprintf("u%02d-%s", i, h.text)
		acct := dynamotest.Account(id, email, user)
		acct["bio"] = model.S(h.text)
		items = append(items, acct, dynamotest.Lock("UNIQ#EMAIL#"+email, id),
			dynamotest.Lock(fmt.Sprintf("UNIQ#HANDLE#o%02d-%s", i, h.text), "ACCT#old-"+h.text))
		if i%2 == 0 {
			items = append(items, dynamotest.Lock("UNIQ#HANDLE#"+user, "ACCT#gone-"+h.text))
		}
	}
	// Two accounts share a hostile username: a duplicate_value.
	dup := "d-" + hostileTexts[0].text
	items = append(items, dynamotest.Account("ACCT#d00", "d00@x.io", dup), dynamotest.Lock("UNIQ#EMAIL#d00@x.io", "ACCT#d00"),
		dynamotest.Account("ACCT#d01", "d01@x.io", dup), dynamotest.Lock("UNIQ#EMAIL#d01@x.io", "ACCT#d01"),
		dynamotest.Lock("UNIQ#HANDLE#"+dup, "ACCT#d00"))
	for i, h := range hostileOther {
		email := fmt.Sprintf("x%02d@x.io", i)
		id := fmt.Sprintf("ACCT#x%02d-%s", i, h.name)
		acct := dynamotest.Account(id, email, "")
		acct["username"], acct["other"], acct[hostileAttrName] = h.v, h.v, model.S("x")
		items = append(items, acct, dynamotest.Lock("UNIQ#EMAIL#"+email, id))
	}
	dynamotest.Put(t, client, table, items...)
	return table
}

// violations counts what a hostile payload got through, each reported.
type violations struct {
	t *testing.T
	n int
}

func (v *violations) add(format string, args ...any) {
	v.t.Helper()
	v.n++
	if v.n <= 40 {
		v.t.Errorf(format, args...)
	}
}

// ownOSC are the OSC sequences locktable itself writes: its window title
// (empty at exit) and the query for the terminal's background colour.
var ownOSC = regexp.MustCompile(`^(?:2;(?:locktable: [A-Za-z0-9_.-]+)?|11;\?)$`)

// checkStream reads the raw bytes a program wrote to the terminal and
// reports every sequence or character that is not locktable's own: OSC
// other than ownOSC, DCS, APC, PM, SOS, ESC c, 8-bit C1 (raw or as
// U+0080..U+009F), C0 controls other than the ones a renderer moves
// with, anything model.Hidden reports, and a run of more than
// model.MaxCombiningMarks combining marks.
func checkStream(v *violations, what string, raw []byte) {
	v.t.Helper()
	show := func(i int) string { return fmt.Sprintf("%q", raw[max(0, i-40):min(len(raw), i+80)]) }
	marks := 0
	for i := 0; i < len(raw); {
		b := raw[i]
		if b == 0x1b && i+1 < len(raw) {
			switch c := raw[i+1]; c {
			case '[': // CSI: parameters, intermediates, one final byte
				j := i + 2
				for j < len(raw) && raw[j] >= 0x20 && raw[j] <= 0x3f {
					j++
				}
				if j < len(raw) && (raw[j] < 0x40 || raw[j] > 0x7e) {
					v.add("%s: malformed CSI at byte %d: %s", what, i, show(i))
				}
				i = j + 1
				continue
			case ']':
				end, body := oscEnd(raw, i+2)
				if !ownOSC.Match(body) {
					v.add("%s: OSC %q at byte %d is not locktable's own: %s", what, body, i, show(i))
				}
				i = end
				continue
			case 'P', '_', '^', 'X', 'c':
				v.add("%s: ESC %c at byte %d: %s", what, c, i, show(i))
			}
			i += 2
			continue
		}
		r, size := utf8.DecodeRune(raw[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			v.add("%s: byte %#x is not UTF-8 (8-bit C1?) at %d: %s", what, b, i, show(i))
		case r == '\r' || r == '\n' || r == '\b' || r == '\t':
		case model.Hidden(r):
			v.add("%s: %U at byte %d: %s", what, r, i, show(i))
		}
		if !unicode.IsMark(r) {
			marks = 0
		} else if marks++; marks == model.MaxCombiningMarks+1 {
			v.add("%s: more than %d combining marks in a row at byte %d", what, model.MaxCombiningMarks, i)
		}
		i += size
	}
}

// oscEnd returns where the OSC whose body starts at i ends (after BEL or
// ST), and its body.
func oscEnd(raw []byte, i int) (int, []byte) {
	for j := i; j < len(raw); j++ {
		switch {
		case raw[j] == 0x07:
			return j + 1, raw[i:j]
		case raw[j] == 0x1b && j+1 < len(raw) && raw[j+1] == '\\':
			return j + 2, raw[i:j]
		}
	}
	return len(raw), raw[i:]
}

// checkPrintedText reports what a command printed that a terminal would
// act on: an escape character or anything checkStream rejects.
func checkPrintedText(v *violations, what string, out string) {
	v.t.Helper()
	if i := strings.IndexByte(out, 0x1b); i >= 0 {
		v.add("%s holds ESC at byte %d: %q", what, i, out[max(0, i-40):min(len(out), i+40)])
	}
	checkStream(v, what, []byte(out))
}

// statusWords end every list row, in a column of their own.
var statusWords = regexp.MustCompile(`  (ok|missing|orphan|foreign|duplicate|invalid|none|problem)\s*$`)

// viewTabs is the second header line: the views by key and name, the
// names in four letters a space apart where the full ones have no room,
// the inactive ones by their key alone when the line is narrower still.
var viewTabs = regexp.MustCompile(`^(1( Accounts)?  2( Locks)?  3( Problems)?  |1 (Accounts|Acct) 2 (Locks|Lock) 3 (Problems|Prob) )`)

// checkLayout reports a screen that is not locktable's layout at w x h:
// h lines (tmux wrapped none), none wider than w, the header on top, the
// help line at the bottom, and every status word of a list in one column.
//
// tmux takes a frame in the chunks the pty hands it, so a capture can
// catch one half drawn: the top rows new, a row cut where the chunk
// ended, the rest the frame before (CI once saw a row that was half one
// page, half the page before). A frame is only judged once drawn, so the
// screen is read until it is right, and a layout is reported only when it
// is still wrong after layoutSettle: a real misalignment stays on screen,
// a frame caught being drawn does not.
func checkLayout(v *violations, tm *term, what string, w, h int) string {
	v.t.Helper()
	read := func() (string, string) {
		return tm.capture(), tm.tmux("capture-pane", "-p", "-J", "-t", tm.session)
	}
	screen, wrong := settledLayout(read, w, h, layoutSettle)
	if wrong != "" {
		v.add("%s: %s:\n%s", what, wrong, screen)
	}
	return screen
}

// settledLayout reads the pane (the capture, and the capture with wrapped
// lines joined) until its layout is right or settle has passed, and
// returns the last screen and what is wrong with it ("" when nothing).
func settledLayout(read func() (screen, joined string), w, h int, settle time.Duration) (string, string) {
	deadline := time.Now().Add(settle)
	for {
		screen, joined := read()
		screen, joined = strings.TrimSuffix(screen, "\n"), strings.TrimSuffix(joined, "\n")
		wrong := layoutWrong(screen, joined, w, h)
		if wrong == "" || time.Now().After(deadline) {
			return screen, wrong
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// layoutSettle is how long a screen may look wrong before checkLayout
// calls it wrong: far longer than tmux takes to read one frame, even with
// the suite's many terminals at once.
const layoutSettle = 3 * time.Second

// layoutWrong says what is wrong with screen (joined is the same capture
// with wrapped lines joined) as locktable's layout at w x h, or "".
func layoutWrong(screen, joined string, w, h int) string {
	lines := strings.Split(screen, "\n")
	if n, nj := len(lines), len(strings.Split(joined, "\n")); n != h || nj != h {
		return fmt.Sprintf("%d lines, %d once wrapped lines are joined; want %d", n, nj, h)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > w {
			return fmt.Sprintf("line %d is %d cells wide", i, ansi.StringWidth(l))
		}
	}
	if !strings.HasPrefix(lines[0], "locktable  │  ") || !viewTabs.MatchString(lines[1]) {
		return "the header is not on the first two lines"
	}
	if !strings.Contains(lines[h-1], "•") {
		return "the help line is not at the bottom"
	}
	col := -1
	for _, l := range lines[2 : h-2] {
		loc := statusWords.FindStringSubmatchIndex(l)
		if loc == nil {
			continue
		}
		c := ansi.StringWidth(l[:loc[2]])
		if col < 0 {
			col = c
		} else if c != col {
			return fmt.Sprintf("a status word in column %d, another in %d", c, col)
		}
	}
	return ""
}

// TestTUIHostile stores every hostile payload in keys, values and owners
// of a table and drives the real binary through every view in an 80x24
// tmux pane, recording the raw bytes it writes: no payload's escape
// sequence or invisible character reaches the terminal, the pane title
// and the clipboard stay untouched, the layout stays aligned, and every
// payload is shown, escaped. check (human and --json), repair --dry-run,
// repair --json and an error message are held to the same. It prints
// RELIABILITY payloads_tried=N violations=M, and appends the figures to
// $LOCKTABLE_RELIABILITY_OUT. LOCKTABLE_RELIABILITY_FULL=1 opens the
// detail and the rename preview of every account, not a sample.
func TestTUIHostile(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	full := os.Getenv("LOCKTABLE_RELIABILITY_FULL") == "1"
	table := hostileTable(t)
	start := time.Now()
	var (
		mu      sync.Mutex
		found   int      // violations of every part
		screens []string // of every part
	)
	v := &violations{t: t}
	defer func() {
		n := found + v.n
		if t.Failed() && n == 0 {
			n = 1 // stopped by a fatal error: count it
		}
		tried := len(hostileTexts) + len(hostileOther)
		t.Logf("RELIABILITY payloads_tried=%d violations=%d (%v)", tried, n, time.Since(start).Round(time.Millisecond))
		if out := os.Getenv("LOCKTABLE_RELIABILITY_OUT"); out != "" {
			f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "payloads_tried %d\nhostile_violations %d\n", tried, n)
			f.Close()
		}
	}()

	// The commands and each walk through the views (a terminal of its own
	// each) at once: they only read the table, and each waits mostly on
	// its terminal.
	t.Run("read", func(t *testing.T) {
		part := func(name string, f func(v *violations) []string) {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				v := &violations{t: t}
				shown := f(v)
				mu.Lock()
				defer mu.Unlock()
				found += v.n
				if t.Failed() && v.n == 0 {
					found++ // stopped by a fatal error: count it
				}
				screens = append(screens, shown...)
			})
		}
		part("commands", func(v *violations) []string { hostileCommands(v, ep, table); return nil })
		for _, walk := range hostileWalks(full) {
			part(walk.name, func(v *violations) []string { return hostileScreens(v, ep, table, walk.drive) })
		}
	})
	if t.Failed() {
		return
	}
	// Every payload was on screen, as its escaped form.
	all := strings.Join(screens, "\n")
	for i, h := range hostileTexts {
		shown := fmt.Sprintf("ACCT#h%02d-", i) + prefixRunes(model.Printable(h.text), 8)
		if !strings.Contains(all, shown) {
			v.add("payload %s never shown as %q", h.name, shown)
		}
	}
	for i, h := range hostileOther {
		if !strings.Contains(all, fmt.Sprintf("ACCT#x%02d-%s", i, h.name)) {
			v.add("payload %s: its account was never shown", h.name)
		}
	}
	hostileRepair(v, ep, table)
}

func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// hostileCommands runs check, check --json, repair --dry-run and a
// command that fails naming a hostile key, and checks what they print.
func hostileCommands(v *violations, ep, table string) {
	t := v.t
	t.Helper()
	args := []string{"--endpoint-url", ep, "--table", table}
	human := locktable(t, nil, append([]string{"check"}, args...)...)
	js := locktable(t, nil, append([]string{"check", "--json"}, args...)...)
	for _, r := range []struct {
		what string
		r    execResult
	}{{"check", human}, {"check --json", js}} {
		if r.r.code != 1 || r.r.stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q; want 1 and nothing", r.what, r.r.code, r.r.stderr)
		}
		checkPrintedText(v, r.what, r.r.stdout)
	}
	rep := oneReport(t, js.stdout)
	values := map[string]bool{}
	for _, p := range rep.Problems {
		values[p.Kind+" "+p.Value] = true
	}
	for i, h := range hostileTexts {
		kind := "foreign_lock"
		if i%2 == 1 {
			kind = "missing_lock"
		}
		user := fmt.Sprintf("u%02d-%s", i, h.text)
		if !values[kind+" "+user] || !values[fmt.Sprintf("orphan_lock o%02d-%s", i, h.text)] {
			v.add("check --json: payload %s: no %s and orphan_lock of the value as stored", h.name, kind)
		}
		if shown := model.Printable(user); !strings.Contains(human.stdout, shown) {
			v.add("check: payload %s not shown as %q", h.name, shown)
		}
	}
	if dup := "d-" + hostileTexts[0].text; !values["duplicate_value "+dup] || !strings.Contains(human.stdout, "duplicate_value  username "+model.Printable(dup)) {
		v.add("check: no duplicate_value of %q, as stored in JSON and escaped in the report", dup)
	}
	if n := strings.Count(js.stdout, `"kind":"invalid_value"`); n != len(hostileOther) {
		v.add("check --json: %d invalid_value problems, want one per other payload (%d)", n, len(hostileOther))
	}

	dry := locktable(t, nil, append([]string{"repair", "--dry-run"}, args...)...)
	if dry.code != 0 || strings.Contains("\n"+dry.stderr, "\nlocktable: ") {
		t.Fatalf("repair --dry-run: exit %d, stderr %q", dry.code, dry.stderr)
	}
	checkPrintedText(v, "repair --dry-run", dry.stdout)
	checkPrintedText(v, "repair --dry-run in words", dry.stderr)
	docs := strings.Split(strings.TrimSuffix(dry.stdout, "\n"), "\n")
	for i, doc := range docs {
		if _, err := dynamo.ParseCLIJSON([]byte(doc)); err != nil {
			v.add("repair --dry-run: line %d is not a transact-write-items document: %v", i, err)
		}
	}
	if len(docs) < len(hostileTexts) {
		v.add("repair --dry-run: %d transactions for %d hostile orphans", len(docs), len(hostileTexts))
	}

	for _, i := range []int{0, 20, 38} {
		h := hostileTexts[i]
		r := locktable(t, nil, append([]string{"delete", "ACCT#nobody-" + h.text, "--dry-run"}, args...)...)
		want := `no account "ACCT#nobody-` + strings.ReplaceAll(model.Printable(h.text), `"`, `\"`) + `"`
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			v.add("delete of a missing hostile account (%s): exit %d, stderr %q, want it to name %s", h.name, r.code, r.stderr, want)
		}
		checkPrintedText(v, "error message", r.stderr)
	}
}

// hostileRepair repairs every problem of the table with --json: what it
// prints and the audit log it keeps hold no payload raw, and the keys it
// writes are the keys as stored (the escapes are only shown), so that the
// check afterwards finds nothing but what only a person may repair.
func hostileRepair(v *violations, ep, table string) {
	t := v.t
	t.Helper()
	audit := filepath.Join(t.TempDir(), "audit.log")
	args := []string{"--endpoint-url", ep, "--table", table}
	r := locktable(t, nil, append([]string{"repair", "--yes", "--json", "--audit-log", audit}, args...)...)
	if r.code != 0 {
		t.Fatalf("repair --yes --json: exit %d, stderr %q", r.code, r.stderr)
	}
	checkPrintedText(v, "repair --json", r.stdout+r.stderr)
	log, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	checkPrintedText(v, "the audit log", string(log))
	for what, out := range map[string]string{"repair --json": r.stdout, "the audit log": string(log)} {
		for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if !json.Valid([]byte(line)) {
				v.add("%s: line %d is not JSON: %q", what, i, line)
			}
		}
	}
	after := locktable(t, nil, append([]string{"check", "--json"}, args...)...)
	for _, p := range oneReport(t, after.stdout).Problems {
		if p.Kind != "invalid_value" && p.Kind != "duplicate_value" {
			v.add("after the repair, check still reports %s %q: a key was written other than as stored", p.Kind, p.Value)
		}
	}
}

// hostileWalk is one walk through the views: drive moves through them,
// looking at each screen it reaches (look checks the layout and the pane
// title, and keeps the screen).
type hostileWalk struct {
	name  string
	drive func(v *violations, tm *term, look func(what string) string)
}

// hostileWalks are the walks through every view: the accounts row by row
// with a sample of details (all of them with full), the rename form and
// preview of a sample of accounts (all with full), and every page of the
// locks and the problems.
func hostileWalks(full bool) []hostileWalk {
	return []hostileWalk{
		{"accounts", func(v *violations, tm *term, look func(string) string) { walkAccounts(v, tm, look, full) }},
		{"renames", func(_ *violations, tm *term, look func(string) string) { walkRenames(tm, look, full) }},
		{"locks and problems", func(_ *violations, tm *term, look func(string) string) { walkLocksAndProblems(tm, look) }},
		{"pastes", func(v *violations, tm *term, look func(string) string) { walkPastes(v, tm, look, full) }},
	}
}

// hostileScreens drives the binary in an 80x24 pane through a walk,
// checks each screen's layout, the pane title and the clipboard, then the
// raw bytes it wrote, and returns the screens.
func hostileScreens(v *violations, ep, table string, drive func(v *violations, tm *term, look func(what string) string)) []string {
	t := v.t
	t.Helper()
	const w, h = 80, 24
	tm := startTUISized(t, w, h, "--endpoint-url", ep, "--table", table)
	raw := filepath.Join(t.TempDir(), "raw")
	tm.tmux("set-option", "-t", tm.session, "set-clipboard", "on")
	tm.tmux("select-pane", "-t", tm.session, "-T", "original")
	tm.tmux("pipe-pane", "-o", "-t", tm.session, "cat >> "+shellQuote(raw))
	tm.start()

	var screens []string
	look := func(what string) string {
		t.Helper()
		s := checkLayout(v, tm, what, w, h)
		screens = append(screens, s)
		title := strings.TrimSpace(tm.tmux("display", "-p", "-t", tm.session, "#{pane_title}"))
		if title != "original" && title != "locktable: "+table {
			v.add("%s: the pane title is %q", what, title)
		}
		return s
	}
	tm.waitText("the check", "orph") // "orphan 53", or "orph 53" where the header is narrow
	look("accounts")
	drive(v, tm, look)

	if bufs := strings.TrimSpace(tm.tmux("list-buffers")); bufs != "" {
		v.add("the clipboard (tmux buffers) was set: %q", bufs)
	}
	if got := tm.quit(); got != "EXIT=0" {
		t.Errorf("after q: %q, want EXIT=0", got)
	}
	// The pane is gone; its pipe may still be writing the last bytes.
	var b []byte
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		next, err := os.ReadFile(raw)
		if err == nil && len(next) > 0 && len(next) == len(b) {
			break
		}
		b = next
	}
	if len(b) == 0 {
		t.Fatal("no raw output recorded")
	}
	checkStream(v, "the terminal stream", b)
	if !bytes.Contains(b, []byte("\x1b]2;locktable: "+table)) && !bytes.Contains(b, []byte("\x1b]0;locktable: "+table)) {
		v.add("the stream does not set locktable's own title: the recording misses what the program writes")
	}
	return screens
}

// walkAccounts selects every row of the accounts in turn, and opens the
// detail of a sample of accounts and locks (all with full).
func walkAccounts(v *violations, tm *term, look func(string) string, full bool) {
	tm.t.Helper()
	detailed := 0
	for range 400 {
		screen, moved := pressAndWait(tm, "Down", func(before, now string) bool { return selectedLine(now) != selectedLine(before) })
		if !moved {
			break // the end of the list
		}
		sel := selectedLine(screen)
		if !strings.Contains(screen, "▸") {
			v.add("no row is selected:\n%s", screen)
		}
		if !full && detailed%7 != 0 && !strings.HasPrefix(sel, "▸ ACCT#x") {
			detailed++
			continue
		}
		detailed++
		if strings.Contains(sel, "└ UNIQ#") || strings.Contains(sel, "ACCT#") {
			look("the accounts, at " + sel)
			tm.keys("Enter")
			tm.waitText("the detail", "esc: back")
			look("the detail of " + sel)
			tm.keys("Escape")
			tm.waitFor("the accounts again", func(s string) bool { return selectedLine(s) == sel })
		}
	}
	look("the end of the accounts")
}

// walkRenames opens the rename form and preview of a sample of hostile
// accounts (all with full).
func walkRenames(tm *term, look func(string) string, full bool) {
	tm.t.Helper()
	// The rename preview of hostile accounts: a search for the plain email
	// pins the account, e opens the form, a new email the preview.
	renames := []int{0, 9, 21, 30, 38, 50}
	if full {
		renames = renames[:0]
		for i := range hostileTexts {
			renames = append(renames, i)
		}
	}
	for _, i := range renames {
		email := fmt.Sprintf("h%02d@x.io", i)
		tm.keys(":")
		tm.waitText("the command line", "command (tab lists them)")
		tm.text("find " + email)
		tm.keys("Enter")
		tm.waitText("the search result", "search: "+email)
		look("the search for " + email)
		tm.keys("e")
		tm.waitText("the rename form", "rename ACCT#")
		look("the rename form of " + hostileTexts[i].name)
		tm.keys("C-u")
		tm.text(fmt.Sprintf("h%02dz@x.io", i))
		tm.keys("Enter")
		tm.waitText("the preview", "enter/y send")
		look("the rename preview of " + hostileTexts[i].name)
		tm.keys("Escape")
		tm.waitText("the form again", "esc cancel")
		tm.keys("Escape")
		tm.waitFor("the dialog closed", func(s string) bool { return !strings.Contains(s, "rename ACCT#") })
	}

}

// walkPastes pastes a sample of the payloads (all with full) into every
// field, as a terminal's bracketed paste: the filter and the command line
// take one only where it is plain text and refuse the rest, saying so;
// the rename and signup forms take it escaped, as they show a value, and
// refuse one of more than one line; the typed confirmation of a delete
// takes it as text. Nothing it holds acts as a key: the writes log stays
// empty.
func walkPastes(v *violations, tm *term, look func(string) string, full bool) {
	tm.t.Helper()
	sample := []int{0, 9, 21, 27, 31, 38, 50, len(hostileTexts) - 1}
	if full {
		sample = sample[:0]
		for i := range hostileTexts {
			sample = append(sample, i)
		}
	}
	// plain says a payload is shown as it is; kept, that it reaches the
	// program as it is (the terminal's reader drops escape sequences and
	// invalid UTF-8 from a paste).
	plain := func(s string) bool { return model.Printable(s) == s && !strings.ContainsAny(s, "\r\n") }
	kept := func(s string) bool {
		return utf8.ValidString(s) && !strings.ContainsAny(s, "\x1b\u0090\u0098\u009b\u009c\u009d\u009e\u009f")
	}
	// line is the screen's line that starts with prefix, or "".
	line := func(screen, prefix string) string {
		for _, l := range strings.Split(screen, "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		return ""
	}
	// formPaste pastes text into the write form's field label, which has
	// the cursor and is empty: a paste of lines is refused; one the
	// terminal passes whole is shown escaped, its end where the cursor is;
	// any other is answered, taken or refused.
	formPaste := func(name, text, label, form string) {
		field := "▸ " + label
		tm.paste(text)
		switch {
		case strings.ContainsAny(text, "\r\n"):
			tm.waitText("the paste of "+name+" refused by "+form, "not pasted: the text is")
		case kept(text):
			want := suffixRunes(model.EscapeText(text), 8)
			tm.waitFor("the paste of "+name+" in "+form, func(s string) bool { return strings.Contains(line(s, field), want) })
		default:
			tm.waitFor("the paste of "+name+" answered", func(s string) bool {
				return strings.Contains(s, "not pasted") || strings.TrimSpace(strings.TrimPrefix(line(s, field), field)) != ""
			})
		}
		look("the paste of " + name + " into " + label + " of " + form)
	}
	// closeDialog closes the dialog that shows mark.
	closeDialog := func(mark string) {
		tm.keys("Escape")
		tm.waitFor("the dialog closed", func(s string) bool { return !strings.Contains(s, mark) })
	}
	for _, i := range sample {
		h := hostileTexts[i]
		for _, open := range []string{"/", ":"} {
			tm.keys(open)
			tm.waitFor("the field "+open, func(s string) bool { return line(s, open) != "" })
			before := line(tm.capture(), open)
			tm.paste(h.text)
			tm.waitFor("the paste of "+h.name+" into "+open, func(s string) bool { return line(s, open) != before })
			screen := look("the paste of " + h.name + " into " + open)
			switch l := line(screen, open); {
			case plain(h.text) && !strings.Contains(l, suffixRunes(h.text, 4)):
				v.add("%s pasted into %s is not in the field:\n%s", h.name, open, screen)
			case !plain(h.text) && kept(h.text) && !strings.Contains(l, "not pasted"):
				// (What the terminal's reader cut from a paste arrives as
				// what is left, which may be plain: that is taken.)
				v.add("%s pasted into %s was not refused:\n%s", h.name, open, screen)
			}
			tm.keys("Escape")
			tm.waitFor("the field closed", func(s string) bool { return line(s, open) == "" })
		}
		tm.keys(":")
		tm.waitText("the command line", "command (tab lists them)")
		tm.text(fmt.Sprintf("find h%02d@x.io", i))
		tm.keys("Enter")
		tm.waitText("the search result", fmt.Sprintf("search: h%02d@x.io", i))
		tm.keys("e")
		tm.waitText("the rename form", "rename ACCT#")
		tm.keys("C-u")
		formPaste(h.name, h.text, "email", "the rename form")
		closeDialog("rename ACCT#")

		// The typed confirmation of a delete takes a paste as text: it
		// never sends, whatever the text holds.
		tm.keys("d")
		// (A long key's question wraps: "to" and "send:" may part.)
		before := tm.waitText("the typed confirmation", "send:")
		tm.paste(h.text)
		tm.waitFor("the paste of "+h.name+" into the typed confirmation", func(s string) bool { return s != before })
		screen := look("the paste of " + h.name + " into the typed confirmation")
		if strings.Contains(screen, "COMMITTED") || !strings.Contains(screen, "send:") {
			v.add("%s pasted into the typed confirmation acted:\n%s", h.name, screen)
		}
		closeDialog("send:")

		// The signup form: a paste into each of its fields.
		tm.keys("a")
		tm.waitText("the signup form", "signup with its locks")
		for _, label := range []string{"account", "email", "username"} {
			tm.keys("C-u")
			formPaste(h.name, h.text, label, "the signup form")
			tm.keys("Tab")
			tm.waitFor("the next field", func(s string) bool { return line(s, "▸ "+label) == "" })
		}
		closeDialog("signup with its locks")
	}
	// Nothing pasted acted as a key that sends.
	tm.keys("w")
	tm.waitText("the writes log", "no write yet in this session")
	look("the writes log after the pastes")
	tm.keys("Escape")
	tm.waitFor("the writes log closed", func(s string) bool { return !strings.Contains(s, "no write yet in this session") })
}

// suffixRunes is the last n runes of s.
func suffixRunes(s string, n int) string {
	r := []rune(s)
	return string(r[max(len(r)-n, 0):])
}

// walkLocksAndProblems looks at every page of the locks and the problems.
func walkLocksAndProblems(tm *term, look func(string) string) {
	tm.t.Helper()
	// Locks and problems: every page.
	for _, view := range []struct{ key, name, shows string }{{"2", "locks", "locks loaded"}, {"3", "problems", "missing_lock ("}} {
		tm.keys(view.key)
		tm.waitText("the "+view.name+" view", view.shows)
		for page := 0; page < 60; page++ {
			look(fmt.Sprintf("the %s, page %d", view.name, page))
			if _, moved := pressAndWait(tm, "PageDown", func(before, now string) bool { return now != before }); !moved {
				break
			}
		}
	}
}

// pressAndWait sends key and waits up to 3 s (the suite runs many
// terminals at once) until changed says the screen changed; it returns the
// screen and whether it did.
func pressAndWait(tm *term, key string, changed func(before, now string) bool) (string, bool) {
	before := tm.capture()
	tm.keys(key)
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		if now := tm.capture(); changed(before, now) {
			return now, true
		}
	}
	return before, false
}

// selectedLine returns the screen's selected row, or "".
func selectedLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "▸ ") {
			return strings.TrimRight(l, " ")
		}
	}
	return ""
}
