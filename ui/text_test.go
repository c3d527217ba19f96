package ui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/ui/dialog"
)

// paste sends text as a terminal's bracketed paste.
func (d *driver) paste(text string) {
	d.t.Helper()
	d.send(tea.PasteMsg{Content: text})
	d.settle()
}

// TestPasteInTheRenameForm (issue 26): a paste was dropped, so clearing
// the email and pasting a new one previewed "remove email", and y sent
// it. The paste is the field's text; one that spans lines or passes the
// field's limit is refused, whole, and says so; enter in it is no key.
func TestPasteInTheRenameForm(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Store: store}, 120, 40)
	d.ready()
	pinAccount(d, "ada")
	d.press("e")
	waitScreen(d, "the form", "rename ACCT#a1")
	d.send(ctrlU())
	d.paste("bobby.pasted@x.io")
	if s := fields(d.screen()); !strings.Contains(s, "▸ email bobby.pasted@x.io") || strings.Contains(s, "not pasted") {
		t.Fatalf("the paste is not in the field:\n%s", d.screen())
	}
	d.paste("more\n")
	if s := d.screen(); !strings.Contains(s, "not pasted: the text is 2 lines") || strings.Contains(s, "bobby.pasted@x.iomore") {
		t.Fatalf("a paste with a newline was not refused, or it was cut:\n%s", s)
	}
	if d.m.write.Stage() != dialog.StageForm {
		t.Fatalf("the newline in a paste acted as enter:\n%s", d.screen())
	}
	d.paste(strings.Repeat("x", 3000))
	if s := d.screen(); !strings.Contains(s, "not pasted: 3000 characters, and this field has room for 2031 more") {
		t.Fatalf("a paste past the limit was not refused:\n%s", s)
	}
	d.press("enter")
	waitScreen(d, "the preview", "put lock UNIQ#EMAIL#bobby.pasted@x.io")
	if s := d.screen(); strings.Contains(s, "remove email") {
		t.Fatalf("the preview removes the email:\n%s", s)
	}
	d.press("y")
	waitScreen(d, "the result", "COMMITTED")
	if a, _, _ := store.Account(context.Background(), "ACCT#a1"); a.Item["email"].S != "bobby.pasted@x.io" {
		t.Fatalf("the email is %v", a.Item["email"])
	}
}

// TestPasteInEveryField (issue 26): the filter, the command line, the
// signup form and a typed confirmation take a paste at the cursor; a
// paste never sends a write, and over the lists it says no field is open.
func TestPasteInEveryField(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Store: store}, 120, 40)
	d.ready()

	d.paste("gina")
	if !strings.Contains(d.screen(), "not pasted: no text field is open") {
		t.Fatalf("a paste over the list says nothing:\n%s", d.screen())
	}

	d.press("/")
	d.typeText("gx.io")
	d.send(tea.KeyPressMsg{Code: tea.KeyLeft})
	d.send(tea.KeyPressMsg{Code: tea.KeyLeft})
	d.send(tea.KeyPressMsg{Code: tea.KeyLeft})
	d.send(tea.KeyPressMsg{Code: tea.KeyLeft})
	d.paste("ina@")
	if d.m.search.Value() != "gina@x.io" || !strings.Contains(d.screen(), "/gina@x.io") {
		t.Fatalf("the filter is %q, want the paste at the cursor:\n%s", d.m.search.Value(), d.screen())
	}
	d.paste("\x1b[31m")
	if d.m.search.Value() != "gina@x.io" || !strings.Contains(d.screen(), `not pasted: the text holds "\x1b"`) {
		t.Fatalf("a paste with ESC was taken (%q) or not refused:\n%s", d.m.search.Value(), d.screen())
	}
	d.press("esc")

	d.press(":")
	d.paste("find gina@x.io")
	d.press("enter")
	d.until("the search", func(m *Model) bool { return m.accounts.Pinned() && !m.search.Busy() })
	d.settle()

	d.press("d")
	waitScreen(d, "the typed confirmation", "type ACCT#g7 to send")
	d.paste("ACCT#g7\r")
	if s := d.screen(); !strings.Contains(s, "not pasted: the text is 2 lines") || d.m.write.Stage() != dialog.StagePreview {
		t.Fatalf("a paste ending in enter was not refused, or it sent:\n%s", s)
	}
	d.paste("ACCT#g7")
	if _, found, _ := store.Account(context.Background(), "ACCT#g7"); !found || !strings.Contains(d.screen(), "to send: > ACCT#g7") {
		t.Fatalf("the paste sent the delete, or is not in the box:\n%s", d.screen())
	}
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
	d.press("enter")

	d.press("a")
	waitScreen(d, "the form", "add account")
	d.send(ctrlU())
	d.paste("ACCT#p1")
	d.press("tab")
	d.paste("pat@x.io")
	d.press("tab")
	d.paste("pat")
	d.press("enter")
	waitScreen(d, "the preview", "put lock UNIQ#EMAIL#pat@x.io (owner ACCT#p1)")
}

// TestEveryFieldTakesTheEditingKeys (issue 26): ctrl+u in a typed
// confirmation scrolled the request instead of clearing the box, so what
// was typed next was appended. Every field takes textinput's keys.
func TestEveryFieldTakesTheEditingKeys(t *testing.T) {
	t.Parallel()
	ctrl := func(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModCtrl} }
	alt := func(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Mod: tea.ModAlt} }
	edits := []struct {
		keys []tea.KeyPressMsg
		want string // after "abc def", the keys, then Q
	}{
		{[]tea.KeyPressMsg{ctrl('u')}, "Q"},
		{[]tea.KeyPressMsg{ctrl('w')}, "abc Q"},
		{[]tea.KeyPressMsg{ctrl('a')}, "Qabc def"},
		{[]tea.KeyPressMsg{ctrl('a'), ctrl('e')}, "abc defQ"},
		{[]tea.KeyPressMsg{alt('b')}, "abc Qdef"},
		{[]tea.KeyPressMsg{ctrl('a'), alt('f')}, "abcQ def"},
		{[]tea.KeyPressMsg{ctrl('a'), ctrl('f'), ctrl('d')}, "aQc def"},
		{[]tea.KeyPressMsg{ctrl('b'), ctrl('k')}, "abc deQ"},
	}
	opens := []struct {
		name   string
		open   func(d *driver)
		prompt string
	}{
		{"filter", func(d *driver) { d.press("/") }, "/"},
		{"command line", func(d *driver) { d.press(":") }, ":"},
		{"rename form", func(d *driver) {
			d.selectRow("ACCT#a1")
			d.press("e")
			waitScreen(d, "the form", "rename ACCT#a1")
			d.send(ctrlU())
		}, "▸ email "},
		{"typed confirmation", func(d *driver) {
			pinAccount(d, "gina@x.io")
			d.press("d")
			waitScreen(d, "the typed confirmation", "type ACCT#g7 to send")
		}, "to send: > "},
	}
	for _, o := range opens {
		t.Run(o.name, func(t *testing.T) {
			t.Parallel()
			d := newDriver(t, Options{Store: fakePlanted()}, 120, 40)
			d.ready()
			o.open(d)
			for _, e := range edits {
				d.typeText("abc def")
				for _, k := range e.keys {
					d.send(k)
				}
				d.typeText("Q")
				if s := fields(d.screen()); !strings.Contains(s, fields(o.prompt+e.want)) {
					t.Fatalf("abc def, %v, Q: want %q in the %s:\n%s", e.keys, e.want, o.name, d.screen())
				}
				d.send(ctrl('a'))
				d.send(ctrl('k'))
				d.settle()
			}
		})
	}
}
