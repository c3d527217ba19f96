// Package statusbar renders the header above the views and the status
// line below them. Both are pure functions of what they are given.
package statusbar

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/styles"
)

// Header is what the header shows.
type Header struct {
	Table    string
	Where    string // the endpoint, or the AWS region and profile
	ReadOnly bool
	Views    []string // tab titles, in key order
	// Short are the tab titles in four letters (Acct), in key order, for
	// where the full ones do not fit beside the counts.
	Short  []string
	Active int
	Check  Check
	// Live says whether others' writes show unasked (the table's stream
	// is followed), or why not; "" says nothing.
	Live string
	// Sort is the order of the view shown, said beside its tab.
	Sort Sort
}

// Sort is a view's order as the header says it.
type Sort struct {
	Column string // what the rows are sorted by; "": as read, not said
	Arrow  string // ↑ ascending, ↓ descending
	// Partial says pages remain to be read: the sort orders the rows
	// loaded, not the table.
	Partial bool
}

// words says the sort, in fewer words when short ("" for none).
func (s Sort) words(short bool) string {
	switch {
	case s.Column == "":
		return ""
	case short && s.Partial:
		return model.Printable(s.Column) + s.Arrow + " (loaded)"
	case short:
		return model.Printable(s.Column) + s.Arrow
	case s.Partial:
		return "sorted by " + model.Printable(s.Column) + " " + s.Arrow + " (what is loaded)"
	}
	return "sorted by " + model.Printable(s.Column) + " " + s.Arrow
}

// Check is the background check as the header shows it.
type Check struct {
	Running  bool
	Progress model.CheckProgress
	Report   *model.Report
	Err      error
	Elapsed  time.Duration // how long the running check has run, at its last progress
	// Hint is the last report's SchemaHint: its problems are likely the
	// schema's fault (a wrong --account-prefix), not the table's.
	Hint string
	// Counts are the last report's problems by kind, counted once when it
	// arrived, not at each frame.
	Counts map[model.ProblemKind]int
	// Others is how many items of the account table the last report
	// found that are neither accounts nor locks (model.Report.OtherItems).
	Others int
}

// Render renders the two header lines at width. What the backend lacks
// is not among them: it is said where an action needs it (READ-ONLY, a
// write refused) and in help, not as the first thing anyone reads.
func (h Header) Render(st *styles.Styles, width int) string {
	header, _ := h.RenderSaying(st, width)
	return header
}

// RenderSaying is Render, and whether the header says the sort (where it
// does not, the status line does): one measure of the sort a frame.
func (h Header) RenderSaying(st *styles.Styles, width int) (string, bool) {
	// Narrower, what r and ? do goes from the live note, then the
	// endpoint loses its scheme and its parenthesis.
	where := model.Printable(h.Where)
	short, _, _ := strings.Cut(where, " (")
	short = strings.TrimPrefix(strings.TrimPrefix(short, "http://"), "https://")
	var line1 string
	live := model.Printable(h.Live)
	for i, at := range []string{where, where, short} {
		parts := []string{st.Title.Render("locktable"), model.Printable(h.Table) + " @ " + at}
		if h.ReadOnly {
			parts = append(parts, st.Error.Render("READ-ONLY"))
		}
		if live != "" {
			if i >= 1 {
				live, _, _ = strings.Cut(live, " (")
			}
			parts = append(parts, st.Dim.Render(live))
		}
		if h.Check.Hint != "" {
			parts = append(parts, st.Error.Render("no account found: wrong schema? see Problems"))
		}
		if line1 = strings.Join(parts, "  │  "); ansi.StringWidth(line1) <= width {
			break
		}
	}

	// Narrower, the counts take their short words and lose the check's
	// read capacity, then the count of other items (their tab says they
	// are there), then the reservations (not problems); then the tabs
	// take their short titles, a space apart, the inactive ones first;
	// only then do the inactive tabs keep their keys only, and last the
	// counts per kind become one total (the Problems tab has them),
	// before anything is cut.
	var line2 string
	sorted := h.sortWords(st, width)
	for _, try := range headerTries {
		if line2 = h.tabsLine(st, try, sorted); ansi.StringWidth(line2) <= width {
			break
		}
	}
	return ansi.Truncate(line1, width, "…") + "\n" + ansi.Truncate(line2, width, "…"), h.Sort.Column == "" || sorted != ""
}

// headerTries are the ways the second header line is tried, widest first.
var headerTries = []shown{
	{rcu: true, others: true, reserved: true}, {tiny: true, rcu: true, others: true, reserved: true},
	{tiny: true, others: true, reserved: true}, {tiny: true, reserved: true}, {tiny: true},
	{short: 1, tiny: true, others: true, reserved: true}, {short: 1, tiny: true, reserved: true}, {short: 1, tiny: true},
	{short: 2, tiny: true},
	{compact: true, tiny: true, rcu: true, others: true, reserved: true}, {compact: true, tiny: true, others: true, reserved: true},
	{compact: true, tiny: true, reserved: true}, {compact: true, tiny: true}, {compact: true, tiny: true, total: true},
}

// sortWords is the sort as the header says it at width: in full where
// the widest counts leave it room, else in short before any count gives
// way; "" where the tabs would lose their names for it (the status line
// says it then: RenderSaying).
func (h Header) sortWords(st *styles.Styles, width int) string {
	if full := h.Sort.words(false); ansi.StringWidth(h.tabsLine(st, headerTries[0], full)) <= width {
		return full
	}
	short := h.Sort.words(true)
	for _, try := range headerTries {
		if try.compact {
			break
		}
		if ansi.StringWidth(h.tabsLine(st, try, short)) <= width {
			return short
		}
	}
	return ""
}

// Words says the sort for the status line ("" for none).
func (s Sort) Words() string { return s.words(true) }

// tabsLine is the header's second line as try says: the tabs, the sort
// of the view shown beside its own (sorted, "" for none), the check's
// counts.
func (h Header) tabsLine(st *styles.Styles, try shown, sorted string) string {
	if sorted != "" {
		sorted = " " + st.Dim.Render(sorted)
	}
	var tabs []string
	for i, v := range h.Views {
		if i < len(h.Short) && (try.short == 2 || try.short == 1 && i != h.Active) {
			v = h.Short[i]
		}
		switch t := fmt.Sprintf("%d %s", i+1, v); {
		case i == h.Active:
			tabs = append(tabs, st.ActiveTab.Render(t)+sorted)
		case try.compact:
			tabs = append(tabs, st.Tab.Render(fmt.Sprint(i+1)))
		default:
			tabs = append(tabs, st.Tab.Render(t))
		}
	}
	gap, sep := "    ", "  "
	if try.tiny {
		gap = "  "
	}
	if try.short > 0 {
		sep = " "
	}
	return strings.Join(tabs, sep) + gap + h.Check.render(st, try)
}

// shown is what the second header line shows of the tabs and the
// check's counts: the tabs by their short titles (short: 1 the inactive
// ones, 2 all), the inactive tabs by key only (compact), the kinds in
// fewer letters (tiny), the read capacity (rcu), the other items
// (others), the reservations (reserved), and one total instead of a
// count per kind (total).
type shown struct {
	short                                       int
	compact, tiny, rcu, others, reserved, total bool
}

// shortKind names each kind in the header by the word its rows show, so
// that every count fits a narrow terminal.
var shortKind = map[model.ProblemKind]string{
	model.MissingLock: "missing", model.OrphanLock: "orphan", model.ForeignLock: "foreign",
	model.ExpiredLock: "expired", model.ExpiringLock: "expiring",
	model.DuplicateValue: "duplicate", model.InvalidValue: "invalid",
}

// tinyKind is shortKind for the narrowest terminals.
var tinyKind = map[model.ProblemKind]string{
	model.MissingLock: "miss", model.OrphanLock: "orph", model.ForeignLock: "forgn",
	model.ExpiredLock: "expd", model.ExpiringLock: "expg",
	model.DuplicateValue: "dup", model.InvalidValue: "inval",
}

// The narrowest words for the counts that are not problems.
const (
	tinyOthers   = "other"
	tinyReserved = "resv"
)

// Abbreviation is a short form the header takes where its line is
// narrow, and what it stands for.
type Abbreviation struct{ Short, Long string }

// Abbreviations are the short forms of the header's counts, every one
// it can show (help's legend says them): each problem kind's, then the
// other items' and the reservations'. The tabs' short titles are the
// caller's (Header.Short).
func Abbreviations() []Abbreviation {
	var out []Abbreviation
	for _, k := range model.ProblemKinds {
		out = append(out, Abbreviation{tinyKind[k], string(k)})
	}
	return append(out, Abbreviation{tinyOthers, "other items"}, Abbreviation{tinyReserved, "reservations"})
}

// render says how the check stands: its progress while it runs, the
// problem counts per kind once it is done, as try says.
func (c Check) render(st *styles.Styles, try shown) string {
	switch {
	case c.Err != nil:
		return st.Error.Render("check failed (r to retry)")
	case c.Report != nil:
		return c.counts(st, try)
	case c.Running:
		p := c.Progress
		of := ""
		if p.Approx > 0 {
			of = " / ~" + rows.Count(p.Approx)
		}
		phase := "checking"
		if p.Phase == model.PhaseConfirm || p.Phase == model.PhaseRescan {
			phase = "confirming"
		}
		rate := ""
		if c.Elapsed >= time.Second {
			rate = fmt.Sprintf(" (%s items/s)", rows.Count(int64(float64(p.Scanned)/c.Elapsed.Seconds())))
		}
		return st.Dim.Render(fmt.Sprintf("%s: %s%s items scanned%s", phase, rows.Count(p.Scanned), of, rate))
	}
	return ""
}

// counts are a finished check's counts, as try says: per kind (those of
// TTLs where the check judged TTLs), then the other items, the
// reservations and the read capacity.
func (c Check) counts(st *styles.Styles, try shown) string {
	var parts []string
	names, sep := shortKind, " · "
	if try.tiny {
		names, sep = tinyKind, "·"
	}
	ttl := c.Report.Now != 0
	if try.total {
		n := len(c.Report.Problems)
		style := st.Dim
		if n > 0 {
			style = st.Error
		}
		return style.Render(fmt.Sprintf("%d problems", n))
	}
	// Only what is there is counted (a zero beside other zeros hidden
	// read as a kind that is checked apart); a check that found nothing
	// says so.
	for _, k := range model.ProblemKinds {
		if c.Counts[k] > 0 {
			parts = append(parts, st.Kind[k].Render(fmt.Sprintf("%s %d", names[k], c.Counts[k])))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, st.Dim.Render("no problems"))
	}
	if c.Others > 0 && try.others {
		other := "other items "
		if try.tiny {
			other = tinyOthers + " "
		}
		parts = append(parts, st.Dim.Render(other+rows.Count(int64(c.Others))))
	}
	if ttl && try.reserved && c.Report.Reservations > 0 {
		reserved := "reserved "
		if try.tiny {
			reserved = tinyReserved + " "
		}
		parts = append(parts, st.Dim.Render(reserved+rows.Count(int64(c.Report.Reservations))))
	}
	if used := c.Report.ConsumedRCU; used > 0 && try.rcu {
		parts = append(parts, st.Dim.Render("check: "+model.CapacityText(used)+" RCU"))
	}
	return strings.Join(parts, sep)
}

// Status renders the status line: an error (with how to retry) wins over a
// message; spinner is shown while something loads. errText is the error
// as it may be shown (credentials redacted), "" for none. What does not
// fit one line wraps between words onto a second (the root gives it the
// help line's), cut only past that.
func Status(st *styles.Styles, width int, spinner string, loading bool, msg string, errText string) string {
	var s string
	style := st.Dim
	switch {
	case errText != "":
		text := "error: " + model.OneLine(errText)
		if ansi.StringWidth(text)+len("  (r to retry)") <= width {
			return st.Error.Render(text) + st.Dim.Render("  (r to retry)")
		}
		s, style = text+"  (r to retry)", st.Error
	case loading:
		s, style = spinner+" "+msg, st.Header
	default:
		s = msg
	}
	if ansi.StringWidth(s) <= width {
		return style.Render(s)
	}
	lines := strings.Split(ansi.Wrap(s, max(width, 1), " "), "\n")
	if len(lines) > 2 {
		lines = []string{lines[0], ansi.Truncate(strings.Join(lines[1:], " "), width, "…")}
	}
	for i := range lines {
		lines[i] = style.Render(strings.TrimRight(lines[i], " "))
	}
	return strings.Join(lines, "\n")
}

// TooSmall says the terminal is w by h cells and needs minW by minH, in
// lines that fit it; quit is the key that quits.
func TooSmall(w, h, minW, minH int, quit string) string {
	s := fmt.Sprintf("terminal too small: %dx%d, locktable needs at least %dx%d (%s quits)", w, h, minW, minH, quit)
	return ansi.Wrap(s, max(w, 1), " ")
}
