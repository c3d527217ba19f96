package rows

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The names of the columns a user may hide (Columns) but a constraint's
// values, which are named by its attribute (email).
const (
	StatusColumn     = "status"     // a row's status in words
	OwnerColumn      = "owner"      // a lock's owner
	ExpiresColumn    = "expires"    // a lock's TTL, in words
	AttributeColumn  = "attribute"  // the constraint a lock or a problem is of
	HoldersColumn    = "holders"    // the accounts that hold a problem's value
	AttributesColumn = "attributes" // an other item's attributes
)

// Columns are the columns of a list a user hid (:hide, the config file's
// hide-columns), by the names the rows' parts carry (Part.Column) and
// StatusColumn. The key column is never hidden: it says which item a row
// is.
type Columns struct {
	hidden  []string // sorted
	version int      // counts the changes: the widths held are measured again
}

// Set hides the columns names, and shows every other.
func (c *Columns) Set(names []string) {
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	if !slices.Equal(names, c.hidden) {
		c.hidden = names
		c.version++
	}
}

// Hide hides column name, or shows it again (hide false).
func (c *Columns) Hide(name string, hide bool) {
	names := slices.DeleteFunc(slices.Clone(c.hidden), func(n string) bool { return n == name })
	if hide {
		names = append(names, name)
	}
	c.Set(names)
}

// Hidden are the columns hidden, sorted.
func (c *Columns) Hidden() []string { return slices.Clone(c.hidden) }

// IsHidden reports whether column name is hidden.
func (c *Columns) IsHidden(name string) bool {
	_, found := slices.BinarySearch(c.hidden, name)
	return found
}

// Apply is cells without the parts of the columns hidden; the part that
// comes first loses its separator.
func (c *Columns) Apply(cells Cells) Cells {
	if len(c.hidden) == 0 {
		return cells
	}
	if c.IsHidden(StatusColumn) {
		cells.Status = ""
	}
	if !slices.ContainsFunc(cells.Detail, func(p Part) bool { return p.Column != "" && c.IsHidden(p.Column) }) {
		return cells
	}
	kept := make([]Part, 0, len(cells.Detail))
	for _, p := range cells.Detail {
		if p.Column == "" || !c.IsHidden(p.Column) {
			kept = append(kept, p)
		}
	}
	if len(kept) > 0 {
		kept[0].Text = strings.TrimLeft(kept[0].Text, " ")
	}
	cells.Detail = kept
	return cells
}

// columnsOf is names with the columns of c's parts it lacks added, in
// the order they come (Screen.Names: what a user may hide).
func columnsOf(names []string, c Cells) []string {
	for _, p := range c.Detail {
		if p.Column != "" && !slices.Contains(names, p.Column) {
			names = append(names, p.Column)
		}
	}
	return names
}

// Whole is what a row of cells c laid out in l does not show on its
// line: its key whole, when cut, and its detail whole, when cut, wrapped
// to lines of width cells under the row (indented), at most max lines,
// the last ending in "…" when there is more. Nil when the line shows it
// all. The text is the cells', printable; it is cut between graphemes
// and never inside an escape the text shows (\x1b, \u202e).
func (r Renderer) Whole(c Cells, l Layout, width, most int) []string {
	var texts []string
	if cellWidth(c.Indent)+cellWidth(c.Key) > l.Key {
		texts = append(texts, c.Key)
	}
	if full, _ := detailWidths(c.Detail); full > l.Detail {
		texts = append(texts, strings.TrimLeft(joinParts(c.Detail, nil), " "))
	}
	if cellWidth(c.Status) > l.Status {
		texts = append(texts, c.Status)
	}
	const indent = "    "
	var lines []string
	for _, t := range texts {
		lines = append(lines, wrapCells(t, width-len(indent))...)
	}
	if len(lines) > most {
		lines = lines[:max(most, 0)]
		if most > 0 {
			last := lines[most-1]
			lines[most-1] = ansi.Truncate(last, cellWidth(last)-1, "") + "…"
		}
	}
	for i, line := range lines {
		lines[i] = r.Styles.Selected.Render(fit(indent+line, width))
	}
	return lines
}

// wrapCells wraps printable text s to lines of at most w cells: between
// words where a line can break at a space, else between graphemes, but
// never inside an escape (\xHH, \uHHHH, \UHHHHHHHH) that Printable wrote.
func wrapCells(s string, w int) []string {
	w = max(w, 12) // an escape and a little more fit a line
	var lines []string
	for cellWidth(s) > w {
		head := ansi.Truncate(s, w, "")
		if sp := strings.LastIndex(head, " "); sp > 0 && sp >= len(head)/2 {
			head = head[:sp+1]
		} else if at := escapeCut(s, len(head)); at > 0 {
			head = head[:at]
		}
		lines = append(lines, strings.TrimRight(head, " "))
		s = strings.TrimLeft(s[len(head):], " ")
	}
	return append(lines, s)
}

// escapeCut is where to cut s before byte n when n falls inside an
// escape Printable wrote: before its backslash; 0 when it does not.
func escapeCut(s string, n int) int {
	for i := max(n-9, 0); i < n; i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			continue
		}
		size := map[byte]int{'x': 4, 'u': 6, 'U': 10}[s[i+1]]
		if size > 0 && i+size > n && i+size <= len(s) {
			return i
		}
	}
	return 0
}
