package keymap

import (
	"slices"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func TestRemap(t *testing.T) {
	km := Default()
	if !slices.Contains(Names(), "next-view") || !slices.Contains(Names(), "quit") {
		t.Fatalf("names %v", Names())
	}
	if !km.Remap("quit", []string{"x", "ctrl+q"}) {
		t.Fatal("quit not remapped")
	}
	if !key.Matches(tea.KeyPressMsg{Code: 'x', Text: "x"}, km.Quit) || key.Matches(tea.KeyPressMsg{Code: 'q', Text: "q"}, km.Quit) {
		t.Fatalf("quit keys %v", km.Quit.Keys())
	}
	if km.Quit.Help().Key != "x/ctrl+q" {
		t.Errorf("help key %q", km.Quit.Help().Key)
	}
	if km.Remap("nosuch", []string{"z"}) {
		t.Error("an unknown binding remapped")
	}
}
