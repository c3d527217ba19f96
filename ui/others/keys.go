package others

import (
	"charm.land/bubbles/v2/key"

	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/ui/browser"
)

// KeyMap is the items view's bindings: the list's, and the detail of an
// item.
type KeyMap struct {
	browser.KeyMap
	Enter key.Binding
	// Sorts order the items loaded by key.
	keymap.Sorts
}

// DefaultKeyMap returns the items view's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{KeyMap: browser.DefaultKeyMap(), Enter: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail")),
		Sorts: keymap.DefaultSorts()}
}

// ShortHelp is the help line's part for the items view.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Enter} }

// FullHelp is the help screen's part for the items view, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return append(k.KeyMap.FullHelp(), []key.Binding{k.Enter, k.Sorts.Both()})
}
