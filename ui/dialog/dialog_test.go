package dialog_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/styles"
)

// TestWaitingTurns: "working…" stood still for seconds; the wait says
// what it waits for and its spinner turns.
func TestWaitingTurns(t *testing.T) {
	st := styles.New(true)
	sc := model.DefaultSchema(model.LayoutSingle)
	m := dialog.New(dialog.DefaultKeyMap(), &st, &sc, "delete ACCT#a1", nil)
	m.SetSize(80, 20)
	before := m.View()
	cmd := m.Init()
	if cmd == nil {
		t.Fatal("a dialog that opens waiting starts no spinner")
	}
	tick, ok := cmd().(spinner.TickMsg)
	if !ok {
		t.Fatalf("Init's command says %T, want a spinner tick", cmd())
	}
	m, next := m.Update(tick)
	if next == nil || m.View() == before {
		t.Fatalf("the spinner does not turn:\n%s", m.View())
	}
	m.SetSkipped("nothing to send")
	if _, next := m.Update(tick); next != nil {
		t.Error("the spinner turns on after the wait")
	}
}

// FuzzFormText (issue 26): a value loaded into the form comes back byte
// for byte when nothing is edited, and with the key typed when one is
// added at its end (short of the field's limit); the form shows it with no character a terminal
// would act on or hide.
func FuzzFormText(f *testing.F) {
	f.Add("\x1b[31mRED\u202eevil\x1b]0;pwned\x07\r\nX")
	f.Add(`\x1b\\` + "\xff\ufffd\t")
	f.Add(strings.Repeat("é", 3000))
	st := styles.New(true)
	sc := model.DefaultSchema(model.LayoutSingle)
	f.Fuzz(func(t *testing.T, v string) {
		m := dialog.New(dialog.DefaultKeyMap(), &st, &sc, "rename", []dialog.Field{dialog.NewField("username", v, nil)})
		m.SetSize(80, 20)
		if got := m.Fields()[0].Value(); got != v {
			t.Fatalf("loaded %q, the form gives back %q", v, got)
		}
		for _, r := range ansi.Strip(m.View()) {
			if r != '\n' && model.Hidden(r) {
				t.Fatalf("the form of %q shows %U raw", v, r)
			}
		}
		m, _ = m.Update(tea.KeyPressMsg{Code: tea.KeyEnd})
		m, _ = m.Update(tea.KeyPressMsg{Code: 'Z', Text: "Z"})
		in := m.Fields()[0].Input
		if full := utf8.RuneCountInString(in.Value()) >= in.CharLimit; !full && m.Fields()[0].Value() != v+"Z" {
			t.Fatalf("loaded %q, end Z: the form gives back %q", v, m.Fields()[0].Value())
		}
	})
}

// TestTypedBoxOfALongKey (issue 26): a typed confirmation put the box
// after "type <key> to send:" on one line, so a long key pushed it past
// the screen's edge at 80 columns, and what was typed or pasted there
// was never seen. The question wraps and the box keeps a line of its own.
func TestTypedBoxOfALongKey(t *testing.T) {
	st := styles.New(true)
	sc := model.DefaultSchema(model.LayoutSingle)
	for _, key := range []string{"ACCT#g7", "ACCT#" + strings.Repeat("é\u0301", 60), "ACCT#" + strings.Repeat("é\u0301\u0301\u0301\u0301\u0301", 200)} {
		m := dialog.New(dialog.DefaultKeyMap(), &st, &sc, "delete", nil)
		m.SetSize(80, 24)
		m.SetPlan(dialog.Preview{Plan: model.Plan{Operation: "delete", Keys: []string{key}, MustType: key}, Token: "t"})
		m, _ = m.Update(tea.PasteMsg{Content: "pasted-text"})
		view := ansi.Strip(m.View())
		for _, l := range strings.Split(view, "\n") {
			if w := ansi.StringWidth(l); w > 80 {
				t.Errorf("a line of %d cells at 80 columns: %q", w, l)
			}
		}
		if lines := strings.Count(view, "\n"); lines > 24 {
			t.Errorf("%d lines in a dialog of 24", lines)
		}
		if !strings.Contains(view, "> pasted-text") {
			t.Errorf("the box of %q is not on the screen:\n%s", key, view)
		}
	}
}

// TestLongFieldErrorKeepsTheForm (issue 26): a paste of a long value into
// the signup form's first field put its error, which quotes the value,
// on twenty lines, and the other fields went off the screen. An error
// takes at most two lines under its field.
func TestLongFieldErrorKeepsTheForm(t *testing.T) {
	st := styles.New(true)
	sc := model.DefaultSchema(model.LayoutSingle)
	refuse := func(v string) error { return errors.New("account: " + model.Quote(v) + " is not a key") }
	m := dialog.New(dialog.DefaultKeyMap(), &st, &sc, "add account",
		[]dialog.Field{dialog.NewField("account", "", refuse), dialog.NewField("email", "", nil), dialog.NewField("username", "", nil)})
	m.SetSize(80, 24)
	m, _ = m.Update(tea.PasteMsg{Content: strings.Repeat("é\u0301\u0301\u0301\u0301\u0301", 100)})
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "account:") || !strings.Contains(view, "…") || !strings.Contains(view, "  username") || strings.Count(view, "\n") > 24 {
		t.Fatalf("the error, or the fields after it, are not on the screen:\n%s", view)
	}
}
