package write

import (
	"context"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/styles"
)

// flow is the write flow on an in-memory table of ada and bob, and what
// it asked of the root.
type flow struct {
	t       *testing.T
	m       Model
	b       *uitest.Backend
	written []WrittenMsg
	// outcomes are the writes sent, as the writes log is told them.
	outcomes []OutcomeMsg
	quit     bool
}

func newFlow(t *testing.T, km dialog.KeyMap) *flow {
	t.Helper()
	b := uitest.Holding(
		dynamotest.Account("ACCT#a1", "ada@x.io", "ada"), dynamotest.Lock("UNIQ#EMAIL#ada@x.io", "ACCT#a1"), dynamotest.Lock("UNIQ#HANDLE#ada", "ACCT#a1"),
		dynamotest.Account("ACCT#b2", "bob@x.io", "bob"), dynamotest.Lock("UNIQ#EMAIL#bob@x.io", "ACCT#b2"), dynamotest.Lock("UNIQ#HANDLE#bob", "ACCT#b2"),
	)
	sc, st := b.Schema(), styles.New(true)
	m := New(context.Background(), b, &sc, &st, items.New(&sc), km)
	m.SetSize(120, 30)
	return &flow{t: t, m: m, b: b}
}

// run runs cmd as the runtime would, handing its messages back to the
// flow, as the root routes them, and keeping what is the root's. The
// spinner's and the cursor's ticks are not run: they only animate.
func (f *flow) run(cmd tea.Cmd) {
	f.t.Helper()
	if cmd == nil {
		return
	}
	name := runtime.FuncForPC(reflect.ValueOf(cmd).Pointer()).Name()
	if strings.Contains(name, "bubbles/v2/spinner.") || strings.Contains(name, "bubbles/v2/cursor.") {
		return
	}
	msg := cmd()
	if cmds, ok := uitest.Sequence(msg); ok {
		for _, c := range cmds {
			f.run(c)
		}
		return
	}
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			f.run(c)
		}
	case SendingMsg:
		// The root notes what the write leaves; nothing here to do.
	case WrittenMsg:
		f.written = append(f.written, msg)
	case OutcomeMsg:
		f.outcomes = append(f.outcomes, msg)
	case tea.QuitMsg:
		f.quit = true
	default:
		f.send(msg)
	}
}

func (f *flow) send(msg tea.Msg) {
	f.t.Helper()
	var cmd tea.Cmd
	f.m, cmd = f.m.Update(msg)
	f.run(cmd)
}

// press sends keys named as the key map names them.
func (f *flow) press(keys ...string) {
	f.t.Helper()
	for _, k := range keys {
		msg := map[string]tea.KeyPressMsg{"enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape}, "tab": {Code: tea.KeyTab}}[k]
		if msg.Code == 0 {
			msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
		}
		f.send(msg)
	}
}

func (f *flow) typeText(s string) {
	f.t.Helper()
	for _, r := range s {
		f.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (f *flow) screen() string { return ansi.Strip(f.m.View()) }

// expect fails unless the dialog is at stage and shows each of texts.
func (f *flow) expect(stage dialog.Stage, texts ...string) {
	f.t.Helper()
	if !f.m.Open() || f.m.Stage() != stage {
		f.t.Fatalf("open %v, stage %v; want stage %v:\n%s", f.m.Open(), f.m.Stage(), stage, f.screen())
	}
	for _, s := range texts {
		if !strings.Contains(f.screen(), s) {
			f.t.Fatalf("no %q on\n%s", s, f.screen())
		}
	}
}

func (f *flow) account(id string) model.AccountView {
	f.t.Helper()
	a, found, err := f.b.Account(context.Background(), id)
	if err != nil || !found {
		f.t.Fatalf("account %s: found %v, %v", id, found, err)
	}
	return a
}

// TestSignupSendsWhatThePreviewShows: the form's values are planned into
// a previewed transaction; y sends it, the result says committed, the new
// account and its locks are written, and closing asks the root to read
// them again. The write can be undone.
func TestSignupSendsWhatThePreviewShows(t *testing.T) {
	f := newFlow(t, dialog.DefaultKeyMap())
	var cmd tea.Cmd
	f.m, cmd = f.m.Signup([]string{"ACCT#a1", "ACCT#b2"})
	f.run(cmd)
	f.expect(dialog.StageForm, "add account")
	// The suggested key is kept; the values are typed in turn.
	f.press("tab")
	f.typeText("cy@x.io")
	f.press("tab")
	f.typeText("cy")
	f.press("enter")
	f.expect(dialog.StagePreview, "UNIQ#EMAIL#cy@x.io", "UNIQ#HANDLE#cy")
	if f.b.Control.Calls("Execute") != 0 {
		t.Fatal("sent before y")
	}
	f.press("y")
	f.expect(dialog.StageResult, "COMMITTED")
	if _, ok := f.b.Item(f.b.Schema().Table, map[string]string{"PK": "UNIQ#HANDLE#cy", "SK": "LOCK"}); !ok {
		t.Error("the username lock was not written")
	}
	if len(f.outcomes) != 1 || f.outcomes[0].Result.Outcome != model.Committed || f.outcomes[0].Result.Token == "" {
		t.Errorf("the log is told %+v; want one committed signup with its token", f.outcomes)
	}
	f.press("enter")
	if f.m.Open() || len(f.written) != 1 || !f.written[0].Committed || len(f.written[0].Accounts) != 1 {
		t.Fatalf("after closing: open %v, written %+v; want one committed account to read again", f.m.Open(), f.written)
	}
}

// TestRenameToATakenValueIsCancelled: a rename to a value another
// account's lock holds is guarded on the lock being absent: sent, it is
// cancelled, the result says which guard failed, and nothing is written;
// esc goes back to the form to edit the values.
func TestRenameToATakenValueIsCancelled(t *testing.T) {
	f := newFlow(t, dialog.DefaultKeyMap())
	f.send(RenameMsg{Account: f.account("ACCT#a1")})
	f.expect(dialog.StageForm, "rename")
	for range len("ada@x.io") {
		f.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	f.typeText("bob@x.io")
	f.press("enter")
	f.expect(dialog.StagePreview, "put lock UNIQ#EMAIL#bob@x.io (owner ACCT#a1)", "only if no item with this key exists")
	f.press("y")
	f.expect(dialog.StageResult, "CANCELLED")
	if it, _ := f.b.Item(f.b.Schema().Table, map[string]string{"PK": "UNIQ#EMAIL#bob@x.io", "SK": "LOCK"}); it["owner"].S != "ACCT#b2" {
		t.Errorf("bob's lock now %v", it)
	}
	if len(f.outcomes) != 1 || f.outcomes[0].Result.Outcome != model.Cancelled {
		t.Errorf("the log is told %+v; want one cancelled rename", f.outcomes)
	}
	f.press("esc")
	f.expect(dialog.StageForm, "bob@x.io")
}

// TestDeleteWantsTheKeyTypedBack: a delete is sent only once its key is
// typed back exactly; esc before that closes with nothing written.
func TestDeleteWantsTheKeyTypedBack(t *testing.T) {
	f := newFlow(t, dialog.DefaultKeyMap())
	f.send(DeleteMsg{Account: f.account("ACCT#b2")})
	f.expect(dialog.StagePreview, "type ACCT#b2 to send")
	f.press("y", "enter")
	f.expect(dialog.StagePreview, "type ACCT#b2 exactly to send")
	if f.b.Control.Calls("Execute") != 0 {
		t.Fatal("sent without the key typed back")
	}
	f.press("esc")
	if f.m.Open() || len(f.written) != 0 {
		t.Fatalf("esc: open %v, written %+v; want closed, nothing to read again", f.m.Open(), f.written)
	}
	f.send(DeleteMsg{Account: f.account("ACCT#b2")})
	f.typeText("ACCT#b2")
	f.press("enter")
	f.expect(dialog.StageResult, "COMMITTED")
	if _, ok := f.b.Item(f.b.Schema().Table, map[string]string{"PK": "ACCT#b2", "SK": "ACCOUNT"}); ok {
		t.Error("bob is still there")
	}
}

// TestStalePlanDropped: the plan of a dialog since closed does not show
// in the one open now.
func TestStalePlanDropped(t *testing.T) {
	f := newFlow(t, dialog.DefaultKeyMap())
	var stale tea.Cmd
	f.m, stale = f.m.Delete(f.account("ACCT#b2"))
	f.m, _ = f.m.Signup(nil)
	for _, c := range stale().(tea.BatchMsg) {
		if c != nil {
			if plan, ok := c().(PlanMsg); ok {
				f.send(plan)
			}
		}
	}
	f.expect(dialog.StageForm, "add account")
}

// TestRemappedSend: the dialog matches its bindings: send remapped to S
// sends on S, and y no longer does; the help line says S.
func TestRemappedSend(t *testing.T) {
	km := dialog.DefaultKeyMap()
	if !keymap.Remap(&km, "send", []string{"S"}) {
		t.Fatal("no binding send")
	}
	f := newFlow(t, km)
	var cmd tea.Cmd
	f.m, cmd = f.m.Signup(nil)
	f.run(cmd)
	f.press("tab")
	f.typeText("cy@x.io")
	f.press("tab")
	f.typeText("cy")
	f.press("enter")
	f.expect(dialog.StagePreview)
	f.press("y")
	if f.b.Control.Calls("Execute") != 0 || f.m.Stage() != dialog.StagePreview {
		t.Fatalf("y sent, remapped to S: stage %v", f.m.Stage())
	}
	if !slices.ContainsFunc(f.m.ShortHelp(), func(b key.Binding) bool { return b.Enabled() && b.Help() == (key.Help{Key: "S", Desc: "send"}) }) {
		t.Errorf("the help line does not say S sends: %+v", f.m.ShortHelp())
	}
	f.send(tea.KeyPressMsg{Code: 's', ShiftedCode: 'S', Mod: tea.ModShift, Text: "S"})
	f.expect(dialog.StageResult, "COMMITTED")
}

// TestRetryAfterAConcurrentRenameStartsFromNow: a rename cancelled
// because someone else changed the account meanwhile reads the account
// again; "edit and retry" then shows the values as they are now (a value
// the user did not edit takes the new one, and "was" says it), so the
// retry is guarded on them and commits, instead of being cancelled the
// same way every time (issue 28).
func TestRetryAfterAConcurrentRenameStartsFromNow(t *testing.T) {
	f := newFlow(t, dialog.DefaultKeyMap())
	f.send(RenameMsg{Account: f.account("ACCT#a1")})
	f.expect(dialog.StageForm, "rename")
	// Meanwhile another writer renames ada's handle to maggie.
	sc := f.b.Schema()
	f.b.Put(sc.Table, dynamotest.Account("ACCT#a1", "ada@x.io", "maggie"), dynamotest.Lock("UNIQ#HANDLE#maggie", "ACCT#a1"))
	for range len("ada@x.io") {
		f.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	f.typeText("ada2@x.io")
	f.press("enter")
	f.expect(dialog.StagePreview)
	f.press("y")
	f.expect(dialog.StageResult, "CANCELLED", "maggie")
	f.press("esc")
	f.expect(dialog.StageForm, "ada2@x.io", "was maggie")
	f.press("enter")
	f.expect(dialog.StagePreview)
	f.press("y")
	f.expect(dialog.StageResult, "COMMITTED")
	it, _ := f.b.Item(sc.Table, sc.AccountKey("ACCT#a1"))
	if it["email"].S != "ada2@x.io" || it["username"].S != "maggie" {
		t.Errorf("ada now %v; want email ada2@x.io and the handle maggie kept", it)
	}
}
