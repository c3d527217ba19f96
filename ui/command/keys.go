package command

import "charm.land/bubbles/v2/key"

// KeyMap is the command line's bindings; every other key is text.
type KeyMap struct {
	Run, Cancel, Complete, Older, Newer key.Binding
}

// DefaultKeyMap returns the command line's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Run:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "run")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Complete: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		Older:    key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", "history")),
		Newer:    key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "newer")),
	}
}

// ShortHelp is the help line while the line is open.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Run, k.Complete, k.Older, k.Cancel}
}

// FullHelp is the line's bindings, one column.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Run, k.Complete, k.Older, k.Newer, k.Cancel}}
}
