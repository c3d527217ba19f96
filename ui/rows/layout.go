package rows

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/styles"
)

// Cells are a row's parts before they are laid out in columns: what the
// row shows, and what of it may be cut first when a column is narrow.
// Every part is printable.
type Cells struct {
	Indent string // before the key ("  └ "), never cut
	Key    string
	// Elide says the key is a lock's: its end (the value) tells it from
	// the rows around it, which share its first Shared cells (UNIQ#EMAIL#),
	// so it is cut in the middle. Other keys (an account's) are whole.
	Elide  bool
	Shared int
	// Whole says the key is an account's whole key (PK|SK): each of its
	// halves gives way at its head, which the accounts around it share
	// ($mi6#, $agent_1#), keeping their ends (designation_00, id_a9).
	Whole       bool
	Detail      []Part
	Status      string
	StatusStyle styles.Paint
	// Marked says the row is marked for a bulk action (space): a check
	// beside the selection marker.
	Marked bool
	// Changed says someone else changed the row's item a moment ago (the
	// table's stream told): a dot beside the selection marker.
	Changed bool
}

// Part is a piece of a row's detail, with the separator before it.
type Part struct {
	Text string
	Rank Rank
	// Short stands for Text when a Value part must give way (" +2" for
	// two more holders); "": Text is cut at its end.
	Short string
	// Middle lets a Whole part, an account's key, give way down to
	// middleFloor cells rather than squeeze the row's key: one named by
	// its whole key (ElectroDB's $mi6#designation_04|$agent_1#id_a9) is
	// long, and the ends of its halves tell it apart (cutWholeKey; any
	// other loses its middle).
	Middle bool
	// Column names what the part shows, for a user to hide it (Columns):
	// a constraint's attribute (email), owner, holders, expires; "": the
	// row's own words, never hidden.
	Column string
}

// middleFloor is the fewest cells a Middle part keeps.
const middleFloor = 24

// Rank says how a part of a detail gives way when the column is narrow.
type Rank uint8

// The ranks, the last to give way first.
const (
	Whole Rank = iota // an owner or a holder: shown whole while anything else can give way
	Value             // a value: cut at its end, down to a few cells
	Words             // words the row says otherwise (the attribute of a lock key): dropped first
)

// valueFloor is the fewest cells a cut value keeps, ellipsis included.
const valueFloor = 6

// keyFloor is the fewest cells a key column keeps.
const keyFloor = 8

// keyShare is the share of a row (in percent) beyond which keys are cut
// before values are: one long key does not squash every value.
const keyShare = 55

// statusWidth is the status column's widest: "duplicate", "checking" and
// "problem" fit. A screen whose statuses are shorter takes less.
const statusWidth = 9

// Layout is the width of each column of the rows of a list, from what
// they need (Widths), so that the columns align.
type Layout struct {
	Width, Key, Detail, Status int
}

// Measure lays out rows cs at width: each column as wide as its widest
// content when everything fits; else the keys whole (a lock key cut in
// its middle only as far as the details' owners and holders need) and
// the details giving way by rank.
func Measure(cs []Cells, width int) Layout {
	var w Widths
	for _, c := range cs {
		w.Add(c)
	}
	return w.Layout(width)
}

// Widths are the widths the columns of rows need: each the widest of the
// rows added. A list adds every row it holds as it keeps it (Screen), so
// that its columns hold still while it scrolls.
type Widths struct {
	key, detail, least, indent, status int
}

// Add widens w to what the row of cells c needs.
func (w *Widths) Add(c Cells) {
	w.status = max(w.status, min(cellWidth(c.Status), statusWidth))
	in := cellWidth(c.Indent)
	w.key, w.indent = max(w.key, in+cellWidth(c.Key)), max(w.indent, in)
	full, least := detailWidths(c.Detail)
	w.detail, w.least = max(w.detail, full), max(w.least, least)
}

// Layout lays out rows of widths w at width.
func (w Widths) Layout(width int) Layout {
	needK, needD, minD, indent, sw := w.key, w.detail, w.least, w.indent, w.status
	avail := max(width-2-2-2-sw, 0)
	l := Layout{Width: width, Key: needK, Detail: needD, Status: sw}
	if needK+needD <= avail {
		return l
	}
	// Owners and holders whole, keys as whole as that leaves, values cut
	// first unless the keys would take most of the row.
	k := min(needK, avail-minD, max(avail*keyShare/100, avail-needD))
	l.Key = min(max(k, indent+keyFloor), avail)
	l.Detail = max(avail-l.Key, 0)
	return l
}

// detailWidths is a detail's width whole, and the least it takes whole
// where it must be: its owners and holders (values give way to keys).
func detailWidths(parts []Part) (full, least int) {
	first := true // the first part kept loses its separator
	for _, p := range parts {
		w := cellWidth(p.Text)
		full += w
		if p.Rank == Words {
			continue
		}
		if first {
			w -= sepWidth(p.Text)
			first = false
		}
		switch {
		case p.Rank == Whole && p.Middle:
			least += min(w, middleFloor)
		case p.Rank == Whole:
			least += w
		case p.Short != "": // more holders: counted, at least
			least += min(w, cellWidth(p.Short))
		}
	}
	return full, least
}

// floorOf is the fewest cells a Value part takes: its short form, or its
// name (email=) and a few cells of the value.
func floorOf(p Part) int {
	if p.Short != "" {
		return cellWidth(p.Short)
	}
	name := 0
	if i := strings.IndexByte(p.Text, '='); i >= 0 {
		name = cellWidth(p.Text[:i+1]) - sepWidth(p.Text)
	}
	return sepWidth(p.Text) + name + valueFloor
}

// sepWidth is the width of the separator a part starts with.
func sepWidth(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// Line renders the row of cells c in layout l, styled whole when selected.
func (r Renderer) Line(c Cells, l Layout, selected bool) string {
	kw := max(l.Key-cellWidth(c.Indent), 0)
	key := c.Key
	switch {
	case c.Elide:
		key = elideMiddle(key, c.Shared, kw)
	case c.Whole:
		key = cutWholeKey(key, kw)
	}
	k := fit(c.Indent+key, l.Key)
	d := fit(fitDetail(c.Detail, l.Detail), l.Detail)
	st := fit(c.Status, l.Status)
	marker := "  "
	switch {
	case selected && c.Marked:
		marker = "▸" + MarkGlyph
	case c.Marked:
		marker = " " + MarkGlyph
	case selected && c.Changed:
		marker = "▸" + ChangedGlyph
	case c.Changed:
		marker = " " + ChangedGlyph
	case selected:
		marker = "▸ "
	}
	if selected {
		return r.Styles.Selected.Render(fit(marker+k+"  "+d+"  "+st, l.Width))
	}
	pad := strings.Repeat(" ", max(l.Width-(2+l.Key+2+l.Detail+2+l.Status), 0))
	s := r.Styles
	return marker + s.Key.Render(k) + "  " + s.Attr.Render(d) + "  " + c.StatusStyle.Render(st) + pad
}

// MarkGlyph is what a row marked for a bulk action shows beside the
// selection marker.
const MarkGlyph = "✓"

// ChangedGlyph is what a row someone else changed a moment ago shows
// beside the selection marker.
const ChangedGlyph = "•"

// line renders one row by itself, laid out for its own content.
func (r Renderer) line(c Cells, width int, selected bool) string {
	return r.Line(c, Measure([]Cells{c}, width), selected)
}

// fitDetail joins a detail's parts in w cells: whole if they fit, else
// without its words, then with its values cut (the widest first, each
// keeping its name), then without its last values, and only then cut at
// its end.
func fitDetail(parts []Part, w int) string {
	s, fits := cutDetail(parts, w)
	// Values that cannot all keep their names go from the last, rather
	// than the line being cut at its end (usernam…).
	for last := len(parts) - 1; !fits && last > 0; last-- {
		if parts[last].Rank != Value || parts[last].Short != "" {
			continue
		}
		kept := append(slices.Clone(parts[:last]), Part{Text: parts[last].Text, Rank: Words})
		kept = append(kept, parts[last+1:]...)
		if t, ok := cutDetail(kept, w); ok {
			return t
		}
		parts = kept
	}
	return s
}

// cutDetail is fitDetail without leaving a value out: false when even
// so the detail does not fit.
func cutDetail(parts []Part, w int) (string, bool) {
	full, _ := detailWidths(parts)
	if full <= w {
		return joinParts(parts, nil), true
	}
	widths := make([]int, len(parts))
	over := full - w
	for i, p := range parts {
		widths[i] = cellWidth(p.Text)
	}
	// Words go from the last, each only while the rest does not fit: a
	// long explanation goes before the attribute, which tells rows of
	// one group apart (all of them or none would make rows of one
	// group take different forms).
	for i := len(parts) - 1; i >= 0 && over > 0; i-- {
		if parts[i].Rank == Words {
			over -= widths[i]
			widths[i] = 0
		}
	}
	over = shorten(parts, widths, over)
	// The widest value gives a cell at a time, so that every value keeps
	// as much of itself as the others.
	for over > 0 {
		widest, room := -1, 0
		for i, p := range parts {
			if p.Rank == Value && widths[i] > 0 {
				if r := widths[i] - floorOf(p); r > 0 && (widest < 0 || widths[i] > widths[widest]) {
					widest, room = i, r
				}
			}
		}
		if widest < 0 {
			break
		}
		cut := min(over, room, max(widths[widest]-secondWidest(parts, widths, widest), 1))
		widths[widest] -= cut
		over -= cut
	}
	return strings.TrimLeft(joinParts(parts, widths), " "), over <= 0
}

// shorten gives over cells back from the last parts first: values that
// have a short form take it, then Middle parts lose their middle down to
// middleFloor. It returns what is still over.
func shorten(parts []Part, widths []int, over int) int {
	for i := len(parts) - 1; i >= 0 && over > 0; i-- {
		if p := parts[i]; p.Rank == Value && p.Short != "" {
			over -= widths[i] - cellWidth(p.Short)
			widths[i] = -1 // the short form
		}
	}
	for i := len(parts) - 1; i >= 0 && over > 0; i-- {
		if parts[i].Middle && widths[i] > middleFloor {
			cut := min(over, widths[i]-middleFloor)
			widths[i] -= cut
			over -= cut
		}
	}
	return over
}

// secondWidest is the widest of the Value parts but skip, 0 for none.
func secondWidest(parts []Part, widths []int, skip int) int {
	w := 0
	for i, p := range parts {
		if i != skip && p.Rank == Value {
			w = max(w, widths[i])
		}
	}
	return w
}

// joinParts joins parts, each cut to its width in widths (nil: whole; 0:
// left out).
func joinParts(parts []Part, widths []int) string {
	var b strings.Builder
	for i, p := range parts {
		switch {
		case widths == nil:
			b.WriteString(p.Text)
		case widths[i] == 0:
		case widths[i] < 0:
			b.WriteString(p.Short)
		case widths[i] < cellWidth(p.Text) && p.Middle:
			b.WriteString(cutWholeKey(p.Text, widths[i]))
		case widths[i] < cellWidth(p.Text):
			b.WriteString(ansi.Truncate(p.Text, widths[i], "…"))
		default:
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// cutMiddle cuts s to w cells in its middle, keeping a little more of its
// head than of its end.
func cutMiddle(s string, w int) string {
	n := cellWidth(s)
	if n <= w {
		return s
	}
	if w < 2 {
		return ansi.Truncate(s, w, "…")
	}
	head := w / 2
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, n-(w-1-head), "")
}

// cutWholeKey cuts a whole key id (model.WholeKeyID) to w cells: its
// partition and sort key share them, each, where it is cut, keeping its
// end after "…".
func cutWholeKey(id string, w int) string {
	n := cellWidth(id)
	pk, _, ok := model.SplitWholeKeyID(id)
	if n <= w || !ok || w < 5 {
		return cutMiddle(id, w)
	}
	raw := len(model.WholeKeyID(pk, "")) - 1 // the partition key as the id writes it
	head, tail := id[:raw], id[raw+1:]
	hw, tw := cellWidth(head), cellWidth(tail)
	room := w - 1
	keepH := min(hw, max(room/2, room-tw))
	keepT := room - keepH
	return keepEnd(head, hw, keepH) + model.IDKeySep + keepEnd(tail, tw, keepT)
}

// keepEnd is s (n cells) cut to its last k cells, "…" first when cut.
func keepEnd(s string, n, k int) string {
	if n <= k {
		return s
	}
	return ansi.TruncateLeft(s, n-k+1, "…")
}

// elideMiddle cuts a lock key s to w cells in its middle, keeping its
// end: what its first shared cells say (UNIQ#EMAIL#) goes first, down to
// its head (UNIQ#…) and then to "…"; then the value loses its middle.
func elideMiddle(s string, shared, w int) string {
	n := cellWidth(s)
	if n <= w {
		return s
	}
	if w < 4 {
		return ansi.Truncate(s, w, "…")
	}
	value := ansi.TruncateLeft(s, shared, "")
	vw := n - shared
	if i := strings.IndexByte(s, '#'); i >= 0 && i+1 < shared && i+2+vw <= w {
		return s[:i+1] + "…" + value
	}
	if 1+vw <= w {
		return "…" + value
	}
	// A value's head tells it apart more often than its end (emails
	// share their domain): it keeps most.
	head := (w - 2) * 3 / 5
	return "…" + ansi.Truncate(value, head, "") + "…" + ansi.TruncateLeft(value, vw-(w-2-head), "")
}

// Screen keeps the layout of the rows a list is about to render, and
// their cells, for a source (browser.Measurer): Hold the rows the list
// holds, Measure the rows shown, then render each from Cells with Line
// and Layout, in the same frame. Its columns are as wide as every row
// held needs, not only those shown, so that they hold still while the
// list scrolls; they only widen (a row that changes may widen them), and
// narrow when the rows are read anew (Forget) or a column is hidden.
type Screen struct {
	layout Layout
	rows   []int // the rows measured, ascending
	cells  []Cells
	has    []bool
	held   Widths // what every row held needs
	kept   int    // how many rows below the head were added to held
	// Columns are the columns hidden: their parts are left out of the
	// cells before anything is measured.
	Columns Columns
	hidden  int      // the Columns' version held was measured with
	names   []string // the columns the rows held show, hidden or not
	status  bool     // some row held has a status
}

// Names are the columns the rows held show, hidden or not, in the order
// they come, the status last: what a user may hide.
func (s *Screen) Names() []string {
	names := slices.Clone(s.names)
	if s.status {
		names = append(names, StatusColumn)
	}
	return names
}

// note notes the columns a row held shows.
func (s *Screen) note(c Cells) {
	s.names = columnsOf(s.names, c)
	s.status = s.status || c.Status != ""
}

// Hold adds to the widths held the rows a list holds that are not in
// them yet: rows [0, head) (the rows on top, few) each time, and those
// below them kept since the last call; cells returns a row's cells, false
// for a row that has none. A list calls it before Measure: the cost is
// the rows kept since, not every row held.
func (s *Screen) Hold(head, n int, cells func(i int) (Cells, bool)) {
	if s.hidden != s.Columns.version {
		// A column hidden or shown: every row is measured again, once (the
		// one frame that costs what is held: about 0.7 s for the accounts
		// view's 300k rows of 100k accounts, whose cells are built from
		// the compact cache).
		s.Forget()
		s.hidden = s.Columns.version
	}
	s.kept = min(s.kept, max(n-head, 0)) // rows dropped: what they widened stays
	for i := range min(head, n) {
		s.hold(i, cells)
	}
	for i := head + s.kept; i < n; i++ {
		s.hold(i, cells)
	}
	s.kept = max(n-head, 0)
}

func (s *Screen) hold(i int, cells func(i int) (Cells, bool)) {
	if c, ok := cells(i); ok {
		s.note(c)
		s.held.Add(s.Columns.Apply(c))
	}
}

// Forget forgets what the rows held need: the rows are read anew.
func (s *Screen) Forget() { s.held, s.kept = Widths{}, 0 }

// Rehold measures every row held again at the next Hold, keeping the
// widths: the rows held are others (a window moved over them).
func (s *Screen) Rehold() { s.kept = 0 }

// Shift notes rows taken (d < 0) from the front of those held: those
// after them, measured, are not measured again.
func (s *Screen) Shift(d int) { s.kept = max(s.kept+min(d, 0), 0) }

// Measure lays out the rows shown (ascending: a filter may skip some) at
// width, with the rows held; cells returns a row's cells, false for a row
// that has none (a title).
func (s *Screen) Measure(shown []int, width int, cells func(i int) (Cells, bool)) {
	s.rows, s.cells, s.has = append(s.rows[:0], shown...), s.cells[:0], s.has[:0]
	for _, i := range shown {
		c, ok := cells(i)
		if ok {
			s.note(c)
			c = s.Columns.Apply(c)
			s.held.Add(c) // a row that changed since it was held
		}
		s.cells, s.has = append(s.cells, c), append(s.has, ok)
	}
	s.layout = s.held.Layout(width)
}

// Cells are row i's cells as measured, false when it was not measured
// or has none.
func (s *Screen) Cells(i int) (Cells, bool) {
	k, found := slices.BinarySearch(s.rows, i)
	if !found || !s.has[k] {
		return Cells{}, false
	}
	return s.cells[k], true
}

// Rest is what row i, selected, does not show on its line, whole, in at
// most most lines under it (Renderer.Whole): nil when it was not measured
// at width, or shows it all.
func (s *Screen) Rest(r Renderer, i, width, most int) []string {
	l, measured := s.Layout(width)
	c, ok := s.Cells(i)
	if !ok || !measured {
		return nil
	}
	return r.Whole(c, l, width, most)
}

// Layout is the layout measured for width, false when none was.
func (s *Screen) Layout(width int) (Layout, bool) {
	return s.layout, s.layout.Width == width && width > 0
}
