package ui

import (
	"charm.land/bubbles/v2/key"

	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/command"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/dialog"
	"github.com/locktable/locktable/ui/locks"
	"github.com/locktable/locktable/ui/mistakes"
	"github.com/locktable/locktable/ui/others"
	"github.com/locktable/locktable/ui/picker"
	"github.com/locktable/locktable/ui/problems"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/writelog"
)

// Keys are every binding of the terminal UI a user can press, by what
// takes them. The config file's keys: remaps them by name (BindingNames):
// the root's unqualified (quit, next-view), a widget's under its field's
// name (accounts.down, dialog.save). Each widget's bindings are its own:
// remapping accounts.down leaves locks.down as it is.
type Keys struct {
	Root     keymap.KeyMap `keys:""`
	Accounts accounts.KeyMap
	Locks    locks.KeyMap
	Problems problems.KeyMap
	Detail   detail.KeyMap
	Items    others.KeyMap
	// Dialog is the write dialog's, the race's board among them.
	Dialog   dialog.KeyMap
	Search   search.KeyMap
	Command  command.KeyMap
	Mistakes mistakes.KeyMap
	WriteLog writelog.KeyMap
	Help     HelpKeyMap
	// Picker is the table picker's, before the UI opens on a table.
	Picker picker.KeyMap
}

// HelpKeyMap pages the help screen.
type HelpKeyMap struct {
	Up, Down, PageUp, PageDown key.Binding
}

// defaultHelpKeyMap pages as lists move (browser.DefaultKeyMap).
func defaultHelpKeyMap() HelpKeyMap {
	nav := browser.DefaultKeyMap()
	return HelpKeyMap{Up: nav.Up, Down: nav.Down, PageUp: nav.PageUp, PageDown: nav.PageDown}
}

// DefaultKeys returns the bindings locktable ships with.
func DefaultKeys() Keys {
	return Keys{
		Root:     keymap.Default(),
		Accounts: accounts.DefaultKeyMap(),
		Locks:    locks.DefaultKeyMap(),
		Problems: problems.DefaultKeyMap(),
		Detail:   detail.DefaultKeyMap(),
		Items:    others.DefaultKeyMap(),
		Dialog:   dialog.DefaultKeyMap(),
		Search:   search.DefaultKeyMap(),
		Command:  command.DefaultKeyMap(),
		Mistakes: mistakes.DefaultKeyMap(),
		WriteLog: writelog.DefaultKeyMap(),
		Help:     defaultHelpKeyMap(),
		Picker:   picker.DefaultKeyMap(),
	}
}

// BindingNames are the names the config file's keys: may remap.
func BindingNames() []string {
	k := DefaultKeys()
	return keymap.Names(&k)
}

// RemappedKeys returns the default keys with those of remap (binding
// name to keys, as in the config file) replaced; a name that is not a
// binding is ignored, as the config file has already refused it.
func RemappedKeys(remap map[string][]string) Keys {
	k := DefaultKeys()
	for name, keys := range remap {
		keymap.Remap(&k, name, keys)
	}
	return k
}
