package picker

import (
	"context"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func press(t *testing.T, m Model, keys ...tea.KeyPressMsg) Model {
	t.Helper()
	for _, k := range keys {
		next, _ := m.Update(k)
		m = next.(Model)
	}
	return m
}

func typed(s string) []tea.KeyPressMsg {
	var out []tea.KeyPressMsg
	for _, r := range s {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

// TestPickerFiltersAndOpens: typing filters the names, the arrows move,
// enter chooses; esc quits choosing nothing.
func TestPickerFiltersAndOpens(t *testing.T) {
	m := New(context.Background(), "http://127.0.0.1:8000", []string{"accounts-a", "devices", "accounts-b"}, nil, DefaultKeyMap())
	m = press(t, m, typed("acc")...)
	if v := m.View().Content; !strings.Contains(v, "2 of 3 tables") || strings.Contains(v, "devices") {
		t.Fatalf("filtered view:\n%s", v)
	}
	m = press(t, m, tea.KeyPressMsg{Code: tea.KeyDown}, tea.KeyPressMsg{Code: tea.KeyEnter})
	if m.Chosen() != "accounts-b" {
		t.Fatalf("chosen %q, want accounts-b", m.Chosen())
	}
	q := press(t, New(context.Background(), "x", []string{"t1"}, nil, DefaultKeyMap()), tea.KeyPressMsg{Code: tea.KeyEscape})
	if q.Chosen() != "" {
		t.Fatalf("esc chose %q", q.Chosen())
	}
}

// TestPickerSaysWhyThereIsNothing: an endpoint without tables gets the
// DynamoDB Local -sharedDb explanation, and counts show when they come.
func TestPickerSaysWhyThereIsNothing(t *testing.T) {
	m := New(context.Background(), "http://127.0.0.1:8000", nil, nil, DefaultKeyMap())
	if v := m.View().Content; !strings.Contains(v, "-sharedDb") || !strings.Contains(v, "locktable seed") {
		t.Fatalf("empty view:\n%s", v)
	}
	m = New(context.Background(), "x", []string{"t1"}, func(context.Context, string) (int64, error) { return 42, nil }, DefaultKeyMap())
	next, _ := m.Update(m.Init()())
	if v := next.(Model).View().Content; !strings.Contains(v, "~42 items") {
		t.Fatalf("no count:\n%s", v)
	}
	if !key.Matches(tea.KeyPressMsg{Code: tea.KeyEnter}, DefaultKeyMap().Open) {
		t.Fatal("enter does not open")
	}
}

// TestPickerTakesAPaste (issue 26): a paste into the filter was dropped;
// it filters as typed text does, and one of two lines is refused whole,
// its enter no key.
func TestPickerTakesAPaste(t *testing.T) {
	m := New(context.Background(), "http://127.0.0.1:8000", []string{"accounts-a", "devices", "accounts-b"}, nil, DefaultKeyMap())
	next, _ := m.Update(tea.PasteMsg{Content: "dev\n"})
	m = next.(Model)
	if v := m.View().Content; m.Chosen() != "" || !strings.Contains(v, "not pasted: the text is 2 lines") || !strings.Contains(v, "accounts-a") {
		t.Fatalf("a paste of two lines was taken, or chose a table:\n%s", v)
	}
	next, _ = m.Update(tea.PasteMsg{Content: "dev"})
	m = next.(Model)
	if v := m.View().Content; strings.Contains(v, "accounts-a") || !strings.Contains(v, "devices") {
		t.Fatalf("the paste did not filter:\n%s", v)
	}
}
