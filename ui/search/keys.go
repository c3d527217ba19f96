package search

import "charm.land/bubbles/v2/key"

// KeyMap is the filter field's bindings; every other key is text.
type KeyMap struct {
	Search, Cancel key.Binding
}

// DefaultKeyMap returns the search field's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Search: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep the filter")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear the filter")),
	}
}

// ShortHelp is the help line while the field is open.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Search, k.Cancel} }

// FullHelp is the field's bindings, one column.
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
