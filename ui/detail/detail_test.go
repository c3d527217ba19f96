package detail_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/items"
)

// cache is the item cache of the table the tests read, "t" keyed by PK
// and SK.
func cache() *items.Cache { return items.New(&model.Schema{Table: "t", PK: "PK", SK: "SK"}) }

func TestItemLinesOfEveryKind(t *testing.T) {
	it := model.Item{
		"PK":     model.S("ACCT#a1"),
		"age":    model.N("42"),
		"avatar": {Kind: model.KindB, B: []byte{1, 2, 3}},
		"active": {Kind: model.KindBOOL, Bool: true},
		"gone":   model.Null(),
		"tags":   {Kind: model.KindSS, Strings: []string{"a", "b"}},
		"scores": {Kind: model.KindNS, Strings: []string{"1", "2.5"}},
		"blobs":  {Kind: model.KindBS, Binaries: [][]byte{{0xff}, {0}}},
		"list": {Kind: model.KindL, List: []model.Value{
			model.S("x"), model.N("1"),
			{Kind: model.KindM, Map: map[string]model.Value{"k": model.S("v")}},
			{Kind: model.KindL, List: []model.Value{model.Null()}},
		}},
		"nolist": {Kind: model.KindL},
		"map": {Kind: model.KindM, Map: map[string]model.Value{
			"z": {Kind: model.KindBOOL},
			"a": {Kind: model.KindM, Map: map[string]model.Value{"deep": model.S("yes")}},
		}},
		"nomap": {Kind: model.KindM},
	}
	want := []string{
		`{`,
		`  "PK": {"S": "ACCT#a1"},`,
		`  "active": {"BOOL":true},`,
		`  "age": {"N": "42"},`,
		`  "avatar": {"B":"AQID"},`,
		`  "blobs": {"BS":["/w==","AA=="]},`,
		`  "gone": {"NULL":true},`,
		`  "list": {"L": [`,
		`    {"S": "x"},`,
		`    {"N": "1"},`,
		`    {`,
		`      "M": {`,
		`        "k": {"S": "v"}`,
		`      }`,
		`    },`,
		`    {"L": [`,
		`      {"NULL":true}`,
		`    ]}`,
		`  ]},`,
		`  "map": {`,
		`    "M": {`,
		`      "a": {`,
		`        "M": {`,
		`          "deep": {"S": "yes"}`,
		`        }`,
		`      },`,
		`      "z": {"BOOL":false}`,
		`    }`,
		`  },`,
		`  "nolist": {"L": []},`,
		`  "nomap": {`,
		`    "M": {}`,
		`  },`,
		`  "scores": {"NS": ["1", "2.5"]},`,
		`  "tags": {"SS": ["a", "b"]}`,
		`}`,
	}
	got := detail.ItemLines(it)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ItemLines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := detail.ItemLines(model.Item{}); len(got) != 1 || got[0] != "{}" {
		t.Errorf("ItemLines of an empty item = %q, want [{}]", got)
	}
}

// TestItemLinesShowHostileStringsEscaped puts escape sequences, BEL, a
// bidi override, invalid UTF-8 and a quote in names, strings and sets.
func TestItemLinesShowHostileStringsEscaped(t *testing.T) {
	const hostile = "a\x1b]0;pwned\x07\u202e\xff\"b"
	it := model.Item{
		"name\x1b[31m": model.S(hostile),
		"set":          {Kind: model.KindSS, Strings: []string{hostile}},
		"nested": {Kind: model.KindM, Map: map[string]model.Value{
			hostile: {Kind: model.KindL, List: []model.Value{model.S(hostile)}},
		}},
		"num": model.N("1\x1b[2J"),
	}
	got := strings.Join(detail.ItemLines(it), "\n")
	for _, raw := range []string{"\x1b", "\x07", "\u202e", "\xff"} {
		if strings.Contains(got, raw) {
			t.Errorf("raw %q in:\n%q", raw, got)
		}
	}
	const shown = `"a\x1b]0;pwned\x07\u202e\xff\"b"`
	for _, want := range []string{
		`  "name\x1b[31m": {"S": ` + shown + `},`,
		`  "num": {"N": "1\x1b[2J"},`,
		`  "set": {"SS": [` + shown + `]}`,
		`      ` + shown + `: {"L": [`,
		`        {"S": ` + shown + `}`,
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("missing line %s in:\n%s", want, got)
		}
	}
}

func TestModelScrollsTheText(t *testing.T) {
	m := detail.New(context.Background(), nil, cache(), detail.DefaultKeyMap())
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	m, _ = m.Open(detail.OpenMsg{Title: "item x", Render: func(model.Item) []string { return lines }})
	m.SetSize(30, 5)
	if m.Title != "item x" {
		t.Errorf("Title = %q", m.Title)
	}
	first := func() string { return strings.TrimRight(strings.Split(ansi.Strip(m.View()), "\n")[0], " ") }
	if got := strings.Count(m.View(), "\n") + 1; got != 5 {
		t.Errorf("View has %d lines, want 5", got)
	}
	if first() != "line 0" {
		t.Fatalf("first line %q", first())
	}
	for _, step := range []struct {
		key  tea.KeyPressMsg
		want string
	}{
		{tea.KeyPressMsg{Code: 'j', Text: "j"}, "line 1"},
		{tea.KeyPressMsg{Code: tea.KeyDown}, "line 2"},
		{tea.KeyPressMsg{Code: tea.KeyPgDown}, "line 7"},
		{tea.KeyPressMsg{Code: 'k', Text: "k"}, "line 6"},
		{tea.KeyPressMsg{Code: tea.KeyPgUp}, "line 1"},
		{tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}, "line 6"}, // ctrl+d pages, as in lists
	} {
		m, _ = m.Update(step.key)
		if got := first(); got != step.want {
			t.Errorf("after %s: first line %q, want %q", step.key, got, step.want)
		}
	}
	// Showing another item starts at its top.
	m, _ = m.Open(detail.OpenMsg{Title: "item y", Render: func(model.Item) []string { return lines[10:] }})
	if got := first(); got != "line 10" {
		t.Errorf("after Show: first line %q, want line 10", got)
	}
}

// reader is one item at one key, and a partition of items read by
// position.
type reader struct {
	ref  model.KeyRef
	it   model.Item
	part []model.Item
}

func (r reader) PartitionPage(_ context.Context, _ string, from backend.Cursor, want int) (backend.ItemPage, error) {
	start := min(from.Pos(), len(r.part))
	end := min(start+want, len(r.part))
	return backend.ItemPage{Items: r.part[start:end], Next: backend.At(end, end == len(r.part))}, nil
}

func (r reader) ReadConsistent(_ context.Context, refs []model.KeyRef, visit func(string, model.Item)) error {
	for _, ref := range refs {
		if fmt.Sprint(ref) == fmt.Sprint(r.ref) {
			visit(ref.Table, r.it)
		}
	}
	return nil
}

// TestOpenReadsTheItemNow: a detail with a key to read shows the item as
// read when the answer comes, rendered by Update; a read made stale by a
// later key (Drop) never shows.
func TestOpenReadsTheItemNow(t *testing.T) {
	ref := model.KeyRef{Table: "t", Key: map[string]string{"PK": "ACCT#a1"}}
	r := reader{ref: ref, it: model.Item{"PK": model.S("ACCT#a1")}}
	open := detail.OpenMsg{Title: "account ACCT#a1", Read: &ref, Render: func(it model.Item) []string {
		if it == nil {
			return []string{"gone"}
		}
		return detail.ItemLines(it)
	}}
	m := detail.New(context.Background(), r, cache(), detail.DefaultKeyMap())
	m.SetSize(40, 5)
	m, cmd := m.Open(open)
	if m.Shown() || cmd == nil {
		t.Fatalf("shown %v before the read answered", m.Shown())
	}
	m, _ = m.Update(cmd())
	if !m.Shown() || !strings.Contains(m.View(), `"PK": {"S": "ACCT#a1"}`) {
		t.Fatalf("after the answer, shown %v:\n%s", m.Shown(), m.View())
	}

	m.Close()
	m, cmd = m.Open(open)
	m.Drop()
	if m, _ = m.Update(cmd()); m.Shown() {
		t.Errorf("a read dropped by a later key was shown")
	}
}

// TestOpenListsThePartition: a detail asked for a partition lists its
// first page under the item; m reads the next page below what is shown,
// even after other keys (Drop), and is offered only while pages are left.
func TestOpenListsThePartition(t *testing.T) {
	ref := model.KeyRef{Table: "t", Key: map[string]string{"PK": "ACCT#a1", "SK": "PROFILE"}}
	r := reader{ref: ref, it: model.Item{"PK": model.S("ACCT#a1")}}
	for i := range detail.PartitionPageSize + 3 {
		r.part = append(r.part, model.Item{"SK": model.S(fmt.Sprintf("ORDER#%03d", i))})
	}
	open := detail.OpenMsg{Title: "account ACCT#a1", Read: &ref, Render: func(model.Item) []string { return []string{"the account"} },
		Partition: &detail.Partition{PK: "ACCT#a1", Lines: func(items []model.Item, more bool) []string {
			lines := []string{fmt.Sprintf("%d read, more %v", len(items), more)}
			for _, it := range items {
				lines = append(lines, it["SK"].S)
			}
			return lines
		}}}
	m := detail.New(context.Background(), r, cache(), detail.DefaultKeyMap())
	m.SetSize(40, 5)
	m, cmd := m.Open(open)
	m, _ = m.Update(cmd())
	if got := ansi.Strip(m.View()); !strings.Contains(got, "the account") || !strings.Contains(got, "50 read, more true") || !strings.Contains(got, "ORDER#000") {
		t.Fatalf("first page not listed:\n%s", got)
	}
	if !m.KeyMap().More.Enabled() {
		t.Errorf("more is not offered with pages left")
	}
	m, cmd = m.Update(tea.KeyPressMsg{Code: 'm', Text: "m"})
	if cmd == nil {
		t.Fatal("m read nothing")
	}
	m.Drop() // another key comes before the page
	m, _ = m.Update(tea.KeyPressMsg{Code: 'j', Text: "j"})
	m, _ = m.Update(cmd())
	m, _ = m.Update(tea.KeyPressMsg{Code: 'G', Text: "G"})
	for range 60 {
		m, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	if got := ansi.Strip(m.View()); !strings.Contains(got, "ORDER#052") {
		t.Errorf("the second page is not listed:\n%s", got)
	}
	if m.KeyMap().More.Enabled() {
		t.Errorf("more is still offered at the partition's end")
	}
}
