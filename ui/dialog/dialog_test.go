package dialog_test

import (
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
