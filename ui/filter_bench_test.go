package ui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// typeKey is the key press of one typed character.
func typeKey(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

// BenchmarkFilterKey is the CPU of a key typed into the filter field
// with 100k accounts (300k rows) loaded, Update and View: the first key
// judges every loaded row; a key typed on judges only the rows the
// filter kept (user9 keeps 1 in 10).
func BenchmarkFilterKey(b *testing.B) {
	for _, typed := range []string{"/", "/user9"} {
		m := loadedModel(b, 100_000)
		for _, r := range typed {
			next, _ := m.Update(typeKey(r))
			m = next.(Model)
		}
		b.Run("after="+typed, func(b *testing.B) {
			for b.Loop() {
				next, _ := m.Update(typeKey('9'))
				_ = next.(Model).View()
			}
		})
	}
}

// BenchmarkKeypressFiltered is BenchmarkKeypress with a filter kept on
// the list: moving among the rows it keeps costs what moving does.
func BenchmarkKeypressFiltered(b *testing.B) {
	m := loadedModel(b, 100_000)
	for _, k := range []tea.KeyPressMsg{typeKey('/'), typeKey('9'), {Code: tea.KeyEnter}} {
		next, _ := m.Update(k)
		m = next.(Model)
	}
	if m.views.accounts.Pager().Filter() != "9" {
		b.Fatalf("filter %q", m.views.accounts.Pager().Filter())
	}
	moveDownUp(b, m)
}

// moveDownUp presses j and k in turn, each with Update and View, as long
// as b runs.
func moveDownUp(b *testing.B, m Model) {
	down, up := typeKey('j'), typeKey('k')
	i := 0
	for b.Loop() {
		k := down
		if i%2 == 1 {
			k = up
		}
		i++
		next, _ := m.Update(k)
		m = next.(Model)
		_ = m.View()
	}
}
