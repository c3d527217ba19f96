package ui

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
)

// driver plays the part of the Bubble Tea runtime for Update tests: it
// runs the commands Update returns, each in a goroutine as the runtime
// does, and feeds their messages back to Update on the test's goroutine.
type driver struct {
	t    *testing.T
	m    Model
	msgs chan result
	// busy counts commands whose message has not been handled yet, except
	// listen, which blocks on the events channel until a background worker
	// posts something. Only the test's goroutine touches it.
	busy int
	quit bool
	// clipboard is what the UI last asked the terminal to copy (OSC 52).
	clipboard string
	// helpLayouts counts the messages after which the model held a help
	// layout it did not hold before (see helpLayout).
	helpLayouts int
}

// helpLayout identifies the help layout m holds (nil: none). Each layout
// is a new slice of pages; frames and paging show the one held.
func helpLayout(m Model) *string {
	if len(m.help.pages) == 0 {
		return nil
	}
	return &m.help.pages[0]
}

// result is a command's message; counted says it ends a command counted
// in busy.
type result struct {
	msg     tea.Msg
	counted bool
}

// waitFor bounds every wait for the emulator or a background worker.
const waitFor = 20 * time.Second

// newDriver starts the UI on store as the runtime does: Init, then the
// terminal's size.
func newDriver(t *testing.T, o Options, width, height int) *driver {
	t.Helper()
	switch s := o.Pages.(type) {
	case *dynamo.Pages:
		o.Schema, o.Endpoint = s.Schema, s.Endpoint
	case *uitest.Backend:
		o.Schema, o.Endpoint = s.Schema(), testEndpoint
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // stops the background check and searches
	d := &driver{t: t, m: New(ctx, o), msgs: make(chan result, 1024)}
	d.run(d.m.Init())
	d.send(tea.WindowSizeMsg{Width: width, Height: height})
	return d
}

// run starts a command. Commands that only animate (the spinner, the
// search field's blinking cursor) or query the terminal are not run.
func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	name := runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()).Name()
	switch {
	case strings.Contains(name, "bubbles/v2/cursor."),
		strings.Contains(name, "bubbles/v2/spinner."),
		strings.HasSuffix(name, "bubbletea/v2.RequestBackgroundColor"):
		return
	}
	// Listen's closure is named after each function it is inlined in.
	counted := !strings.Contains(name, ".Listen.func")
	if counted {
		d.busy++
	}
	go func() { d.msgs <- result{cmd(), counted} }()
}

// receive handles one command's message.
func (d *driver) receive(r result) {
	d.t.Helper()
	if r.counted {
		defer func() { d.busy-- }()
	}
	d.send(r.msg)
}

// send hands one message to Update as the runtime would, and starts the
// command it returns.
func (d *driver) send(msg tea.Msg) {
	d.t.Helper()
	switch msg := msg.(type) {
	case nil, spinner.TickMsg:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
		return
	case tea.QuitMsg:
		d.quit = true
		return
	}
	// tea.Sequence's message type is unexported: a slice of commands run in
	// order (here one after the other in one goroutine).
	if cmds, ok := uitest.Sequence(msg); ok {
		d.busy++
		go func() {
			for _, c := range cmds {
				if c != nil {
					d.msgs <- result{msg: c()}
				}
			}
			d.msgs <- result{counted: true}
		}()
		return
	}
	switch fmt.Sprintf("%T", msg) {
	case "tea.backgroundColorMsg":
		return
	case "tea.setClipboardMsg":
		d.clipboard = reflect.ValueOf(msg).String()
		return
	}
	before := helpLayout(d.m)
	next, cmd := d.m.Update(msg)
	d.m = next.(Model)
	if l := helpLayout(d.m); l != nil && l != before {
		d.helpLayouts++
	}
	d.run(cmd)
}

// until feeds messages back until cond holds, failing after waitFor.
func (d *driver) until(what string, cond func(m *Model) bool) {
	d.t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for !cond(&d.m) {
		select {
		case r := <-d.msgs:
			d.receive(r)
		case <-deadline.C:
			d.t.Fatalf("waited %v for %s; the screen:\n%s", waitFor, what, d.screen())
		}
	}
}

// inFlight feeds messages back until a write held by the fake
// (uitest.Control.HoldWrites) has arrived there: its send starts only
// once the root has handled write.SendingMsg, a message before it.
func (d *driver) inFlight(arrived <-chan struct{}) {
	d.t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for {
		select {
		case <-arrived:
			return
		case r := <-d.msgs:
			d.receive(r)
		case <-deadline.C:
			d.t.Fatalf("waited %v for a write to be sent; the screen:\n%s", waitFor, d.screen())
		}
	}
}

// settle feeds messages back until every command has answered and its
// answer is handled. Background workers may still post later: wait for
// their results with until.
func (d *driver) settle() {
	d.t.Helper()
	d.until("the commands to finish", func(*Model) bool { return d.busy == 0 })
}

// ready waits for the first pages and the background check.
func (d *driver) ready() {
	d.t.Helper()
	d.until("the accounts and the check", func(m *Model) bool {
		return !m.views.accounts.Pager().Paging().Loading() && m.views.accounts.Pager().Len() > 0 && (m.setup.opts.NoCheck || m.check.Report() != nil)
	})
	d.settle()
}

// keyMsg is the key press a terminal sends for a key as the key map names
// it ("enter", "esc", "pgdown", "G", "/").
func keyMsg(name string) tea.KeyPressMsg {
	special := map[string]tea.KeyPressMsg{
		"enter":     {Code: tea.KeyEnter},
		"esc":       {Code: tea.KeyEscape},
		"tab":       {Code: tea.KeyTab},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"up":        {Code: tea.KeyUp},
		"down":      {Code: tea.KeyDown},
		"pgdown":    {Code: tea.KeyPgDown},
		"pgup":      {Code: tea.KeyPgUp},
		"space":     {Code: tea.KeySpace, Text: " "},
		"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
	}
	if k, ok := special[name]; ok {
		return k
	}
	r := []rune(name)
	if len(r) != 1 {
		panic("no key " + name)
	}
	if r[0] >= 'A' && r[0] <= 'Z' {
		return tea.KeyPressMsg{Code: r[0] + 'a' - 'A', ShiftedCode: r[0], Mod: tea.ModShift, Text: name}
	}
	return tea.KeyPressMsg{Code: r[0], Text: name}
}

// press sends keys one by one, letting the commands of each finish.
func (d *driver) press(keys ...string) {
	d.t.Helper()
	for _, k := range keys {
		msg := keyMsg(k)
		if msg.String() != k {
			d.t.Fatalf("key %q reads as %q: the key map would not see it", k, msg.String())
		}
		d.send(msg)
		d.settle()
	}
}

// typeText types text into the focused field, one key per rune.
func (d *driver) typeText(text string) {
	d.t.Helper()
	for _, r := range text {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	d.settle()
}

// search looks q up in the whole table (:find) and waits for its result.
func (d *driver) search(q string) {
	d.t.Helper()
	d.press(":")
	d.typeText("find " + q)
	d.press("enter")
	d.until("the search for "+q, func(m *Model) bool { return !m.layers.search.Busy() })
	d.settle()
}

// screen is the view as the terminal shows it, without colours.
func (d *driver) screen() string { return ansi.Strip(d.m.View().Content) }

// lines is the screen split in lines, trailing blanks trimmed.
func (d *driver) lines() []string {
	ls := strings.Split(d.screen(), "\n")
	for i := range ls {
		ls[i] = strings.TrimRight(ls[i], " ")
	}
	return ls
}

// selected is the selected row of the list on screen.
func (d *driver) selected() string {
	d.t.Helper()
	for _, l := range d.lines() {
		if strings.HasPrefix(l, "▸ ") {
			return l
		}
	}
	d.t.Fatalf("no selected row on screen:\n%s", d.screen())
	return ""
}

// selectRow presses down until the selected row contains sub, failing
// after 200 presses.
func (d *driver) selectRow(sub string) {
	d.t.Helper()
	for range 200 {
		if strings.Contains(d.selected(), sub) {
			return
		}
		d.press("down")
	}
	d.t.Fatalf("no row with %q below the selection:\n%s", sub, d.screen())
}

// fields splits a row into its words, so that tests need not count spaces.
func fields(row string) string { return strings.Join(strings.Fields(row), " ") }

// rowIndex returns the index of the first screen line whose fields start
// with prefix, or -1.
func (d *driver) rowIndex(prefix string) int {
	for i, l := range d.lines() {
		if strings.HasPrefix(fields(strings.TrimPrefix(l, "▸ ")), prefix) {
			return i
		}
	}
	return -1
}

// wantRows asserts that rows (by the start of their fields) are on screen,
// consecutive, in this order.
func (d *driver) wantRows(rows ...string) {
	d.t.Helper()
	first := d.rowIndex(rows[0])
	ls := d.lines()
	if first < 0 || first+len(rows) > len(ls) {
		d.t.Fatalf("no row %q on screen:\n%s", rows[0], d.screen())
	}
	for i, want := range rows {
		if got := fields(strings.TrimPrefix(ls[first+i], "▸ ")); !strings.HasPrefix(got, want) {
			d.t.Errorf("row %d after %q is %q, want it to start %q\n%s", i, rows[0], got, want, d.screen())
		}
	}
}

// Test data.

// testEndpoint replaces the emulator's port in everything the UI shows.
var testEndpoint = backend.Endpoint{URL: "http://127.0.0.1:8000", Loopback: true}

// The items of layout-1 test tables.
var (
	acct = dynamotest.Account
	lock = dynamotest.Lock
)

// plantedItems are one case of each status a row can show, in key order:
//
//	ACCT#a1  ada@x.io / ada      both locks ok
//	ACCT#b2  bob@x.io / bob      username lock missing
//	ACCT#c3  carol@x.io / carol  email lock names ACCT#z9 (foreign); username lock has no owner
//	ACCT#d4  dup@x.io / dave     holds the email lock
//	ACCT#e5  dup@x.io / eve      duplicate email
//	ACCT#f6  5 (a number) / frank  invalid email
//	ACCT#g7  gina@x.io / -       no username
//	UNIQ#EMAIL#old@x.io (owner ACCT#a1) and UNIQ#HANDLE#ghost (no owner): orphans
func plantedItems() []model.Item {
	f6 := acct("ACCT#f6", "", "frank")
	f6["email"] = model.N("5")
	return []model.Item{
		acct("ACCT#a1", "ada@x.io", "ada"), lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), lock("UNIQ#HANDLE#ada", "ACCT#a1"),
		acct("ACCT#b2", "bob@x.io", "bob"), lock("UNIQ#EMAIL#bob@x.io", "ACCT#b2"),
		acct("ACCT#c3", "carol@x.io", "carol"), lock("UNIQ#EMAIL#carol@x.io", "ACCT#z9"), lock("UNIQ#HANDLE#carol", ""),
		acct("ACCT#d4", "dup@x.io", "dave"), lock("UNIQ#EMAIL#dup@x.io", "ACCT#d4"), lock("UNIQ#HANDLE#dave", "ACCT#d4"),
		acct("ACCT#e5", "dup@x.io", "eve"), lock("UNIQ#HANDLE#eve", "ACCT#e5"),
		f6, lock("UNIQ#HANDLE#frank", "ACCT#f6"),
		acct("ACCT#g7", "gina@x.io", ""), lock("UNIQ#EMAIL#gina@x.io", "ACCT#g7"),
		lock("UNIQ#EMAIL#old@x.io", "ACCT#a1"), lock("UNIQ#HANDLE#ghost", ""),
	}
}

// planted returns a store on a fresh dynoxide table holding plantedItems.
func planted(t *testing.T) (*dynamo.Store, *dynamodb.Client) {
	t.Helper()
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	store.Endpoint = testEndpoint
	dynamotest.Put(t, client, store.Schema.Table, plantedItems()...)
	return store, client
}

// fake returns an in-memory backend of the default layout-1 schema, on a
// table named like the emulator's, holding items.
func fake(items ...model.Item) *uitest.Backend {
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.Table = tablePlaceholder
	b := uitest.New(sc)
	b.Put(sc.Table, items...)
	return b
}

// fakeMany returns an in-memory backend of n sound accounts, ACCT#0000
// (user0@x.io, user0) on, each with its two locks.
func fakeMany(n int) *uitest.Backend {
	store := fake()
	for i := range n {
		id, handle := fmt.Sprintf("ACCT#%04d", i), fmt.Sprintf("user%d", i)
		store.Put(tablePlaceholder, acct(id, handle+"@x.io", handle), lock("UNIQ#EMAIL#"+handle+"@x.io", id), lock("UNIQ#HANDLE#"+handle, id))
	}
	return store
}

// fakePlanted is planted, in memory.
func fakePlanted() *uitest.Backend { return fake(plantedItems()...) }

// roles hands the UI each role of store: a *dynamo.Store's roles, or the
// in-memory fake, which plays every role over the items it keeps.
func roles(store any) Roles {
	switch s := store.(type) {
	case *dynamo.Store:
		return Roles{Pages: s.Pages, Check: s.Checker, Lookup: s.Lookup, Writer: s.Writer, Tables: s, Sweep: s.Sweeper, Writable: s.Writable()}
	case *uitest.Backend:
		return Roles{Pages: s, Check: s, Lookup: s, Writer: s, Tables: s, Sweep: uitest.NewSweeper(s), Writable: s.Control.Writable()}
	case *synthetic:
		return Roles{Pages: s}
	}
	panic(fmt.Sprintf("roles: %T plays no role", store))
}
