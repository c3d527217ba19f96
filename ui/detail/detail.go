// Package detail shows one item in full as DynamoDB JSON, scrollable.
package detail

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
)

// Model is the detail view: a title and scrollable text.
type Model struct {
	Title string
	vp    viewport.Model
}

// New returns an empty detail view whose scrolling follows the key map.
func New(km keymap.KeyMap) Model {
	vp := viewport.New()
	vp.KeyMap = viewport.KeyMap{
		PageDown:     km.PageDown,
		PageUp:       km.PageUp,
		HalfPageUp:   key.NewBinding(key.WithDisabled()),
		HalfPageDown: key.NewBinding(key.WithDisabled()),
		Up:           km.Up,
		Down:         km.Down,
		Left:         key.NewBinding(key.WithKeys("left", "h")),
		Right:        key.NewBinding(key.WithKeys("right", "l")),
	}
	vp.SoftWrap = true
	return Model{vp: vp}
}

// Show sets the title and the text lines; both must already be printable.
func (m *Model) Show(title string, lines []string) {
	m.Title = title
	m.vp.SetContentLines(lines)
	m.vp.GotoTop()
}

// SetSize sets the text area's size in cells.
func (m *Model) SetSize(w, h int) {
	m.vp.SetWidth(w)
	m.vp.SetHeight(h)
}

// Update scrolls.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	m.vp, cmd = m.vp.Update(msg)
	return m, cmd
}

// View renders the visible text.
func (m Model) View() string { return m.vp.View() }

// ItemLines renders an item as indented DynamoDB JSON, one line each.
// Strings are shown through model.Printable rather than JSON escaping:
// encoding/json would pass bidi overrides through raw and turn invalid
// UTF-8 into U+FFFD, where a person needs to see \x1b, \xff and \u202e.
func ItemLines(it model.Item) []string {
	var lines []string
	writeMap(&lines, "", "", it, "")
	return lines
}

// writeMap appends a map of attributes, opened after prefix and closed
// with suffix.
func writeMap(lines *[]string, indent, prefix string, m map[string]model.Value, suffix string) {
	if len(m) == 0 {
		*lines = append(*lines, indent+prefix+"{}"+suffix)
		return
	}
	*lines = append(*lines, indent+prefix+"{")
	names := model.Item(m).SortedNames()
	for i, name := range names {
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		writeValue(lines, indent+"  ", model.Quote(name)+": ", m[name], sep)
	}
	*lines = append(*lines, indent+"}"+suffix)
}

// writeValue appends one value as {"TYPE": ...}.
func writeValue(lines *[]string, indent, prefix string, v model.Value, suffix string) {
	tag := model.Quote(v.Kind.String()) + ": "
	switch v.Kind {
	case model.KindS, model.KindN:
		*lines = append(*lines, indent+prefix+"{"+tag+model.Quote(v.S)+"}"+suffix)
	case model.KindM:
		*lines = append(*lines, indent+prefix+"{")
		writeMap(lines, indent+"  ", tag, v.Map, "")
		*lines = append(*lines, indent+"}"+suffix)
	case model.KindL:
		if len(v.List) == 0 {
			*lines = append(*lines, indent+prefix+"{"+tag+"[]}"+suffix)
			return
		}
		*lines = append(*lines, indent+prefix+"{"+tag+"[")
		for i, e := range v.List {
			sep := ","
			if i == len(v.List)-1 {
				sep = ""
			}
			writeValue(lines, indent+"  ", "", e, sep)
		}
		*lines = append(*lines, indent+"]}"+suffix)
	case model.KindSS, model.KindNS:
		q := make([]string, len(v.Strings))
		for i, s := range v.Strings {
			q[i] = model.Quote(s)
		}
		*lines = append(*lines, indent+prefix+"{"+tag+"["+strings.Join(q, ", ")+"]}"+suffix)
	default: // B, BS, BOOL, NULL: nothing from the table reaches the screen raw
		*lines = append(*lines, indent+prefix+v.DynamoJSON()+suffix)
	}
}
