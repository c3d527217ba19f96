package ui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
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
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
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
	if d.m.layers.write.Stage() != dialog.StageForm {
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
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
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
	if d.m.layers.search.Value() != "gina@x.io" || !strings.Contains(d.screen(), "/gina@x.io") {
		t.Fatalf("the filter is %q, want the paste at the cursor:\n%s", d.m.layers.search.Value(), d.screen())
	}
	d.paste("\x1b[31m")
	if d.m.layers.search.Value() != "gina@x.io" || !strings.Contains(d.screen(), `not pasted: the text holds "\x1b"`) {
		t.Fatalf("a paste with ESC was taken (%q) or not refused:\n%s", d.m.layers.search.Value(), d.screen())
	}
	d.press("esc")

	d.press(":")
	d.paste("find gina@x.io")
	d.press("enter")
	d.until("the search", func(m *Model) bool { return m.views.accounts.Pinned() && !m.layers.search.Busy() })
	d.settle()

	d.press("d")
	waitScreen(d, "the typed confirmation", "type ACCT#g7 to send")
	d.paste("ACCT#g7\r")
	if s := d.screen(); !strings.Contains(s, "not pasted: the text is 2 lines") || d.m.layers.write.Stage() != dialog.StagePreview {
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
			d := newDriver(t, Options{Roles: roles(fakePlanted())}, 120, 40)
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

// hostile is a username written by another tool: colour, a bidi override,
// a window title, a bell, a line break.
const hostile = "\x1b[31mRED\u202eevil\x1b]0;pwned\x07\r\nX"

// TestRenameKeepsTheBytes (issue 26): the form held the value printed
// (\u202e for U+202E), so a rename that added Z sent the escaped text,
// and a real ESC and the four characters \x1b looked the same. The form
// edits the value itself, shown escaped, a backslash doubled; the
// preview says in words what the values hold; what is sent keeps every
// byte not edited, and a control character is refused, never sent as
// its escape.
func TestRenameKeepsTheBytes(t *testing.T) {
	t.Parallel()
	const bidi = `RED` + "\u202e" + `evil\x1b` // a real RLO, then four characters
	store := fake(acct("ACCT#h8", "h@x.io", bidi), lock("UNIQ#EMAIL#h@x.io", "ACCT#h8"),
		acct("ACCT#h9", "h9@x.io", hostile), lock("UNIQ#EMAIL#h9@x.io", "ACCT#h9"))
	d := newDriver(t, Options{Roles: roles(store)}, 200, 50)
	d.ready()
	pinAccount(d, "h@x.io")
	d.press("e")
	waitScreen(d, "the form", "rename ACCT#h8")
	d.press("tab")
	if s := d.screen(); !strings.Contains(s, `▸ username           RED\u202eevil\\x1b`) {
		t.Fatalf("the form does not show the value escaped, its backslash doubled:\n%s", s)
	}
	d.send(tea.KeyPressMsg{Code: tea.KeyEnd})
	d.typeText("Z")
	d.press("enter")
	waitScreen(d, "the preview", "put lock UNIQ#HANDLE#")
	s := fields(d.screen())
	for _, want := range []string{`note: the old username holds bidi overrides: RED\u202eevil\\x1b`, `note: the new username holds bidi overrides: RED\u202eevil\\x1bZ`} {
		if !strings.Contains(s, want) {
			t.Fatalf("the preview does not say %q:\n%s", want, d.screen())
		}
	}
	if c := d.m.View().Content; strings.Contains(c, "\u202e") {
		t.Fatalf("the value reached the terminal raw: %q", c)
	}
	d.press("c") // the request, as JSON: the override escaped
	if strings.Contains(d.clipboard, "\u202e") || !strings.Contains(d.clipboard, `RED\u202eevil\\x1bZ`) {
		t.Fatalf("c copied the request with the override raw, or without it: %q", d.clipboard)
	}
	d.press("y")
	waitScreen(d, "the result", "COMMITTED")
	a, _, _ := store.Account(context.Background(), "ACCT#h8")
	if got := a.Item["username"].S; got != bidi+"Z" {
		t.Fatalf("sent %q, want the bytes loaded and Z: %q", got, bidi+"Z")
	}
	d.press("enter")

	pinAccount(d, "h9@x.io")
	d.press("e")
	waitScreen(d, "the form", "rename ACCT#h9")
	d.press("tab")
	if s := d.screen(); !strings.Contains(s, `\x1b[31mRED\u202eevil\x1b]0;pwned\x07\x0d\x0aX`) {
		t.Fatalf("the form does not show the value escaped:\n%s", s)
	}
	d.send(tea.KeyPressMsg{Code: tea.KeyEnd})
	d.typeText("Z")
	d.press("enter")
	waitScreen(d, "the refusal", "username: contains the control character U+001B")
	if c := d.m.View().Content; strings.Contains(c, "\u202e") || strings.Contains(c, "\x1b]0;") || strings.Contains(c, "\x07") {
		t.Fatalf("the value reached the terminal raw: %q", c)
	}
	if a, _, _ := store.Account(context.Background(), "ACCT#h9"); a.Item["username"].S != hostile {
		t.Fatalf("the username changed: %q", a.Item["username"].S)
	}
}

// TestCopyEscapesTheKey (issue 26): c put a key's ESC, BEL, CR and LF on
// the clipboard, which pasted into a shell runs a line. c copies it
// escaped and says so; Y copies the exact bytes, asking first; C's JSON
// holds no such character raw.
func TestCopyEscapesTheKey(t *testing.T) {
	t.Parallel()
	lk := "UNIQ#HANDLE#" + hostile
	d := newDriver(t, Options{Roles: roles(fake(acct("ACCT#h9", "h9@x.io", hostile), lock("UNIQ#EMAIL#h9@x.io", "ACCT#h9"), lock(lk, "ACCT#h9")))}, 200, 50)
	d.ready()
	d.selectRow(`UNIQ#HANDLE#\x1b[31m`)
	raw := func(s string) bool {
		for _, r := range s {
			if r != '\n' && model.Hidden(r) {
				return true
			}
		}
		return false
	}
	d.press("c")
	if d.clipboard != model.EscapeText(lk) || raw(d.clipboard) {
		t.Fatalf("c copied %q, want the key escaped", d.clipboard)
	}
	if s := fields(d.screen()); !strings.Contains(s, "copied the key escaped") || !strings.Contains(s, "Y copies its exact bytes") {
		t.Fatalf("the status does not say the key was escaped:\n%s", d.screen())
	}
	d.press("C")
	d.until("the item copied", func(m *Model) bool { return strings.Contains(d.screen(), "copied the item") })
	if raw(d.clipboard) || !strings.Contains(d.clipboard, `\u001b[31mRED`) || !strings.Contains(d.screen(), "escaped") {
		t.Fatalf("C copied %q:\n%s", d.clipboard, d.screen())
	}
	before := d.clipboard
	d.press("Y")
	if d.clipboard != before || !strings.Contains(fields(d.screen()), "Y again copies them") {
		t.Fatalf("Y copied the exact bytes without asking (%q):\n%s", d.clipboard, d.screen())
	}
	d.press("c", "Y") // another key between: it asks again
	if d.clipboard != model.EscapeText(lk) {
		t.Fatalf("Y after another key copied without asking: %q", d.clipboard)
	}
	d.press("Y")
	if d.clipboard != lk || !strings.Contains(d.screen(), "copied the exact bytes") {
		t.Fatalf("Y Y copied %q, want the exact bytes:\n%s", d.clipboard, d.screen())
	}
}

// TestPasteAfterDLandsInTheConfirmation: a paste right after d, while
// the plan is read, lands in the box of the key typed back, as keys do;
// it never sends.
func TestPasteAfterDLandsInTheConfirmation(t *testing.T) {
	t.Parallel()
	store := fakePlanted()
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	pinAccount(d, "gina@x.io")
	d.send(keyMsg("d"))
	d.send(tea.PasteMsg{Content: "ACCT#g7"})
	waitScreen(d, "the typed confirmation", "type ACCT#g7 to send")
	d.settle()
	if s := d.screen(); !strings.Contains(s, "to send: > ACCT#g7") || d.m.layers.write.Stage() != dialog.StagePreview {
		t.Fatalf("the paste after d is not in the box:\n%s", s)
	}
	if _, found, _ := store.Account(context.Background(), "ACCT#g7"); !found {
		t.Fatal("the paste sent the delete")
	}
}

// TestTypedConfirmationOfAHostileKey (issue 26): deleting an account
// whose key holds a control character asked for the key typed back, showed
// it escaped, and then wanted the raw byte, which neither a key nor a
// paste can give: the delete could never be confirmed. The box takes the
// key as it is shown (model.EscapeText), typed or pasted; the raw bytes
// are never needed, and a backslash shown as \\ is one backslash.
func TestTypedConfirmationOfAHostileKey(t *testing.T) {
	t.Parallel()
	id := "ACCT#e\x1b[1m\\x"
	shown := model.EscapeText(id) // ACCT#e\x1b[1m\\x
	for _, how := range []string{"typed", "pasted"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			store := fake(acct(id, "esc@x.io", "esc"), lock("UNIQ#EMAIL#esc@x.io", id), lock("UNIQ#HANDLE#esc", id))
			d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
			d.ready()
			pinAccount(d, "esc@x.io")
			d.press("d")
			waitScreen(d, "the typed confirmation", "type "+shown+" to send")
			// The key without its escapes is not the key.
			d.typeText("ACCT#e[1m")
			d.press("enter")
			if s := d.screen(); d.m.layers.write.Stage() != dialog.StagePreview || !strings.Contains(s, "exactly to send") {
				t.Fatalf("ACCT#e[1m sent the delete of %q:\n%s", id, s)
			}
			d.send(ctrlU())
			if how == "typed" {
				d.typeText(shown)
			} else {
				d.paste(shown)
			}
			d.press("enter")
			waitScreen(d, "the result", "COMMITTED")
			if _, found, _ := store.Account(context.Background(), id); found {
				t.Fatalf("%s is still in the table", shown)
			}
		})
	}
}
