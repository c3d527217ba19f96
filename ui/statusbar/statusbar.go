// Package statusbar renders the header above the views and the status
// line below them. Both are pure functions of what they are given.
package statusbar

import (
	"fmt"
	"math"
	"strconv"
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
	// Missing says what the backend lacks, one line each ("what: what it
	// changes"); the header names each by what comes before the colon.
	Missing []string
	Views   []string // tab titles, in key order
	Active  int
	Check   Check
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

// Render renders the two header lines at width.
func (h Header) Render(st *styles.Styles, width int) string {
	var lacks []string
	for _, m := range h.Missing {
		what, _, _ := strings.Cut(m, ":")
		lacks = append(lacks, what)
	}
	// Narrower, what the backend lacks is counted, with where the words
	// are (the help screen ends with them), then the endpoint loses its
	// scheme and its parenthesis.
	counted := fmt.Sprintf("backend lacks %d (see ?)", len(lacks))
	where := model.Printable(h.Where)
	short, _, _ := strings.Cut(where, " (")
	short = strings.TrimPrefix(strings.TrimPrefix(short, "http://"), "https://")
	var line1 string
	for _, try := range [][2]string{{where, "backend: " + strings.Join(lacks, ", ")}, {where, counted}, {short, counted}, {short, fmt.Sprintf("lacks %d: ?", len(lacks))}} {
		parts := []string{st.Title.Render("locktable"), model.Printable(h.Table) + " @ " + try[0]}
		if h.ReadOnly {
			parts = append(parts, st.Error.Render("READ-ONLY"))
		}
		if len(lacks) > 0 {
			parts = append(parts, st.Error.Render(try[1]))
		}
		if h.Check.Hint != "" {
			parts = append(parts, st.Error.Render("no account found: wrong schema? see Problems"))
		}
		if line1 = strings.Join(parts, "  │  "); ansi.StringWidth(line1) <= width {
			break
		}
	}

	// Narrower, the inactive tabs keep their keys only, then the counts
	// their short words, before anything is cut.
	var line2 string
	for compact := range 3 {
		var tabs []string
		for i, v := range h.Views {
			switch t := fmt.Sprintf("%d %s", i+1, v); {
			case i == h.Active:
				tabs = append(tabs, st.ActiveTab.Render(t))
			case compact > 0:
				tabs = append(tabs, st.Tab.Render(fmt.Sprint(i+1)))
			default:
				tabs = append(tabs, st.Tab.Render(t))
			}
		}
		gap := "    "
		if compact > 0 {
			gap = "  "
		}
		line2 = strings.Join(tabs, "  ") + gap + h.Check.render(st, compact > 1)
		if ansi.StringWidth(line2) <= width {
			break
		}
	}
	return ansi.Truncate(line1, width, "…") + "\n" + ansi.Truncate(line2, width, "…")
}

// shortKind names each kind in the header by the word its rows show, so
// that every count fits a narrow terminal.
var shortKind = map[model.ProblemKind]string{
	model.MissingLock: "missing", model.OrphanLock: "orphan", model.ForeignLock: "foreign",
	model.DuplicateValue: "duplicate", model.InvalidValue: "invalid",
}

// tinyKind is shortKind for the narrowest terminals.
var tinyKind = map[model.ProblemKind]string{
	model.MissingLock: "miss", model.OrphanLock: "orph", model.ForeignLock: "forgn",
	model.DuplicateValue: "dup", model.InvalidValue: "inval",
}

// render says how the check stands: its progress while it runs, the
// problem counts per kind once it is done (tiny: in fewer letters).
func (c Check) render(st *styles.Styles, tiny bool) string {
	switch {
	case c.Err != nil:
		return st.Error.Render("check failed (r to retry)")
	case c.Report != nil:
		var parts []string
		names, sep := shortKind, " · "
		if tiny {
			names, sep = tinyKind, "·"
		}
		for _, k := range model.ProblemKinds {
			style := st.Dim
			if c.Counts[k] > 0 {
				style = st.Kind[k]
			}
			parts = append(parts, style.Render(fmt.Sprintf("%s %d", names[k], c.Counts[k])))
		}
		if c.Others > 0 {
			other := "other items "
			if tiny {
				other = "other "
			}
			parts = append(parts, st.Dim.Render(other+rows.Count(int64(c.Others))))
		}
		if rcu := c.Report.ConsumedRCU; rcu > 0 {
			parts = append(parts, st.Dim.Render("check: "+rcuText(rcu)+" RCU"))
		}
		return strings.Join(parts, sep)
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

// Status renders the status line: an error (with how to retry) wins over a
// message; spinner is shown while something loads. errText is the error
// as it may be shown (credentials redacted), "" for none.
func Status(st *styles.Styles, width int, spinner string, loading bool, msg string, errText string) string {
	var s string
	switch {
	case errText != "":
		s = st.Error.Render("error: "+model.OneLine(errText)) + st.Dim.Render("  (r to retry)")
	case loading:
		s = spinner + " " + msg
	default:
		s = st.Dim.Render(msg)
	}
	return ansi.Truncate(s, width, "…")
}

// rcuText is read capacity as the header shows it: whole units with
// thousands separators, one decimal below 10.
func rcuText(rcu float64) string {
	if rcu < 10 {
		return strconv.FormatFloat(rcu, 'f', 1, 64)
	}
	return rows.Count(int64(math.Round(rcu)))
}
