// Package styles holds the terminal UI's styles, built once for the
// terminal's background; there are no package-level style globals.
package styles

import (
	"strings"
	"sync"

	"charm.land/lipgloss/v2"

	"github.com/locktable/locktable/model"
)

// Styles are every style the UI uses.
type Styles struct {
	Title, Header, Dim, Tab, ActiveTab Style
	Selected, Group, Key, Attr, Error  Style
	Status                             map[model.LockStatus]Style
	Kind                               map[model.ProblemKind]Style
}

// Style is an inline style (colours and attributes, no layout) whose
// escape sequences are rendered once: lipgloss would work them out again
// for every string, and a screen of rows renders a few hundred.
type Style struct {
	lipgloss.Style
	pre, post string
}

func inline(s lipgloss.Style) Style {
	pre, post, _ := strings.Cut(s.Render("\x00"), "\x00")
	return Style{Style: s, pre: pre, post: post}
}

// Render styles one line of text.
func (s Style) Render(text string) string {
	if text == "" || s.pre == "" {
		return text
	}
	return s.pre + text + s.post
}

// Paint is a Style's escape sequences alone: small to keep with each row
// of a screen, where a Style (a whole lipgloss.Style) is not.
type Paint struct{ pre, post string }

// Paint returns the style's escape sequences.
func (s Style) Paint() Paint { return Paint{s.pre, s.post} }

// Render styles one line of text.
func (p Paint) Render(text string) string {
	if text == "" || p.pre == "" {
		return text
	}
	return p.pre + text + p.post
}

// New returns the styles for a dark or light terminal background. Colour
// only ever repeats what words already say (NO_COLOR drops it entirely).
func New(isDark bool) Styles {
	if isDark {
		return dark()
	}
	return light()
}

// The two sets are built once each: every Style renders a sample to learn
// its escape sequences, which is a good part of the UI's start.
var (
	dark  = sync.OnceValue(func() Styles { return build(true) })
	light = sync.OnceValue(func() Styles { return build(false) })
)

// build makes the set for a dark or a light background; the sets are
// never changed after, so every model may share one.
func build(isDark bool) Styles {
	ld := lipgloss.LightDark(isDark)
	red := ld(lipgloss.Color("#C4161C"), lipgloss.Color("#FF6B6B"))
	orange := ld(lipgloss.Color("#B35900"), lipgloss.Color("#FFB454"))
	magenta := ld(lipgloss.Color("#A3189B"), lipgloss.Color("#F07DE6"))
	green := ld(lipgloss.Color("#1A7F37"), lipgloss.Color("#7EE787"))
	dim := ld(lipgloss.Color("#6E7781"), lipgloss.Color("#8B949E"))
	accent := ld(lipgloss.Color("#0550AE"), lipgloss.Color("#79C0FF"))
	selBg := ld(lipgloss.Color("#DDF4FF"), lipgloss.Color("#1F3A5F"))

	st := lipgloss.NewStyle
	s := Styles{
		Title:     inline(st().Bold(true).Foreground(accent)),
		Header:    inline(st()),
		Dim:       inline(st().Foreground(dim)),
		Tab:       inline(st().Foreground(dim)),
		ActiveTab: inline(st().Bold(true).Underline(true)),
		Selected:  inline(st().Background(selBg).Bold(true)),
		Group:     inline(st().Bold(true).Foreground(magenta)),
		Key:       inline(st()),
		Attr:      inline(st().Foreground(dim)),
		Error:     inline(st().Foreground(red).Bold(true)),
	}
	s.Status = map[model.LockStatus]Style{
		model.LockOK:        inline(st().Foreground(green)),
		model.LockNone:      inline(st().Foreground(dim)),
		model.LockMissing:   inline(st().Foreground(red).Bold(true)),
		model.LockOrphan:    inline(st().Foreground(magenta).Bold(true)),
		model.LockForeign:   inline(st().Foreground(orange).Bold(true)),
		model.LockDuplicate: inline(st().Foreground(orange).Bold(true)),
		model.LockInvalid:   inline(st().Foreground(red).Bold(true)),
		model.LockExpired:   inline(st().Foreground(magenta).Bold(true)),
		model.LockExpiring:  inline(st().Foreground(orange).Bold(true)),
		model.LockReserved:  inline(st().Foreground(accent)),
		model.LockUnread:    inline(st().Foreground(dim)),
	}
	s.Kind = map[model.ProblemKind]Style{
		model.MissingLock:    s.Status[model.LockMissing],
		model.OrphanLock:     s.Status[model.LockOrphan],
		model.ForeignLock:    s.Status[model.LockForeign],
		model.DuplicateValue: s.Status[model.LockDuplicate],
		model.InvalidValue:   s.Status[model.LockInvalid],
		model.ExpiredLock:    s.Status[model.LockExpired],
		model.ExpiringLock:   s.Status[model.LockExpiring],
	}
	return s
}
