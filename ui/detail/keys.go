package detail

import (
	"charm.land/bubbles/v2/key"

	"github.com/locktable/locktable/ui/browser"
)

// KeyMap is the detail's scrolling, reading more of the partition it
// lists, and closing it.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Left, Right key.Binding
	Top, Bottom                             key.Binding
	More                                    key.Binding
	Close                                   key.Binding
}

// DefaultKeyMap scrolls as lists move (browser.DefaultKeyMap), and esc
// closes.
func DefaultKeyMap() KeyMap {
	nav := browser.DefaultKeyMap()
	return KeyMap{
		Up: nav.Up, Down: nav.Down, PageUp: nav.PageUp, PageDown: nav.PageDown,
		Top:    nav.Top,
		Bottom: key.NewBinding(key.WithKeys(nav.Bottom.Keys()...), key.WithHelp(nav.Bottom.Help().Key, "end")),
		Left:   key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "left")),
		Right:  key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "right")),
		More:   key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "more of the partition")),
		Close:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// ShortHelp is closing, and reading more of the partition.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Close, k.More} }

// FullHelp is scrolling, then reading more and closing.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Left, k.Right}, {k.More, k.Close}}
}
