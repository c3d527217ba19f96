package detail

import (
	"charm.land/bubbles/v2/key"

	"github.com/locktable/locktable/ui/browser"
)

// KeyMap is the detail's scrolling, and closing it.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Left, Right key.Binding
	Close                                   key.Binding
}

// DefaultKeyMap scrolls as lists move (browser.DefaultKeyMap), and esc
// closes.
func DefaultKeyMap() KeyMap {
	nav := browser.DefaultKeyMap()
	return KeyMap{
		Up: nav.Up, Down: nav.Down, PageUp: nav.PageUp, PageDown: nav.PageDown,
		Left:  key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "left")),
		Right: key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "right")),
		Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// ShortHelp is closing.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Close} }

// FullHelp is scrolling, then closing.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Left, k.Right}, {k.Close}}
}
