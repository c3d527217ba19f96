// Package styles holds the terminal UI's styles, built once for the
// terminal's background; there are no package-level style globals.
package styles

import (
	"charm.land/lipgloss/v2"

	"github.com/locktable/locktable/model"
)

// Styles are every style the UI uses.
type Styles struct {
	Title, Header, Dim, Tab, ActiveTab lipgloss.Style
	Selected, Group, Key, Attr, Error  lipgloss.Style
	Status                             map[model.LockStatus]lipgloss.Style
	Kind                               map[model.ProblemKind]lipgloss.Style
}

// New returns the styles for a dark or light terminal background. Colour
// only ever repeats what words already say (NO_COLOR drops it entirely).
func New(isDark bool) Styles {
	ld := lipgloss.LightDark(isDark)
	red := ld(lipgloss.Color("#C4161C"), lipgloss.Color("#FF6B6B"))
	orange := ld(lipgloss.Color("#B35900"), lipgloss.Color("#FFB454"))
	magenta := ld(lipgloss.Color("#A3189B"), lipgloss.Color("#F07DE6"))
	green := ld(lipgloss.Color("#1A7F37"), lipgloss.Color("#7EE787"))
	dim := ld(lipgloss.Color("#6E7781"), lipgloss.Color("#8B949E"))
	accent := ld(lipgloss.Color("#0550AE"), lipgloss.Color("#79C0FF"))
	selBg := ld(lipgloss.Color("#DDF4FF"), lipgloss.Color("#1F3A5F"))

	s := Styles{
		Title:     lipgloss.NewStyle().Bold(true).Foreground(accent),
		Header:    lipgloss.NewStyle(),
		Dim:       lipgloss.NewStyle().Foreground(dim),
		Tab:       lipgloss.NewStyle().Foreground(dim),
		ActiveTab: lipgloss.NewStyle().Bold(true).Underline(true),
		Selected:  lipgloss.NewStyle().Background(selBg).Bold(true),
		Group:     lipgloss.NewStyle().Bold(true).Foreground(magenta),
		Key:       lipgloss.NewStyle(),
		Attr:      lipgloss.NewStyle().Foreground(dim),
		Error:     lipgloss.NewStyle().Foreground(red).Bold(true),
	}
	s.Status = map[model.LockStatus]lipgloss.Style{
		model.LockOK:        lipgloss.NewStyle().Foreground(green),
		model.LockNone:      lipgloss.NewStyle().Foreground(dim),
		model.LockMissing:   lipgloss.NewStyle().Foreground(red).Bold(true),
		model.LockOrphan:    lipgloss.NewStyle().Foreground(magenta).Bold(true),
		model.LockForeign:   lipgloss.NewStyle().Foreground(orange).Bold(true),
		model.LockDuplicate: lipgloss.NewStyle().Foreground(orange).Bold(true),
		model.LockInvalid:   lipgloss.NewStyle().Foreground(red).Bold(true),
	}
	s.Kind = map[model.ProblemKind]lipgloss.Style{
		model.MissingLock:    s.Status[model.LockMissing],
		model.OrphanLock:     s.Status[model.LockOrphan],
		model.ForeignLock:    s.Status[model.LockForeign],
		model.DuplicateValue: s.Status[model.LockDuplicate],
		model.InvalidValue:   s.Status[model.LockInvalid],
	}
	return s
}
