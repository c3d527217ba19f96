package keymap

import (
	"slices"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func TestRemap(t *testing.T) {
	km := Default()
	if !slices.Contains(Names(&km), "next-view") || !slices.Contains(Names(&km), "quit") {
		t.Fatalf("names %v", Names(&km))
	}
	if !Remap(&km, "quit", []string{"x", "ctrl+q"}) {
		t.Fatal("quit not remapped")
	}
	if !key.Matches(tea.KeyPressMsg{Code: 'x', Text: "x"}, km.Quit) || key.Matches(tea.KeyPressMsg{Code: 'q', Text: "q"}, km.Quit) {
		t.Fatalf("quit keys %v", km.Quit.Keys())
	}
	if km.Quit.Help().Key != "x/ctrl+q" || km.Quit.Help().Desc != "quit" {
		t.Errorf("help %+v", km.Quit.Help())
	}
	if Remap(&km, "nosuch", []string{"z"}) {
		t.Error("an unknown binding remapped")
	}
	if Remap(&km, "help", nil) || !km.Help.Enabled() || km.Help.Keys()[0] != "?" {
		t.Errorf("remapped to no keys: %v", km.Help.Keys())
	}
}

// TestNamesNest: a struct field's bindings are named under it, an
// embedded one's or a `keys:""` field's as the outer struct's.
func TestNamesNest(t *testing.T) {
	var all struct {
		Root KeyMap `keys:""`
		Rows
		List struct {
			PageDown key.Binding
			hidden   key.Binding
		}
	}
	all.Root, all.Rows = Default(), DefaultRows()
	names := Names(&all)
	for _, want := range []string{"quit", "copy-item", "next-problem", "list.page-down"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %q in %v", want, names)
		}
	}
	for _, not := range []string{"root.quit", "rows.enter", "list.hidden"} {
		if slices.Contains(names, not) {
			t.Errorf("%q in %v", not, names)
		}
	}
	if !Remap(&all, "list.page-down", []string{"f"}) || !slices.Equal(all.List.PageDown.Keys(), []string{"f"}) {
		t.Errorf("list.page-down: %v", all.List.PageDown.Keys())
	}
	_ = all.List.hidden
}
