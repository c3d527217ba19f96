package browser

import "charm.land/bubbles/v2/key"

// KeyMap is the list's navigation.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

// DefaultKeyMap is arrows and vim keys, the mouse wheel aside.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "end (keeps loading)")),
	}
}

// ShortHelp is empty: moving needs no reminder on the help line.
func (k KeyMap) ShortHelp() []key.Binding { return nil }

// FullHelp is the navigation, one column.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}}
}
