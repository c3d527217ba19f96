// Package textfield is what every one-line text field of the UI shares (the
// / filter, the : command line, the write form's fields, a typed
// confirmation): the same editing keys, and paste. A paste is text put
// where the cursor is, whole or not at all: one that spans lines, or
// would pass the field's limit, is refused with the reason, never cut;
// an enter inside it is text, never a key.
package textfield

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
)

// Keys are the editing keys of every field: bubbles' textinput bindings
// without its suggestions (up, down and tab are the widgets' own) and
// without ctrl+v, which would read the clipboard outside the terminal.
func Keys() textinput.KeyMap {
	km := textinput.DefaultKeyMap()
	km.AcceptSuggestion.SetEnabled(false)
	km.NextSuggestion.SetEnabled(false)
	km.PrevSuggestion.SetEnabled(false)
	km.Paste.SetEnabled(false)
	return km
}

// New returns a field with the editing keys.
func New() textinput.Model {
	in := textinput.New()
	in.KeyMap = Keys()
	return in
}

// Editing are the bindings that edit a field's text or move along it.
func Editing() []key.Binding {
	km := Keys()
	return []key.Binding{km.CharacterForward, km.CharacterBackward, km.WordForward, km.WordBackward,
		km.DeleteWordBackward, km.DeleteWordForward, km.DeleteAfterCursor, km.DeleteBeforeCursor,
		km.DeleteCharacterBackward, km.DeleteCharacterForward, km.LineStart, km.LineEnd}
}

// Edits reports whether the key named name ("ctrl+u") is an editing key:
// where a field is open, no other binding may take it.
func Edits(name string) bool {
	for _, b := range Editing() {
		if slices.Contains(b.Keys(), name) {
			return true
		}
	}
	return false
}

// Paste puts text at in's cursor as it is, or returns why not (nothing is
// inserted then): a field takes one line, no character the terminal
// would act on or hide (what model.Printable would escape: a paste is
// shown as it is), and no more than its limit.
func Paste(in *textinput.Model, text string) error {
	if err := oneLine(text); err != nil {
		return err
	}
	if !utf8.ValidString(text) {
		return errors.New("not pasted: the text is not valid UTF-8")
	}
	for _, r := range text {
		if model.Hidden(r) || r == utf8.RuneError {
			return fmt.Errorf("not pasted: the text holds %s, which this field does not take", model.Quote(string(r)))
		}
	}
	if model.Printable(text) != text {
		return fmt.Errorf("not pasted: the text holds a run of more than %d combining marks", model.MaxCombiningMarks)
	}
	return insert(in, text)
}

// PasteEscaped puts text at in's cursor written as the field holds its
// value (model.EscapeText: a control character as its escape, a
// backslash doubled), or returns why not, as Paste.
func PasteEscaped(in *textinput.Model, text string) error {
	if err := oneLine(text); err != nil {
		return err
	}
	return insert(in, model.EscapeText(text))
}

// oneLine refuses text of more than one line (CR LF, LF and CR each
// break one), and an empty paste (the terminal's reader drops the escape
// sequences in a paste: one of only those arrives empty), so that a paste
// is always answered.
func oneLine(text string) error {
	if text == "" {
		return errors.New("not pasted: the paste held no text")
	}
	lf := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	if breaks := strings.Count(lf, "\n"); breaks > 0 {
		return fmt.Errorf("not pasted: the text is %d lines, and this field takes one (an enter in a paste is text, never a key)", breaks+1)
	}
	return nil
}

// insert puts text, free of what textinput would drop or change, at the
// cursor, whole or not at all.
func insert(in *textinput.Model, text string) error {
	n := utf8.RuneCountInString(text)
	if room := in.CharLimit - utf8.RuneCountInString(in.Value()); in.CharLimit > 0 && n > room {
		return fmt.Errorf("not pasted: %d characters, and this field has room for %d more (it takes %d)", n, max(room, 0), in.CharLimit)
	}
	if !in.Focused() {
		return errors.New("not pasted: no field has the cursor")
	}
	*in, _ = in.Update(tea.PasteMsg{Content: text})
	return nil
}
