package rows_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

func renderer() (*rows.Renderer, *model.Schema) {
	sc := model.DefaultSchema(model.LayoutSingle)
	st := styles.New(true)
	return &rows.Renderer{Schema: &sc, Styles: &st}, &sc
}

// cols lays out a row by itself at width 100 the way the renderer must:
// marker, key, detail (each as wide as it is: they fit), status (10), two
// spaces between each, padded to the width.
func cols(marker, key, detail, status string) string {
	return fmt.Sprintf("%-100s", fmt.Sprintf("%s%s  %s  %-10s", marker, key, detail, status))
}

// acctItem is a layout-1 account item.
var acctItem = dynamotest.Account

func lockItem(pk string, owner model.Value) model.Item {
	it := model.Item{"PK": model.S(pk), "SK": model.S("LOCK")}
	if owner.Kind != model.KindNULL {
		it["owner"] = owner
	}
	return it
}

// view is an account whose locks have the given statuses (email, username).
func view(it model.Item, locks ...model.LockView) *model.AccountView {
	for i := range locks {
		locks[i].Constraint = i
	}
	return &model.AccountView{ID: it["PK"].S, Item: it, Locks: locks}
}

func TestLockRowSaysStatusInWords(t *testing.T) {
	r, _ := renderer()
	a1 := acctItem("ACCT#a1", "ada@x.io", "ada")
	num := acctItem("ACCT#f6", "", "frank")
	num["email"] = model.N("5")
	tests := []struct {
		name string
		a    *model.AccountView
		ci   int
		want string
	}{
		{"ok with owner", view(a1,
			model.LockView{Value: "ada@x.io", Item: lockItem("UNIQ#EMAIL#ada@x.io", model.S("ACCT#a1")), Owner: "ACCT#a1", Status: model.LockOK},
			model.LockView{Status: model.LockNone}), 0,
			cols("  ", "  └ UNIQ#EMAIL#ada@x.io", "owner ACCT#a1", "ok")},
		{"ok without owner", view(a1,
			model.LockView{Status: model.LockNone},
			model.LockView{Value: "ada", Item: lockItem("UNIQ#HANDLE#ada", model.Null()), Status: model.LockOK}), 1,
			cols("  ", "  └ UNIQ#HANDLE#ada", "no owner", "ok")},
		{"missing", view(a1,
			model.LockView{Value: "ada@x.io", Status: model.LockMissing}), 0,
			cols("  ", "  └ UNIQ#EMAIL#ada@x.io", "expected, not found", "missing")},
		{"foreign", view(a1,
			model.LockView{Value: "ada@x.io", Item: lockItem("UNIQ#EMAIL#ada@x.io", model.S("ACCT#z9")), Owner: "ACCT#z9", Status: model.LockForeign}), 0,
			cols("  ", "  └ UNIQ#EMAIL#ada@x.io", "owner ACCT#z9 (does not hold email)", "foreign")},
		{"duplicate", view(a1,
			model.LockView{Value: "ada@x.io", Item: lockItem("UNIQ#EMAIL#ada@x.io", model.S("ACCT#d4")), Owner: "ACCT#d4", Status: model.LockDuplicate}), 0,
			cols("  ", "  └ UNIQ#EMAIL#ada@x.io", "owner ACCT#d4", "duplicate")},
		{"invalid value", view(num,
			model.LockView{Status: model.LockInvalid}), 0,
			cols("  ", "  └ (email)", `email is {"N":"5"}: cannot be locked`, "invalid")},
		{"invalid owner", view(a1,
			model.LockView{Value: "ada@x.io", Item: lockItem("UNIQ#EMAIL#ada@x.io", model.N("7")), Status: model.LockInvalid}), 0,
			cols("  ", "  └ UNIQ#EMAIL#ada@x.io", `owner is {"N":"7"}, not a string`, "invalid")},
		{"no value", view(acctItem("ACCT#g7", "g@x.io", ""),
			model.LockView{Status: model.LockOK}, model.LockView{Status: model.LockNone}), 1,
			cols("  ", "  └ (username)", "no value: no lock expected", "none")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ansi.Strip(r.Lock(tt.a, tt.ci, 100, false))
			if got != tt.want {
				t.Errorf("lock row\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestAccountRowStatus(t *testing.T) {
	r, _ := renderer()
	it := acctItem("ACCT#a1", "ada@x.io", "")
	tests := []struct {
		name   string
		status model.LockStatus
		want   string
	}{
		{"healthy", model.LockOK, ""},
		{"duplicate", model.LockDuplicate, "duplicate"},
		{"other problem", model.LockMissing, "problem"},
		{"no value", model.LockNone, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := view(it, model.LockView{Value: "ada@x.io", Status: tt.status}, model.LockView{Status: model.LockNone})
			got := ansi.Strip(r.Account(a, 100, false))
			want := cols("  ", "ACCT#a1", "email=ada@x.io  username=-", tt.want)
			if got != want {
				t.Errorf("account row\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestOrphanAndProblemRows(t *testing.T) {
	r, sc := renderer()
	owned := model.Classifier{Schema: sc}.LockProblem(model.OrphanLock, 0, "old@x.io", "ACCT#a1")
	ownerless := model.Classifier{Schema: sc}.LockProblem(model.OrphanLock, 1, "ghost", "")
	if got, want := ansi.Strip(r.Orphan(&owned, 0, 100, false)), cols("  ", "UNIQ#EMAIL#old@x.io", "owner ACCT#a1 does not hold it", "orphan"); got != want {
		t.Errorf("orphan with owner\n got %q\nwant %q", got, want)
	}
	if got, want := ansi.Strip(r.Orphan(&ownerless, 0, 100, false)), cols("  ", "UNIQ#HANDLE#ghost", "no owner; nobody holds username", "orphan"); got != want {
		t.Errorf("orphan without owner\n got %q\nwant %q", got, want)
	}

	// Holder-based problems carry no lock: the row shows the value.
	holder := func(kind model.ProblemKind, ci int, v string, ids ...string) model.Problem {
		p := model.Classifier{Schema: sc}.LockProblem(kind, ci, v, "")
		p.Lock, p.LockTable, p.Accounts = nil, "", ids
		return p
	}
	foreign := model.Classifier{Schema: sc}.LockProblem(model.ForeignLock, 0, "carol@x.io", "ACCT#z9")
	foreign.Accounts = []string{"ACCT#c3"}
	tests := []struct {
		p    model.Problem
		want string
	}{
		{holder(model.MissingLock, 1, "bob", "ACCT#b2"), cols("  ", "  bob", "username  held by ACCT#b2", "missing")},
		{owned, cols("  ", "  UNIQ#EMAIL#old@x.io", "email  owner ACCT#a1", "orphan")},
		{foreign, cols("  ", "  UNIQ#EMAIL#carol@x.io", "email  owner ACCT#z9  held by ACCT#c3", "foreign")},
		{holder(model.DuplicateValue, 0, "dup@x.io", "ACCT#d4", "ACCT#e5"), cols("  ", "  dup@x.io", "email  held by ACCT#d4, ACCT#e5", "duplicate")},
		{holder(model.InvalidValue, 0, `{"N":"5"}`, "ACCT#f6"), cols("  ", `  {"N":"5"}`, "email  held by ACCT#f6", "invalid")},
	}
	for _, tt := range tests {
		t.Run(string(tt.p.Kind), func(t *testing.T) {
			if got := ansi.Strip(r.Problem(&tt.p, 0, 100, false)); got != tt.want {
				t.Errorf("problem row\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestLockItemRow(t *testing.T) {
	r, _ := renderer()
	owned := model.Lock{Constraint: 0, Value: "ada@x.io", Owner: "ACCT#a1"}
	bare := model.Lock{Constraint: 1, Value: "ghost"}
	tests := []struct {
		l      *model.Lock
		words  string
		status model.LockStatus
		want   string
	}{
		{&owned, "checking", model.LockNone, cols("  ", "UNIQ#EMAIL#ada@x.io", "email  owner ACCT#a1", "checking")},
		{&owned, "ok", model.LockOK, cols("  ", "UNIQ#EMAIL#ada@x.io", "email  owner ACCT#a1", "ok")},
		{&owned, "foreign", model.LockForeign, cols("  ", "UNIQ#EMAIL#ada@x.io", "email  owner ACCT#a1", "foreign")},
		{&bare, "orphan", model.LockOrphan, cols("  ", "UNIQ#HANDLE#ghost", "username  no owner", "orphan")},
	}
	for _, tt := range tests {
		if got := ansi.Strip(r.LockItem(tt.l, tt.words, tt.status, 0, 100, false)); got != tt.want {
			t.Errorf("lock item %s\n got %q\nwant %q", tt.words, got, tt.want)
		}
	}
}

func TestLockKeyInLockTable(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutTables)
	st := styles.New(false)
	r := rows.Renderer{Schema: &sc, Styles: &st}
	if got, want := r.LockKey(0, "02:00:00:00:00:01", false), "unique_mac_addresses/02:00:00:00:00:01"; got != want {
		t.Errorf("LockKey = %q, want %q", got, want)
	}
}

// TestRowsFitTheWidth renders every kind of row, plain and selected, at
// several widths, with values far longer than a column and with wide
// characters: each line is exactly the width, and cut values end in "…".
func TestRowsFitTheWidth(t *testing.T) {
	r, sc := renderer()
	long := strings.Repeat("very-long-address.", 20) + "@example.org"
	wide := strings.Repeat("日本語", 30)
	a := view(acctItem("ACCT#"+strings.Repeat("9", 80), long, wide),
		model.LockView{Value: long, Item: lockItem("UNIQ#EMAIL#"+long, model.S("ACCT#a1")), Owner: "ACCT#" + wide, Status: model.LockForeign},
		model.LockView{Value: wide, Status: model.LockMissing})
	orphan := model.Classifier{Schema: sc}.LockProblem(model.OrphanLock, 1, wide, "ACCT#"+wide)
	l := model.Lock{Constraint: 1, Value: wide, Owner: wide}
	for _, width := range []int{40, 60, 61, 100, 157, 200} {
		for _, sel := range []bool{false, true} {
			lines := map[string]string{
				"account":  r.Account(a, width, sel),
				"email":    r.Lock(a, 0, width, sel),
				"username": r.Lock(a, 1, width, sel),
				"orphan":   r.Orphan(&orphan, 0, width, sel),
				"problem":  r.Problem(&orphan, 0, width, sel),
				"lockitem": r.LockItem(&l, "orphan", model.LockOrphan, 0, width, sel),
				"text":     r.Text("orphan locks: "+wide+wide, r.Styles.Group, width, sel),
			}
			for name, line := range lines {
				plain := ansi.Strip(line)
				if w := ansi.StringWidth(plain); w != width {
					t.Errorf("%s at %d (selected %v): %d cells: %q", name, width, sel, w, plain)
				}
				if !strings.Contains(plain, "…") {
					t.Errorf("%s at %d: a cut value shows no …: %q", name, width, plain)
				}
				if strings.ContainsRune(plain, '\uFFFD') {
					t.Errorf("%s at %d: a wide character was split: %q", name, width, plain)
				}
				if want := "  "; sel {
					want = "▸ "
					if !strings.HasPrefix(plain, want) {
						t.Errorf("%s at %d: selected row starts %q", name, width, plain)
					}
				} else if !strings.HasPrefix(plain, want) {
					t.Errorf("%s at %d: row starts %q", name, width, plain)
				}
			}
		}
	}
	// Short values are padded, never cut.
	short := view(acctItem("ACCT#1", "a@b.c", "日本"), model.LockView{Value: "a@b.c", Status: model.LockOK}, model.LockView{Value: "日本", Status: model.LockOK})
	for ci := range 2 {
		plain := ansi.Strip(r.Lock(short, ci, 80, false))
		if ansi.StringWidth(plain) != 80 || strings.Contains(plain, "…") {
			t.Errorf("short row at 80: %q", plain)
		}
	}
	if plain := ansi.Strip(r.Account(short, 80, false)); !strings.Contains(plain, "username=日本") {
		t.Errorf("wide value not shown whole: %q", plain)
	}
}

// sgr matches the only escape sequences a row may hold: its own colours.
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

const hostile = "evil\x1b]0;pwned\x07\u202eKCAB"

// TestHostileValuesRenderVisible puts an OSC title sequence, a BEL and a
// right-to-left override in every field a row shows: the raw line holds
// no escape sequence but colours, and shows the characters as escapes.
func TestHostileValuesRenderVisible(t *testing.T) {
	r, sc := renderer()
	const visible = `evil\x1b]0;pwned\x07\u202eKCAB`
	it := acctItem("ACCT#"+hostile, hostile+"@x.io", hostile)
	it["email"] = model.S(hostile)
	a := view(it,
		model.LockView{Value: hostile, Item: lockItem("UNIQ#EMAIL#"+hostile, model.S(hostile)), Owner: hostile, Status: model.LockForeign},
		model.LockView{Value: hostile, Status: model.LockMissing})
	orphan := model.Classifier{Schema: sc}.LockProblem(model.OrphanLock, 1, hostile, hostile)
	prob := model.Classifier{Schema: sc}.LockProblem(model.ForeignLock, 0, hostile, hostile)
	prob.Accounts = []string{hostile}
	l := model.Lock{Constraint: 0, Value: hostile, Owner: hostile}
	lines := map[string]string{
		"account":  r.Account(a, 400, false),
		"email":    r.Lock(a, 0, 400, false),
		"username": r.Lock(a, 1, 400, true),
		"orphan":   r.Orphan(&orphan, 0, 400, false),
		"problem":  r.Problem(&prob, 0, 400, false),
		"lockitem": r.LockItem(&l, "foreign", model.LockForeign, 0, 400, false),
	}
	for name, line := range lines {
		rest := sgr.ReplaceAllString(line, "")
		for _, raw := range []string{"\x1b", "\x07", "\u202e"} {
			if strings.Contains(rest, raw) {
				t.Errorf("%s: raw %q reaches the terminal: %q", name, raw, line)
			}
		}
		if !strings.Contains(ansi.Strip(line), visible) {
			t.Errorf("%s: does not show %s: %q", name, visible, ansi.Strip(line))
		}
	}
	if got := rows.AttrText(model.Item{"x": model.S(hostile)}, "x"); got != visible {
		t.Errorf("AttrText = %q, want %q", got, visible)
	}
	if got := rows.AttrText(model.Item{"x": model.Value{Kind: model.KindSS, Strings: []string{hostile}}}, "x"); strings.ContainsAny(got, "\x1b\x07\u202e") {
		t.Errorf("AttrText of a set = %q, holds raw controls", got)
	}
}

func TestAttrTextAndCount(t *testing.T) {
	it := model.Item{"s": model.S("x"), "n": model.N("5"), "null": model.Null(), "empty": model.S("")}
	for name, want := range map[string]string{"s": "x", "n": `{"N":"5"}`, "null": `{"NULL":true}`, "empty": "", "absent": "-"} {
		if got := rows.AttrText(it, name); got != want {
			t.Errorf("AttrText(%s) = %q, want %q", name, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", 300000: "300,000"} {
		if got := rows.Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestColumnsFollowTheContent: a long lock key was cut while the detail
// beside it left its column mostly empty; at 250 columns the status sat
// 200 columns from its key.
func TestColumnsFollowTheContent(t *testing.T) {
	r, _ := renderer()
	long := "averyverylongaddress.of.someone@subdomain.example.org"
	a := view(acctItem("ACCT#a1", long, "ada"),
		model.LockView{Value: long, Item: lockItem("UNIQ#EMAIL#"+long, model.S("ACCT#a1")), Owner: "ACCT#a1", Status: model.LockOK})
	row := ansi.Strip(r.Lock(a, 0, 100, false))
	if !strings.Contains(row, "UNIQ#EMAIL#"+long) || !strings.Contains(row, "owner ACCT#a1") || !strings.HasSuffix(strings.TrimRight(row, " "), "ok") {
		t.Errorf("at 100 columns the key is cut while the detail has room:\n%q", row)
	}
	if w := ansi.StringWidth(row); w != 100 {
		t.Errorf("row is %d cells wide, want 100", w)
	}
	short := view(acctItem("ACCT#a1", "ada@x.io", "ada"),
		model.LockView{Value: "ada@x.io", Item: lockItem("UNIQ#EMAIL#ada@x.io", model.S("ACCT#a1")), Owner: "ACCT#a1", Status: model.LockOK})
	row = ansi.Strip(r.Lock(short, 0, 250, false))
	if gap := strings.Index(row, " ok") - strings.Index(row, "UNIQ#"); gap > 130 {
		t.Errorf("at 250 columns the status is %d columns from its key:\n%q", gap, row)
	}
	if w := ansi.StringWidth(row); w != 250 {
		t.Errorf("row is %d cells wide, want 250", w)
	}
}

// A lock found in its constraint's other spelling (OneTable's older
// unique items) shows the key it has, on an account's lock row and as a
// problem's.
func TestLockRowsInTheOtherSpelling(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	if err := (model.Preset{Schema: &sc}).Apply("onetable:User"); err != nil {
		t.Fatal(err)
	}
	sc.PK, sc.SK, sc.AccountSK, sc.KeysFromTable = "pk", "sk", "user#", false
	sc.Constraints = []model.Constraint{model.Preset{Schema: &sc}.Unique("email")}
	st := styles.New(true)
	r := rows.Renderer{Schema: &sc, Styles: &st}
	lock := model.Item{"pk": model.S("User:email:a@x.io"), "sk": model.S("_unique:")}
	a := model.AccountView{ID: "user#ada", Locks: []model.LockView{{Constraint: 0, Value: "a@x.io", Item: lock, Status: model.LockOK, Alt: true}}}
	if got := r.LockCells(&a, 0).Key; got != "User:email:a@x.io" {
		t.Errorf("lock row key %q, want the older spelling", got)
	}
	c := model.NewCensus(&sc, 0)
	c.Add(sc.Table, lock)
	p := c.Problems()
	if len(p) != 1 || r.ProblemCells(&p[0], 0).Key != "User:email:a@x.io" || r.OrphanCells(&p[0], 0).Key != "User:email:a@x.io" {
		t.Errorf("orphan %+v: want its row to name User:email:a@x.io", p)
	}
}
