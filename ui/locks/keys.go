package locks

import (
	"charm.land/bubbles/v2/key"

	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/ui/browser"
)

// KeyMap is the locks view's bindings: the list's, the detail of a lock,
// and moving between problems.
type KeyMap struct {
	browser.KeyMap
	keymap.Rows
}

// DefaultKeyMap returns the locks view's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{KeyMap: browser.DefaultKeyMap(), Rows: keymap.DefaultRows()}
}

// ShortHelp is the help line's part for the locks view.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Enter, k.BothProblems()} }

// FullHelp is the help screen's part for the locks view, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return append(k.KeyMap.FullHelp(), []key.Binding{k.Enter, k.NextProblem, k.PrevProblem})
}
