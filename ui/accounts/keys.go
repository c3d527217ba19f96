package accounts

import (
	"charm.land/bubbles/v2/key"

	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/ui/browser"
)

// KeyMap is the accounts view's bindings: the list's, and what can be done
// with the selected row.
type KeyMap struct {
	browser.KeyMap
	keymap.Rows
	Unpin key.Binding
	// Stop stops reading every account (G, n), while that runs.
	Stop key.Binding
	// Edit, Delete and Fix ask the write dialog for the selected row;
	// disable them where writes are.
	Edit, Delete, Fix key.Binding
	// Sorts order the accounts loaded, each with its locks under it.
	keymap.Sorts
}

// DefaultKeyMap returns the accounts view's bindings, writes enabled.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		KeyMap: browser.DefaultKeyMap(),
		Rows:   keymap.DefaultRows(),
		Unpin:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "unpin")),
		Stop:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop reading")),
		Edit:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit/rename account")),
		Delete: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete account")),
		Fix:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fix problem")),
		Sorts:  keymap.DefaultSorts(),
	}
}

// ShortHelp is the help line's part for the accounts view.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Enter, k.BothProblems(), k.Stop, k.Unpin, k.Fix}
}

// FullHelp is the help screen's part for the accounts view, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return append(k.KeyMap.FullHelp(),
		[]key.Binding{k.Enter, k.NextProblem, k.PrevProblem, k.Stop, k.Unpin, k.Edit, k.Delete, k.Fix, k.Sorts.Both()})
}
