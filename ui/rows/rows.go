// Package rows renders one line of a view from domain values. Rendering is
// a pure function of its inputs, tested without Bubble Tea, and only
// visible rows are ever rendered.
package rows

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/styles"
)

// Kind says what a row of the accounts view shows.
type Kind uint8

// The kinds of row.
const (
	Group   Kind = iota // a title: "orphan locks (3)", "search: ada"
	Account             // an account
	Lock                // one lock of the account above it
	Orphan              // an orphan lock the check confirmed
	More                // a line that leads elsewhere ("... press 3")
	Note                // a plain line
)

// Row is one line of the accounts view. It refers to its data by index,
// so rows stay small (a 100k-account table has 300k of them) and stay valid
// while the data slices grow.
type Row struct {
	Kind  Kind
	Set   uint8 // which account list Index is in (the caller's numbering)
	Lock  int16 // the constraint of a Lock row
	Index int32 // the account, or the problem of an Orphan row
	Text  string
}

// Renderer renders rows for one schema with one set of styles.
type Renderer struct {
	Schema *model.Schema
	Styles *styles.Styles
}

// maxDetail caps the detail column, so that on a wide terminal the status
// stays near its key; what is left of the line stays blank.
const maxDetail = 64

// columns splits a width into the key, detail and status columns.
func columns(width int) (key, detail, status int) {
	status = 10
	rest := width - 2 - status - 4 // marker, two gaps
	key = min(max(rest*45/100, 16), 56)
	detail = min(max(rest-key, 0), maxDetail)
	return
}

// line lays out marker, key, detail and status in columns, truncating
// each, and styles the whole line when selected. Every part must already
// be printable.
func (r Renderer) line(width int, selected bool, indent, key, detail string, status string, statusStyle styles.Style) string {
	kw, dw, sw := columns(width)
	// A key longer than its column borrows what this row's detail leaves
	// empty of its own: the status column stays where it is.
	if over, spare := cellWidth(indent+key)-kw, dw-cellWidth(detail); over > 0 && spare > 0 {
		kw, dw = kw+min(over, spare), dw-min(over, spare)
	}
	pad := strings.Repeat(" ", max(width-(2+kw+2+dw+2+sw), 0))
	marker := "  "
	if selected {
		marker = "▸ "
	}
	k := fit(indent+key, kw)
	d := fit(detail, dw)
	st := fit(status, sw)
	s := r.Styles
	if selected {
		return s.Selected.Render(fit(marker+k+"  "+d+"  "+st, width))
	}
	return marker + s.Key.Render(k) + "  " + s.Attr.Render(d) + "  " + statusStyle.Render(st) + pad
}

// fit truncates or pads plain text to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := cellWidth(s)
	if n > w {
		s = ansi.Truncate(s, w, "…")
		n = ansi.StringWidth(s)
	}
	if n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

// cellWidth is the cells plain text takes: one per printable ASCII byte
// and per box-drawing or geometric character the rows draw (└ ▸ …), as
// nearly every key and value is (measuring by grapheme clusters is most
// of a frame's cost); anything else is measured by ansi.
func cellWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r >= 0x20 && r <= 0x7e, r == '…', r >= 0x2500 && r <= 0x25ff:
			n++
		default:
			return ansi.StringWidth(s)
		}
	}
	return n
}

// AccountKey is an account's key as stored, made printable.
func AccountKey(a *model.AccountView) string { return model.Printable(a.ID) }

// Account renders an account row: its key, its constrained attributes, and
// "duplicate" when it shares a value with another account.
func (r Renderer) Account(a *model.AccountView, width int, selected bool) string {
	var attrs []string
	for _, c := range r.Schema.Constraints {
		attrs = append(attrs, c.Attr+"="+AttrText(a.Item, c.Attr))
	}
	status, st := "", r.Styles.Dim
	switch {
	case a.Duplicate():
		status, st = string(model.LockDuplicate), r.Styles.Status[model.LockDuplicate]
	case a.Problematic():
		status, st = "problem", r.Styles.Dim
	}
	return r.line(width, selected, "", AccountKey(a), strings.Join(attrs, "  "), status, st)
}

// AttrText renders attribute name of it for a row: a string as it is
// (printable), absent as "-", any other type as DynamoDB JSON.
func AttrText(it model.Item, name string) string {
	v, ok := it[name]
	switch {
	case !ok:
		return "-"
	case v.Kind == model.KindS:
		return model.Printable(v.S)
	}
	return model.Printable(v.DynamoJSON())
}

// LockKey renders a lock's key as stored: its partition key in the
// account table, or TABLE/value for a lock table.
func (r Renderer) LockKey(ci int, value string) string {
	table, key := r.Schema.LockKey(ci, value)
	if table != r.Schema.Table {
		return model.Printable(table + "/" + value)
	}
	return model.Printable(key[r.Schema.PK])
}

// Lock renders the lock row of constraint ci under account a.
func (r Renderer) Lock(a *model.AccountView, ci int, width int, selected bool) string {
	l := a.Locks[ci]
	attr := r.Schema.Constraints[ci].Attr
	key, detail := "", ""
	switch l.Status {
	case model.LockNone:
		key, detail = "("+attr+")", "no value: no lock expected"
	case model.LockInvalid:
		if l.Item == nil {
			key, detail = "("+attr+")", attr+" is "+AttrText(a.Item, attr)+": cannot be locked"
		} else {
			key, detail = r.LockKey(ci, l.Value), "owner is "+AttrText(l.Item, r.Schema.OwnerAttr)+", not a string"
		}
	case model.LockMissing:
		key, detail = r.LockKey(ci, l.Value), "expected, not found"
	default:
		key = r.LockKey(ci, l.Value)
		detail = "no owner"
		if l.Owner != "" {
			detail = "owner " + model.Printable(l.Owner)
		}
		if l.Status == model.LockForeign {
			detail += " (does not hold " + attr + ")"
		}
	}
	return r.line(width, selected, "  └ ", key, detail, string(l.Status), r.Styles.Status[l.Status])
}

// Orphan renders an orphan lock found by the check.
func (r Renderer) Orphan(p *model.Problem, width int, selected bool) string {
	ci := p.ConstraintIndex()
	detail := "no owner; nobody holds " + p.Constraint
	if p.Owner != "" {
		detail = "owner " + model.Printable(p.Owner) + " does not hold it"
	}
	return r.line(width, selected, "", r.LockKey(ci, p.Value), detail, string(model.LockOrphan), r.Styles.Status[model.LockOrphan])
}

// Problem renders a problem of the problems view.
func (r Renderer) Problem(p *model.Problem, width int, selected bool) string {
	key := model.Printable(p.Value)
	if p.Lock != nil {
		key = r.LockKey(p.ConstraintIndex(), p.Value)
	}
	var detail []string
	detail = append(detail, p.Constraint)
	if p.Owner != "" {
		detail = append(detail, "owner "+model.Printable(p.Owner))
	}
	if len(p.Accounts) > 0 {
		ids := make([]string, len(p.Accounts))
		for i, id := range p.Accounts {
			ids[i] = model.Printable(id)
		}
		detail = append(detail, "held by "+strings.Join(ids, ", "))
	}
	status := strings.TrimSuffix(strings.TrimSuffix(string(p.Kind), "_lock"), "_value")
	return r.line(width, selected, "  ", key, strings.Join(detail, "  "), status, r.Styles.Kind[p.Kind])
}

// Text renders a group title, a note or a link line.
func (r Renderer) Text(text string, style styles.Style, width int, selected bool) string {
	if selected {
		return r.Styles.Selected.Render(fit("▸ "+text, width))
	}
	return style.Render(fit("  "+text, width))
}

// Count renders n with a thousands separator, for headers.
func Count(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// LockItem renders a row of the locks view: the lock's key, its owner and
// its status in words.
func (r Renderer) LockItem(l *model.Lock, words string, status model.LockStatus, width int, selected bool) string {
	detail := r.Schema.Constraints[l.Constraint].Attr + "  no owner"
	if l.Owner != "" {
		detail = r.Schema.Constraints[l.Constraint].Attr + "  owner " + model.Printable(l.Owner)
	}
	st := r.Styles.Dim
	if status != model.LockNone {
		st = r.Styles.Status[status]
	}
	return r.line(width, selected, "", r.LockKey(l.Constraint, l.Value), detail, words, st)
}

// Where says which row of how many loaded is selected, for a view's
// status line: "row 5 of 1,204 · ", "" when there are none.
func Where(cursor, n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("row %s of %s · ", Count(int64(cursor+1)), Count(int64(n)))
}

// Filtered says what a filter keeps of how many rows, for a view's
// status line: "filter ada: 4 of 1,204 rows · ", "" when there is none.
func Filtered(q string, matched, rows int) string {
	if q == "" {
		return ""
	}
	return fmt.Sprintf("filter %s: %s of %s rows · ", model.Printable(q), Count(int64(matched)), Count(int64(rows)))
}

// Wrap fits lines to width between words (a word longer than a line is
// broken, never cut), each continuation indented as its line is, plus two:
// JSON indented one member a line wraps between its tokens, not inside
// them.
func Wrap(lines []string, width int) []string {
	var wrapped []string
	for _, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		parts := strings.Split(ansi.Wrap(l, max(width-indent-2, 20), ""), "\n")
		wrapped = append(wrapped, parts[0])
		for _, p := range parts[1:] {
			wrapped = append(wrapped, strings.Repeat(" ", indent+2)+p)
		}
	}
	return wrapped
}
