// Package rows renders one line of a view from domain values. Rendering is
// a pure function of its inputs, tested without Bubble Tea, and only
// visible rows are ever rendered.
package rows

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/browser"
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
	return r.line(r.AccountCells(a), width, selected)
}

// AccountCells are an account row's parts: its key whole, its values cut
// first.
func (r Renderer) AccountCells(a *model.AccountView) Cells {
	var attrs []Part
	for i, c := range r.Schema.Constraints {
		sep := "  "
		if i == 0 {
			sep = ""
		}
		attrs = append(attrs, Part{Text: sep + c.Attr + "=" + AttrText(a.Item, c.Attr), Rank: Value, Column: c.Attr})
	}
	status, st := "", r.Styles.Dim
	switch {
	case a.Duplicate():
		status, st = string(model.LockDuplicate), r.Styles.Status[model.LockDuplicate]
	case a.Problematic():
		status, st = "problem", r.Styles.Dim
	}
	return Cells{Key: AccountKey(a), Whole: r.Schema.AccountSK == model.KeyInID, Detail: attrs, Status: status, StatusStyle: st.Paint()}
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
// account table, or TABLE/value for a lock table; in its constraint's
// other spelling when alt (model.Constraint.AltPrefix).
func (r Renderer) LockKey(ci int, value string, alt bool) string {
	table, key := r.Schema.LockKeyAs(ci, value, alt)
	return r.keyText(table, key, value)
}

// ProblemLock renders the key of p's lock as the check found it.
func (r Renderer) ProblemLock(p *model.Problem) string {
	table, key := r.Schema.LockOf(*p)
	return r.keyText(table, key, p.Value)
}

// ListedLockKey renders the key of a lock as the locks view listed it, in
// the spelling it has.
func (r Renderer) ListedLockKey(l *model.Lock) string {
	return r.keyText(r.listedLock(l))
}

// listedLock is the table and key of a lock as the locks view listed it.
func (r Renderer) listedLock(l *model.Lock) (table string, key map[string]string, value string) {
	if l.Key == nil {
		table, key = r.Schema.LockKeyAs(l.Constraint, l.Value, false)
		return table, key, l.Value
	}
	return l.Table, l.Key, l.Value
}

func (r Renderer) keyText(table string, key map[string]string, value string) string {
	if table != r.Schema.Table {
		return model.Printable(table + "/" + value)
	}
	return model.Printable(key[r.Schema.PK])
}

// keyShows reports whether the key keyText renders contains q (lower
// case, as browser.Matcher's), without rendering it: the one rule by
// which every view's filter (/) matches the lock keys its rows show.
func (r Renderer) keyShows(table string, key map[string]string, value, q string) bool {
	if table != r.Schema.Table {
		return browser.ContainsJoined(table+"/", value, q)
	}
	return browser.Contains(key[r.Schema.PK], q)
}

// LockKeyShows reports whether the key LockKey renders contains q.
func (r Renderer) LockKeyShows(ci int, value string, alt bool, q string) bool {
	table, key := r.Schema.LockKeyAs(ci, value, alt)
	return r.keyShows(table, key, value, q)
}

// ProblemLockShows reports whether the key ProblemLock renders contains
// q.
func (r Renderer) ProblemLockShows(p *model.Problem, q string) bool {
	table, key := r.Schema.LockOf(*p)
	return r.keyShows(table, key, p.Value, q)
}

// ListedLockKeyShows reports whether the key ListedLockKey renders
// contains q.
func (r Renderer) ListedLockKeyShows(l *model.Lock, q string) bool {
	table, key, value := r.listedLock(l)
	return r.keyShows(table, key, value, q)
}

// keyNamesConstraint says whether the partition key of a lock of
// constraint ci tells it from the other constraints' locks: false where
// another constraint's locks share its prefix and only the sort key says
// which attribute a lock guards (ElectroDB's $mi6#value_, with
// name_email or name_backup in the sort key). The row must then name the
// attribute.
func (r Renderer) keyNamesConstraint(ci int) bool {
	if ci < 0 || ci >= len(r.Schema.Constraints) {
		return true
	}
	c := r.Schema.Constraints[ci]
	for i, o := range r.Schema.Constraints {
		if i != ci && c.InAccountTable() && o.InAccountTable() && o.Prefix == c.Prefix && o.Scope == c.Scope {
			return false
		}
	}
	return true
}

// attrRank is how the attribute of a lock of constraint ci gives way in
// its row: first, where the key says it (UNIQ#EMAIL#), whole where only
// the sort key does.
func (r Renderer) attrRank(ci int) Rank {
	if r.keyNamesConstraint(ci) {
		return Words
	}
	return Whole
}

// sharedOf is how many cells of lock key key (for value) every lock of
// its constraint shares: all but the value's.
func sharedOf(key, value string) int {
	return max(cellWidth(key)-cellWidth(model.Printable(value)), 0)
}

// Lock renders the lock row of constraint ci under account a.
func (r Renderer) Lock(a *model.AccountView, ci int, width int, selected bool) string {
	return r.line(r.LockCells(a, ci), width, selected)
}

// LockCells are the parts of the lock row of constraint ci under account
// a: its key cut in the middle, its owner whole.
func (r Renderer) LockCells(a *model.AccountView, ci int) Cells {
	l := a.Locks[ci]
	attr := r.Schema.Constraints[ci].Attr
	c := Cells{Indent: "  └ ", Elide: true, Status: string(l.Status), StatusStyle: r.Styles.Status[l.Status].Paint()}
	switch l.Status {
	case model.LockNone:
		c.Key, c.Elide, c.Detail = "("+attr+")", false, []Part{{Text: "no value: no lock expected", Rank: Value}}
	case model.LockInvalid:
		if l.Item == nil {
			c.Key, c.Elide, c.Detail = "("+attr+")", false, []Part{{Text: attr + " is " + AttrText(a.Item, attr) + ": cannot be locked", Rank: Value}}
		} else {
			c.Key, c.Shared, c.Detail = r.LockKey(ci, l.Value, l.Alt), -1, []Part{{Text: "owner is " + AttrText(l.Item, r.Schema.OwnerAttr) + ", not a string", Rank: Value}}
		}
	case model.LockUnread:
		// Drawn before the locks are read: what is expected, no verdict.
		c.Key, c.Shared, c.Detail = r.LockKey(ci, l.Value, false), -1, []Part{{Text: "lock not read yet", Rank: Whole}}
	case model.LockMissing:
		c.Key, c.Shared, c.Detail = r.LockKey(ci, l.Value, l.Alt), -1, []Part{{Text: "expected, not found", Rank: Whole}}
		if !r.keyNamesConstraint(ci) {
			c.Detail = []Part{{Text: attr + " expected, not found", Rank: Whole}}
		}
	default:
		c.Key, c.Shared = r.LockKey(ci, l.Value, l.Alt), -1
		switch {
		case l.Owner != "":
			c.Detail = []Part{{Text: "owner " + model.Printable(l.Owner), Rank: Whole, Column: OwnerColumn}}
		case r.Schema.OwnerlessLocks:
			// Its holder is whoever holds the value: the account above.
			c.Detail = []Part{{Text: attr + " constraint", Rank: Whole}}
		default:
			c.Detail = []Part{{Text: "no owner", Rank: Whole, Column: OwnerColumn}}
		}
		if l.Status == model.LockForeign {
			c.Detail = append(c.Detail, Part{Text: " (does not hold " + attr + ")", Rank: Words, Column: OwnerColumn})
		}
		c.Detail = appendTTL(c.Detail, l.ExpiresAt, a.Now)
	}
	if c.Shared < 0 {
		c.Shared = sharedOf(c.Key, l.Value)
	}
	return c
}

// appendTTL adds to a lock's detail when its TTL of at passed or will, at
// now ("expired 3 h ago", "reserved 12 min more"), kept whole: it is what
// an expired or a reserved lock's row is about. Nothing without a TTL, or
// without a now to count from (0).
func appendTTL(detail []Part, at, now int64) []Part {
	if at == 0 || now == 0 {
		return detail
	}
	return append(detail, Part{Text: "  " + model.TTLSaid(at, now), Rank: Whole, Column: ExpiresColumn})
}

// Orphan renders a lock nobody holds found by the check (an orphan, or an
// expired lock), of a check that judged TTLs at now.
func (r Renderer) Orphan(p *model.Problem, now int64, width int, selected bool) string {
	return r.line(r.OrphanCells(p, now), width, selected)
}

// OrphanCells are the parts of a lock nobody holds: its key, and its
// owner whole; an expired lock's time at now whole too.
func (r Renderer) OrphanCells(p *model.Problem, now int64) Cells {
	detail := []Part{{Text: "no owner;", Rank: Whole, Column: OwnerColumn}, {Text: " nobody holds " + p.Constraint, Rank: Words, Column: OwnerColumn}}
	if r.Schema.OwnerlessLocks {
		detail = []Part{{Text: "nobody holds " + p.Constraint, Rank: Whole}}
	}
	if p.Owner != "" {
		detail = []Part{{Text: "owner " + model.Printable(p.Owner), Rank: Whole, Column: OwnerColumn}, {Text: " does not hold it", Rank: Words, Column: OwnerColumn}}
	}
	status := model.LockOrphan
	if p.Kind == model.ExpiredLock {
		detail[0].Text = strings.TrimSuffix(detail[0].Text, ";")
		detail = appendTTL(detail[:1], p.ExpiresAt, now)
		status = model.LockExpired
	}
	key := r.ProblemLock(p)
	return Cells{Key: key, Elide: true, Shared: sharedOf(key, p.Value), Detail: detail,
		Status: string(status), StatusStyle: r.Styles.Status[status].Paint()}
}

// Problem renders a problem of the problems view, of a check that judged
// TTLs at now.
func (r Renderer) Problem(p *model.Problem, now int64, width int, selected bool) string {
	return r.line(r.ProblemCells(p, now), width, selected)
}

// ProblemCells are a problem's parts: its lock key (or value) cut in the
// middle, its owner and holders whole, its attribute dropped first where
// the key says it (attrRank). An
// expired or expiring lock says when at now, whole, and what that means
// as the report does, dropped first.
func (r Renderer) ProblemCells(p *model.Problem, now int64) Cells {
	key := model.Printable(p.Value)
	if p.Lock != nil {
		key = r.ProblemLock(p)
	}
	detail := []Part{{Text: p.Constraint, Rank: r.attrRank(r.Schema.Constraint(p.Constraint)), Column: AttributeColumn}}
	if p.Owner != "" {
		// An owner that is one of the holders is said by them.
		rank := Whole
		if slices.Contains(p.Accounts, p.Owner) {
			rank = Words
		}
		detail = append(detail, Part{Text: "  owner " + model.Printable(p.Owner), Rank: rank, Column: OwnerColumn})
	}
	if len(p.Accounts) > 0 {
		ids := make([]string, len(p.Accounts))
		for i, id := range p.Accounts {
			ids[i] = model.Printable(id)
		}
		detail = append(detail, Part{Text: "  held by ", Rank: Whole, Column: HoldersColumn}, Part{Text: ids[0], Rank: Whole, Middle: true, Column: HoldersColumn})
		if len(ids) > 1 {
			detail = append(detail, Part{Text: ", " + strings.Join(ids[1:], ", "), Rank: Value, Short: fmt.Sprintf(" +%d", len(ids)-1), Column: HoldersColumn})
		}
	}
	if c := p.TTLConsequence(); c != "" {
		detail = append(appendTTL(detail, p.ExpiresAt, now), Part{Text: "; " + c, Rank: Words, Column: ExpiresColumn})
	}
	status := strings.TrimSuffix(strings.TrimSuffix(string(p.Kind), "_lock"), "_value")
	return Cells{Indent: "  ", Key: key, Elide: true, Shared: sharedOf(key, p.Value), Detail: detail, Status: status, StatusStyle: r.Styles.Kind[p.Kind].Paint()}
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

// LockItem renders a row of the locks view: the lock's key, its owner,
// its TTL at now, and its status in words.
func (r Renderer) LockItem(l *model.Lock, words string, status model.LockStatus, now int64, width int, selected bool) string {
	return r.line(r.LockItemCells(l, words, status, now), width, selected)
}

// LockItemCells are a lock item's parts: its key cut in the middle, its
// owner and its TTL at now (0: not known yet, not said) whole, its
// attribute dropped first where the key says it (attrRank). A lock that
// names no owner by design (ElectroDB's) does not say "no owner".
func (r Renderer) LockItemCells(l *model.Lock, words string, status model.LockStatus, now int64) Cells {
	detail := []Part{{Text: r.Schema.Constraints[l.Constraint].Attr, Rank: r.attrRank(l.Constraint), Column: AttributeColumn}, {Text: "  no owner", Rank: Whole, Column: OwnerColumn}}
	switch {
	case l.Owner != "":
		detail[1].Text = "  owner " + model.Printable(l.Owner)
	case r.Schema.OwnerlessLocks:
		detail = detail[:1] // by design: its holder is whoever holds the value
	}
	if l.Item != nil {
		detail = appendTTL(detail, l.ExpiresAt, now)
	}
	st := r.Styles.Dim
	if status != model.LockNone {
		st = r.Styles.Status[status]
	}
	key := r.ListedLockKey(l)
	return Cells{Key: key, Elide: true, Shared: sharedOf(key, l.Value), Detail: detail, Status: words, StatusStyle: st.Paint()}
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
