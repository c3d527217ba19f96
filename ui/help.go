package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/statusbar"
)

// footer is the help line: the shown widget's hints, then the root's, the
// write keys the view offers and, always last, help and quit (what quits
// here). When it is too narrow the hints give way from the end, the write
// keys last, and help says that it lists more.
func (m Model) footer() string {
	km := m.keys()
	var tail []key.Binding
	for _, b := range []key.Binding{km.Help, km.Quit, km.Interrupt} {
		if b.Enabled() {
			tail = append(tail, b)
		}
	}
	var writes []key.Binding
	if m.writeKeys.enabled && m.top(layerSearch) == layerList {
		writes = m.rowWrites()
	}
	kept := append(slices.Clip(writes), tail...)
	short := km.ShortHelp()
	if m.layers.detail.Shown() {
		short = km.DetailShortHelp()
	}
	root := slices.DeleteFunc(short, func(b key.Binding) bool {
		return !b.Enabled() || slices.ContainsFunc(kept, func(t key.Binding) bool { return slices.Equal(t.Keys(), b.Keys()) })
	})
	hints := helpLine(m.active().ShortHelp(), append(slices.Clip(root), kept...))
	hints = hints[:len(hints)-len(kept)]
	line, dropped := m.fit(hints, writes, tail)
	if dropped && len(tail) > 0 && km.Help.Enabled() {
		// tail[0] is help, where the keys left out are: "… ? help".
		tail[0].SetHelp("… "+tail[0].Help().Key, tail[0].Help().Desc)
		line, _ = m.fit(hints, writes, tail)
	}
	h := m.help.line
	h.SetWidth(0) // fitted here, not cut
	return ansi.Truncate(h.ShortHelpView(line), m.width, "…")
}

// fit is the help line's bindings that fit the width: hints, writes, then
// tail, the hints giving way from the end first, then the writes; dropped
// says whether any gave way.
func (m Model) fit(hints, writes, tail []key.Binding) (line []key.Binding, dropped bool) {
	kept := append(slices.Clip(writes), tail...)
	h := m.help.line
	// The line's width is a running sum of its bindings', each measured
	// as it is counted in and out: the footer is rendered every frame.
	sep := ansi.StringWidth(h.ShortSeparator)
	total, shown := 0, 0
	count := func(b key.Binding, sign int) {
		if b.Enabled() {
			total += sign * (ansi.StringWidth(b.Help().Key) + 1 + ansi.StringWidth(b.Help().Desc))
			shown += sign
		}
	}
	for _, b := range append(slices.Clip(hints), kept...) {
		count(b, +1)
	}
	for total+sep*max(shown-1, 0) > m.width && len(hints)+len(writes) > 0 {
		dropped = true
		if len(hints) > 0 {
			count(hints[len(hints)-1], -1)
			hints = hints[:len(hints)-1]
		} else {
			count(writes[len(writes)-1], -1)
			writes = writes[:len(writes)-1]
			kept = append(slices.Clip(writes), tail...)
		}
	}
	return append(slices.Clip(hints), kept...), dropped
}

// helpLine is the shown widget's bindings then the root's, leaving out a
// widget's binding that a root binding covers (the detail's esc, which
// the root's esc/q back says; f, which the write keys say).
func helpLine(widget, root []key.Binding) []key.Binding {
	covered := map[string]bool{}
	for _, b := range root {
		if b.Enabled() {
			for _, k := range b.Keys() {
				covered[k] = true
			}
		}
	}
	var line []key.Binding
	for _, b := range widget {
		if !b.Enabled() || !slices.ContainsFunc(b.Keys(), func(k string) bool { return !covered[k] }) {
			continue
		}
		line = append(line, b)
	}
	return append(line, root...)
}

// layHelp lays out the help screen's pages for the view help is open
// over, at the terminal's size: when help opens and on a resize.
func (m *Model) layHelp() {
	notes := m.helpNotes()
	// The bindings leave the notes room on one page where they still fit
	// one page so.
	pages := m.layHelpPages(m.listHeight() - 1 - len(notes))
	if len(pages) > 1 {
		pages = m.layHelpPages(m.listHeight() - 1)
	}
	m.help.pages = m.withNotes(pages, notes)
	m.help.page = min(m.help.page, len(m.help.pages)-1)
}

// helpScreen is the help page shown, and which of how many it is.
func (m Model) helpScreen() string {
	pages := m.help.pages
	if len(pages) == 0 {
		return ""
	}
	page := min(m.help.page, len(pages)-1)
	out := pages[page]
	if len(pages) > 1 {
		out += "\n" + m.setup.st.Dim.Render(fmt.Sprintf("page %d of %d: %s/%s for more", page+1, len(pages),
			m.help.nav.PageDown.Help().Key, m.help.nav.PageUp.Help().Key))
	}
	return out
}

// helpNotes are what the help ends with: what the mouse does (the config
// file's mouse:), the legend of the header's short forms, and what the
// backend lacks and what that changes, in full (the first screen does
// not say it), after a blank line.
func (m Model) helpNotes() []string {
	wrap := func(l string) []string { return strings.Split(ansi.Wrap(l, max(m.width-2, 20), " "), "\n") }
	mouse := "mouse: off, so that the terminal selects and copies text (mouse: true in the config file: a click selects a row, the wheel scrolls)"
	if m.setup.opts.Mouse {
		mouse = "mouse: on (the config file's mouse: true): a click selects a row, the wheel scrolls; shift+drag selects text in most terminals"
	}
	notes := append([]string{""}, wrap(mouse)...)
	notes = append(notes, wrap(m.rowsNote())...)
	notes = append(notes, wrap(m.legend())...)
	for _, l := range m.live.Help() {
		notes = append(notes, wrap(l)...)
	}
	if len(m.setup.opts.Missing) > 0 {
		notes = append(notes, "", "this backend lacks (the start-up probe found):")
	}
	for _, l := range m.setup.opts.Missing {
		notes = append(notes, wrap("- "+model.Printable(l))...)
	}
	return notes
}

// withNotes ends pages with notes (helpNotes), on the last page when
// they fit, else on pages of their own.
func (m Model) withNotes(pages, notes []string) []string {
	room := max(m.listHeight()-1, 2)
	last := strings.Split(pages[len(pages)-1], "\n")
	if len(last)+len(notes) <= room {
		pages[len(pages)-1] += "\n" + strings.Join(notes, "\n")
		return pages
	}
	notes = notes[1:]
	for len(notes) > 0 {
		n := min(room, len(notes))
		pages = append(pages, strings.Join(notes[:n], "\n"))
		notes = notes[n:]
	}
	return pages
}

// rowsNote says how a row cut at this width is read whole, and how a
// column is hidden, with the view's columns hidden now.
func (m Model) rowsNote() string {
	note := "rows: the selected one shows whole what its line cuts; :hide/:show COLUMN (:hide! saves)"
	if hidden := m.screenOf(m.views.shown).Columns.Hidden(); len(hidden) > 0 {
		note += " (hidden here: " + model.Printable(strings.Join(hidden, ", ")) + ")"
	}
	return note
}

// legend says what each short form the header may take stands for: the
// counts' (statusbar.Abbreviations) and the tabs' short titles.
func (m Model) legend() string {
	var said []string
	for _, a := range m.abbreviations() {
		said = append(said, a.Short+" "+a.Long)
	}
	return "where the header is narrow: " + strings.Join(said, " · ")
}

// abbreviations are every short form the header may take.
func (m Model) abbreviations() []statusbar.Abbreviation {
	out := statusbar.Abbreviations()
	titles := append([]string{m.views.accounts.Title()}, viewTitles[1:]...)
	for i, s := range viewShort {
		if i == 0 {
			s = m.tabShort()[0] // Recs, where the views speak of records
		}
		out = append(out, statusbar.Abbreviation{Short: s, Long: titles[i]})
	}
	return out
}

// layHelpPages lays out every enabled binding of the view help was opened
// over, and the root's, in columns of at most height rows: the groups
// side by side when they fit, else flowed, on further pages if need be.
// The keys that act come first: writes, help and quit are on the first
// page however small the terminal.
func (m Model) layHelpPages(height int) []string {
	under := m
	under.help.open = false
	groups := append(m.list().FullHelp(), under.keys().FullHelp()...)
	km := m.keys()
	first := []key.Binding{km.Help, km.Quit}
	for _, w := range m.writeKeys.byView[m.views.shown] {
		if m.writeKeys.enabled {
			first = append(first, w)
		}
	}
	// The groups side by side, when they fit.
	var gcols [][]string
	fits := true
	for _, g := range groups {
		g = slices.DeleteFunc(slices.Clone(g), func(b key.Binding) bool { return !b.Enabled() })
		if len(g) == 0 {
			continue
		}
		gcols = append(gcols, column(g))
		fits = fits && len(g) <= height
	}
	if out := joinColumns(gcols, math.MaxInt); fits && widest(out) <= m.width {
		return []string{out}
	}
	var lead, rest []key.Binding
	for _, g := range groups {
		for _, b := range g {
			if !b.Enabled() {
				continue
			}
			if slices.ContainsFunc(first, func(f key.Binding) bool { return slices.Equal(f.Keys(), b.Keys()) }) {
				lead = append(lead, b)
			} else {
				rest = append(rest, b)
			}
		}
	}
	return flowPages(append(lead, rest...), m.width, height)
}

// flowPages flows bindings into columns of at most height entries, as
// many columns a page as fit width.
func flowPages(bs []key.Binding, width, height int) []string {
	height = max(height, 1)
	// Balanced columns when they fit one page.
	if n := len(bs); n > 0 {
		even := (n + (n+height-1)/height - 1) / ((n + height - 1) / height)
		if height != even {
			if one := flowPages(bs, width, even); len(one) == 1 {
				return one
			}
		}
	}
	var cols [][]string
	for i := 0; i < len(bs); i += height {
		cols = append(cols, column(bs[i:min(i+height, len(bs))]))
	}
	var pages []string
	for len(cols) > 0 {
		n, used := 0, 0
		for n < len(cols) {
			w := 0
			for _, l := range cols[n] {
				w = max(w, ansi.StringWidth(l))
			}
			if n > 0 && used+w > width {
				break
			}
			used += w + 4
			n++
		}
		pages = append(pages, joinColumns(cols[:n], width))
		cols = cols[n:]
	}
	if len(pages) == 0 {
		pages = []string{""}
	}
	return pages
}

// widest is the width of the widest line of s.
func widest(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// column is bindings one a line, their descriptions aligned.
func column(bs []key.Binding) []string {
	kw := 0
	for _, b := range bs {
		kw = max(kw, ansi.StringWidth(b.Help().Key))
	}
	lines := make([]string, len(bs))
	for i, b := range bs {
		lines[i] = fmt.Sprintf("%-*s %s", kw, b.Help().Key, b.Help().Desc)
	}
	return lines
}

// joinColumns sets columns side by side, four cells apart, cut at width.
func joinColumns(cols [][]string, width int) string {
	widths := make([]int, len(cols))
	rows := 0
	for i, c := range cols {
		for _, l := range c {
			widths[i] = max(widths[i], ansi.StringWidth(l))
		}
		rows = max(rows, len(c))
	}
	lines := make([]string, rows)
	for r := range rows {
		var b strings.Builder
		for i, c := range cols {
			l := ""
			if r < len(c) {
				l = c[r]
			}
			if i < len(cols)-1 {
				l += strings.Repeat(" ", widths[i]-ansi.StringWidth(l)+4)
			}
			b.WriteString(l)
		}
		lines[r] = ansi.Truncate(strings.TrimRight(b.String(), " "), width, "…")
	}
	return strings.Join(lines, "\n")
}
