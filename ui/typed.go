package ui

import (
	"slices"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/ui/textfield"
)

// textKeys are a text field's bindings, some with alt (alt+b a word
// back): those keys are the field's, not an esc and a key.
var textKeys = textfield.Keys()

// escThen splits a key the terminal's input reader merged with an esc
// pressed just before it: esc followed within its timeout by another key
// reads as that key with alt (two quick esc read as alt+esc). No binding
// takes alt unless the config's keys: binds one (altBound), and a text
// field only the word keys, so such a key is the esc and the key, in that
// order. ok is false for any other key.
func escThen(k tea.KeyPressMsg, altBound bool) (esc, next tea.KeyPressMsg, ok bool) {
	if altBound || k.Mod&tea.ModAlt == 0 || k.Mod&^(tea.ModAlt|tea.ModShift) != 0 ||
		key.Matches(k, textKeys.WordForward, textKeys.WordBackward, textKeys.DeleteWordForward, textKeys.DeleteWordBackward) {
		return k, k, false
	}
	next = k
	next.Mod &^= tea.ModAlt
	if next.Text == "" && next.Mod == 0 && unicode.IsPrint(next.Code) {
		next.Text = string(next.Code)
	} else if next.Text == "" && next.Mod == tea.ModShift && unicode.IsPrint(next.ShiftedCode) {
		next.Text = string(next.ShiftedCode)
	}
	return tea.KeyPressMsg{Code: tea.KeyEscape}, next, true
}

// bindsAlt reports whether a remap binds a key with alt.
func bindsAlt(remap map[string][]string) bool {
	for _, keys := range remap {
		for _, k := range keys {
			if strings.Contains(k, "alt+") {
				return true
			}
		}
	}
	return false
}

// onKeys handles a key as typed: an esc the input reader merged with the
// key after it is handled first, then that key.
func (m Model) onKeys(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	esc, next, ok := escThen(k, m.setup.altBound)
	if !ok {
		return m.onKey(k)
	}
	after, cmd := m.onKey(esc)
	after, ncmd := after.(Model).onKeys(next)
	return after, tea.Batch(cmd, ncmd)
}

// taker is a list view that says which of its keys the selected row takes.
type taker interface{ Takes(key.Binding) bool }

// rowWrites are the write keys of the view shown that act on its selected
// row: the help line offers only those.
func (m Model) rowWrites() []key.Binding {
	t, ok := m.list().(taker)
	if !ok {
		return m.writeKeys.byView[m.views.shown]
	}
	return slices.DeleteFunc(slices.Clone(m.writeKeys.byView[m.views.shown]), func(b key.Binding) bool { return !t.Takes(b) })
}
