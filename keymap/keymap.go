// Package keymap holds the terminal UI's own bindings: those that work
// whatever view is shown. Each view and overlay declares its own bindings
// beside it (accounts.KeyMap, dialog.KeyMap ...); the help line and the
// help screen are made from the bindings of what is shown and these, so
// that what help says is what the keys do.
package keymap

import "charm.land/bubbles/v2/key"

// KeyMap is the root's bindings.
type KeyMap struct {
	NextView, PrevView, Accounts, Locks key.Binding
	// Items shows the items that are neither accounts nor locks.
	Problems, Items     key.Binding
	Search, Add, Reload key.Binding
	// Race opens a race: new accounts claim one value at once (writable
	// stores only).
	Race key.Binding
	// Undo takes back the session's last committed write (locktable
	// undo --last), previewed like any write.
	Undo key.Binding
	// WriteLog shows the writes log: every write of the session, any
	// committed one to undo.
	WriteLog key.Binding
	// Break opens the menu of mistakes to replay (the demo, a loopback
	// table).
	Break key.Binding
	// CopyKey and CopyItem copy the key, and the item as DynamoDB JSON,
	// of the detail shown to the clipboard (OSC 52: only on these keys),
	// control characters and bidi overrides escaped; CopyExact copies the
	// key's exact bytes, asking first when they hold such characters.
	CopyKey, CopyItem, CopyExact key.Binding
	Back, Help, Quit             key.Binding
	// Back goes back: it closes the detail, help, the dialog, a pin, or
	// leaves a list view for the accounts. Over the detail and help, q
	// goes back too: it quits only from a list view.
	// Interrupt quits where q is text: in the search field, the dialog.
	Interrupt key.Binding
	// Command opens the command line (:accounts, :find X, :table NAME ...).
	Command key.Binding
	// ClearFilter shows every row of the list again, when a filter (/)
	// keeps some.
	ClearFilter key.Binding
}

// Default returns the bindings locktable ships with.
func Default() KeyMap {
	return KeyMap{
		NextView:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next view")),
		PrevView:    key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous view")),
		Accounts:    key.NewBinding(key.WithKeys("1"), key.WithHelp("1", "accounts")),
		Locks:       key.NewBinding(key.WithKeys("2"), key.WithHelp("2", "locks")),
		Problems:    key.NewBinding(key.WithKeys("3"), key.WithHelp("3", "problems")),
		Items:       key.NewBinding(key.WithKeys("4"), key.WithHelp("4", "other items")),
		Search:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Add:         key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "add account")),
		Reload:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload / retry")),
		Race:        key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "race for a value")),
		Undo:        key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo a write")),
		WriteLog:    key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "writes log")),
		Break:       key.NewBinding(key.WithKeys("B"), key.WithHelp("B", "replay a mistake")),
		CopyKey:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy key")),
		CopyItem:    key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "copy item JSON")),
		CopyExact:   key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy key, exact bytes")),
		Back:        key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
		Help:        key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:        key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Interrupt:   key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Command:     key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command")),
		ClearFilter: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear the filter")),
	}
}

// ShortHelp is the root's part of the help line, after the view's, most
// wanted first (the line drops from the end): in a list, moving between
// views and searching come before copying.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.ClearFilter, k.Back, k.NextView, k.Search, k.Command, k.Reload, k.CopyKey, k.CopyItem, k.Help, k.Quit, k.Interrupt}
}

// DetailShortHelp is ShortHelp over a detail, where copying what it shows
// comes first.
func (k KeyMap) DetailShortHelp() []key.Binding {
	return []key.Binding{k.Back, k.CopyKey, k.CopyItem, k.NextView, k.Search, k.Reload, k.Help, k.Quit, k.Interrupt}
}

// FullHelp is the root's columns of the help screen, after the view's.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Back, k.NextView, k.PrevView, k.Accounts, k.Locks, k.Problems, k.Items},
		{k.Search, k.ClearFilter, k.Command, k.Add, k.Race, k.Undo, k.WriteLog, k.Break, k.Reload, k.CopyKey, k.CopyItem, k.CopyExact, k.Help, k.Quit},
	}
}

// Rows is what the list views that show problems do with their rows: open
// the selected one, and move between those that show a problem.
type Rows struct {
	Enter, NextProblem, PrevProblem key.Binding
}

// DefaultRows returns the bindings of rows.
func DefaultRows() Rows {
	return Rows{
		Enter:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "detail")),
		NextProblem: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next problem")),
		PrevProblem: key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous problem")),
	}
}

// BothProblems is NextProblem as a short help line shows it: one entry
// for n and N.
func (r Rows) BothProblems() key.Binding {
	b := r.NextProblem
	b.SetHelp("n/N", "next/prev problem")
	return b
}

// Marks are what the views that list problems (problems, locks) do with
// many rows at once: mark one, mark every row shown, fix every problem
// marked in one previewed batch.
type Marks struct {
	// Mark marks the selected row, or unmarks it.
	Mark key.Binding
	// MarkAll marks every row the view shows (under its filter, if any),
	// or, when all of them are marked, unmarks them.
	MarkAll key.Binding
	// FixMarked previews fixing every marked problem, one transaction
	// each, and sends them in order.
	FixMarked key.Binding
}

// DefaultMarks returns the bindings of marks.
func DefaultMarks() Marks {
	return Marks{
		Mark:      key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "mark row")),
		MarkAll:   key.NewBinding(key.WithKeys("ctrl+a"), key.WithHelp("ctrl+a", "mark all shown")),
		FixMarked: key.NewBinding(key.WithKeys("F"), key.WithHelp("F", "fix marked")),
	}
}

// Sorts are how a list view orders its loaded rows: sort by its next
// column (after the last, as read), and reverse the direction.
type Sorts struct {
	Sort, Reverse key.Binding
}

// DefaultSorts returns the bindings of sorts.
func DefaultSorts() Sorts {
	return Sorts{
		Sort:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort by the next column")),
		Reverse: key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "reverse the sort")),
	}
}

// Both is Sort as help lists it: one entry for the sort and its
// reverse, each key as bound.
func (s Sorts) Both() key.Binding {
	b := s.Sort
	b.SetHelp(s.Sort.Help().Key+"/"+s.Reverse.Help().Key, "sort by column/reverse")
	return b
}
