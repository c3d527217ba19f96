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
	// Fix asks the write dialog to repair the selected lock's problem;
	// disable it where writes are.
	Fix key.Binding
	// Edit and Delete act on accounts, not here: pressed on a lock, the
	// status says where they do (help never offers them).
	Edit, Delete key.Binding
	// Marks mark locks with a problem and fix every marked one (F);
	// disable FixMarked where writes are.
	keymap.Marks
	// Sorts order the locks loaded by key, owner or expiry.
	keymap.Sorts
}

// DefaultKeyMap returns the locks view's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{KeyMap: browser.DefaultKeyMap(), Rows: keymap.DefaultRows(),
		Fix:    key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fix problem")),
		Edit:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "rename (in the accounts view)")),
		Delete: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete (in the accounts view)")),
		Marks:  keymap.DefaultMarks(),
		Sorts:  keymap.DefaultSorts(),
	}
}

// ShortHelp is the help line's part for the locks view.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Enter, k.BothProblems(), k.Fix, k.FixMarked}
}

// FullHelp is the help screen's part for the locks view, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return append(k.KeyMap.FullHelp(), []key.Binding{k.Enter, k.NextProblem, k.PrevProblem, k.Fix}, []key.Binding{k.Mark, k.MarkAll, k.FixMarked, k.Sorts.Both()})
}
