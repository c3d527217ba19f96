package ui

import (
	"os"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestRemappedKeysReachTheWidgets: the config file's keys: remaps a
// widget's bindings as it does the root's: the new key works, the old one
// no longer does, help shows the new one, and a widget's binding is its
// own (the locks view still moves on down).
func TestRemappedKeysReachTheWidgets(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakePlanted()), Keys: map[string][]string{
		"accounts.down": {"x"}, "search.cancel": {"ctrl+g"}, "quit": {"Q"},
	}}, 120, 40)
	d.ready()
	first := d.selected()
	d.press("down", "j")
	if d.selected() != first {
		t.Fatalf("down and j moved the selection off %q, remapped to x", first)
	}
	d.press("x")
	if d.selected() == first {
		t.Fatalf("x did not move the selection off %q", first)
	}
	d.press("/")
	d.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	if !d.m.layers.search.Typing() {
		t.Fatal("esc closed the search field, remapped to ctrl+g")
	}
	if !strings.Contains(d.footer(), "ctrl+g clear the filter") {
		t.Errorf("help line %q, want ctrl+g to cancel", d.footer())
	}
	d.send(tea.KeyPressMsg{Code: 'g', Mod: tea.ModCtrl})
	if d.m.layers.search.Typing() {
		t.Fatal("ctrl+g did not close the search field")
	}
	d.press("2")
	d.until("the locks", func(m *Model) bool { return !m.views.locks.Loading() })
	first = d.selected()
	d.press("down")
	if d.selected() == first {
		t.Error("accounts.down remapped the locks view's down too")
	}
	d.press("q")
	if d.quit {
		t.Fatal("q quit, remapped to Q")
	}
	d.press("Q")
	if !d.quit {
		t.Fatal("Q did not quit")
	}
}

// TestBindingNames: every binding a widget takes has a name, the root's
// unqualified as they were, and no name is given twice.
func TestBindingNames(t *testing.T) {
	names := BindingNames()
	for _, want := range []string{"quit", "next-view", "accounts.down", "accounts.edit", "locks.next-problem",
		"problems.fix", "detail.close", "dialog.save", "dialog.send", "search.cancel", "mistakes.run", "help.page-down", "picker.open"} {
		if !slices.Contains(names, want) {
			t.Errorf("no binding %q in %v", want, names)
		}
	}
	if c := slices.Compact(slices.Sorted(slices.Values(names))); len(c) != len(names) {
		t.Errorf("a name given twice: %v", names)
	}
	doc, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		row, b := "| (none) |", name
		if w, rest, ok := strings.Cut(name, "."); ok {
			row, b = "| `"+w+".`", rest
		}
		if !slices.ContainsFunc(strings.Split(string(doc), "\n"), func(l string) bool {
			return strings.HasPrefix(l, row) && strings.Contains(l, "`"+b+"`")
		}) {
			t.Errorf("docs/configuration.md's table of bindings lacks %s", name)
		}
	}
	k := RemappedKeys(map[string][]string{"picker.open": {"o"}, "nosuch": {"z"}})
	if !slices.Equal(k.Picker.Open.Keys(), []string{"o"}) || k.Picker.Open.Help().Key != "o" {
		t.Errorf("picker.open: keys %v, help %q", k.Picker.Open.Keys(), k.Picker.Open.Help().Key)
	}
}
