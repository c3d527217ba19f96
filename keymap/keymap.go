// Package keymap holds every key binding of the terminal UI; help is
// generated from them, so what help says is what the keys do.
package keymap

import "charm.land/bubbles/v2/key"

// KeyMap is the set of bindings of the terminal UI.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Enter, Back                             key.Binding
	NextView, Accounts, Locks, Problems     key.Binding
	Search, NextProblem, PrevProblem        key.Binding
	Reload, Help, Quit, Interrupt           key.Binding
	Edit, Delete, Fix, Add                  key.Binding
}

// Default returns the bindings locktable ships with: arrows and vim keys.
func Default() KeyMap {
	return KeyMap{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:      key.NewBinding(key.WithKeys("pgup", "ctrl+b", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown", "ctrl+f", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
		Top:         key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:      key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "end (keeps loading)")),
		Enter:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail / jump")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		NextView:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next view")),
		Accounts:    key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "accounts")),
		Locks:       key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "locks")),
		Problems:    key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "problems")),
		Search:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		NextProblem: key.NewBinding(key.WithKeys("n"), key.WithHelp("n/N", "next/prev problem")),
		PrevProblem: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous problem")),
		Reload:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload / retry")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		// Interrupt quits where q is text (the search field, the dialog).
		Interrupt: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Edit:      key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit/rename account")),
		Delete:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete account")),
		Fix:       key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fix problem")),
		Add:       key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "add account")),
	}
}

// ShortHelp is the help line that is always visible.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextView, k.Enter, k.Search, k.NextProblem, k.Fix, k.Reload, k.Help, k.Quit}
}

// FullHelp is the help screen, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Enter, k.Back, k.NextView, k.Accounts, k.Locks, k.Problems},
		{k.Search, k.NextProblem, k.PrevProblem, k.Reload, k.Help, k.Quit},
		{k.Edit, k.Delete, k.Fix, k.Add},
	}
}
