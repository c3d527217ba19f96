package problems

import (
	"charm.land/bubbles/v2/key"

	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/ui/browser"
)

// KeyMap is the problems view's bindings: the list's, and what can be done
// with the selected problem.
type KeyMap struct {
	browser.KeyMap
	Enter key.Binding
	// Fix asks the write dialog for the selected problem; disable it where
	// writes are.
	Fix key.Binding
	// Marks mark problems and fix every marked one (F); disable
	// FixMarked where writes are.
	keymap.Marks
	// Sorts order the groups by kind, or the problems in each by value
	// or account.
	keymap.Sorts
}

// DefaultKeyMap returns the problems view's bindings, writes enabled.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		KeyMap: browser.DefaultKeyMap(),
		Enter:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "show its rows")),
		Fix:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fix problem")),
		Marks:  keymap.DefaultMarks(),
		Sorts:  keymap.DefaultSorts(),
	}
}

// ShortHelp is the help line's part for the problems view.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Enter, k.Fix, k.FixMarked}
}

// FullHelp is the help screen's part for the problems view, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return append(k.KeyMap.FullHelp(), []key.Binding{k.Enter, k.Fix}, []key.Binding{k.Mark, k.MarkAll, k.FixMarked, k.Sorts.Both()})
}
