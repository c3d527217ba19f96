// Package problems is the problems view: the check's problems grouped by
// kind, each group under a title with its count. enter on a problem asks
// for its rows to be pinned on top of the accounts view.
package problems

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/keymap"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/batch"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/sorting"
	"github.com/locktable/locktable/ui/statusbar"
	"github.com/locktable/locktable/ui/write"
)

// Model is the problems view.
type Model struct {
	km      KeyMap
	src     *source
	list    browser.Model
	ready   bool // a report is shown
	check   statusbar.Check
	w, h    int
	hint    string   // the report's schema hint ("" for none)
	wrapped []string // hint, wrapped to the width: shown above the list
	// warned are the report's warnings (TTLs DynamoDB ignores), the first
	// maxWarnings of them wrapped to the width, shown under the hint.
	warned []string
	note   string  // what the last key could not do
	asked  tea.Msg // what the last key asks of the write dialog (Asked)
	// moved says where the selection went when its problem left (SetReport),
	// until the next key.
	moved string
	// Sort is the order of the groups and the problems in them, as the
	// view's keys set it (the header says it): read it, the keys change it.
	Sort *sorting.Order
}

// New returns the problems view, waiting for the check.
func New(r *rows.Renderer, km KeyMap) Model {
	src := &source{r: r, marked: map[string]bool{}, sort: sorting.New("kind", "value", "account")}
	return Model{km: km, src: src, list: browser.New(km.KeyMap, src), Sort: &src.sort}
}

// keys are the bindings as they work now: enter needs a problem on the
// selected line (a clean check has none).
func (m Model) keys() KeyMap {
	km := m.km
	_, selected := m.Selected()
	km.Enter.SetEnabled(selected)
	km.Fix.SetEnabled(km.Fix.Enabled() && selected)
	km.Mark.SetEnabled(selected)
	km.MarkAll.SetEnabled(m.ready && len(m.src.problems) > 0 && m.list.Len() > 0)
	km.FixMarked.SetEnabled(km.FixMarked.Enabled() && len(m.src.marked) > 0)
	return km
}

// Takes reports whether the selected line takes b: f needs a problem.
func (m Model) Takes(b key.Binding) bool {
	km := m.keys()
	return keymap.Offered(b, km.Fix, km.FixMarked)
}

// ShortHelp is the help line's part for this view.
func (m Model) ShortHelp() []key.Binding { return m.keys().ShortHelp() }

// FullHelp is the help screen's part for this view.
func (m Model) FullHelp() [][]key.Binding { return m.keys().FullHelp() }

// Status says what the last key could not do, or where the selection is
// among how many problems; "" before the report.
func (m Model) Status() string {
	if m.note != "" || !m.ready {
		return m.note
	}
	kept, of := m.list.Matched()
	return rows.Where(m.list.Pos(), m.list.Len()) + rows.Filtered(m.list.Filter(), kept, of) +
		fmt.Sprintf("%s problems, all shown", rows.Count(int64(len(m.src.problems)))) + m.markedNote() + movedNote(m.moved)
}

// movedNote is moved as the status line's last part ("" for none).
func movedNote(moved string) string {
	if moved == "" {
		return ""
	}
	return " · " + moved
}

// markedNote counts the marked problems for the status line ("" for
// none), wherever they are (the filter may hide some), and says what F
// does with them (batch.Marked).
func (m Model) markedNote() string {
	if n := len(m.src.marked); n > 0 {
		return " · " + batch.Marked(n, m.marked(), m.km.FixMarked.Help().Key)
	}
	return ""
}

// marked are the marked problems, in the view's order.
func (m Model) marked() []model.Problem {
	var ps []model.Problem
	for _, p := range m.src.problems {
		if m.src.marked[p.Identity()] {
			ps = append(ps, p)
		}
	}
	return ps
}

// unmark unmarks the problems of ps (a batch sent their repairs).
func (m *Model) unmark(ps []model.Problem) {
	for _, p := range ps {
		delete(m.src.marked, p.Identity())
	}
}

// mark marks the selected problem, or unmarks it.
func (m *Model) mark() {
	p, ok := m.Selected()
	if !ok {
		return
	}
	k := p.Identity()
	if m.src.marked[k] {
		delete(m.src.marked, k)
		return
	}
	m.src.marked[k] = true
}

// markAll marks every problem the list shows (under the filter, if any),
// or unmarks them when they are all marked already.
func (m *Model) markAll() {
	var shown []string
	all := true
	for _, i := range m.list.Shown() {
		if p, ok := m.src.at(i); ok {
			k := p.Identity()
			shown = append(shown, k)
			all = all && m.src.marked[k]
		}
	}
	for _, k := range shown {
		if all {
			delete(m.src.marked, k)
		} else {
			m.src.marked[k] = true
		}
	}
}

// DisableWrites turns off the keys that ask for a write.
func (m *Model) DisableWrites() {
	m.km.Fix.SetEnabled(false)
	m.km.FixMarked.SetEnabled(false)
}

// SetSize sets the view's size in cells.
func (m *Model) SetSize(w, h int) {
	m.w, m.h = w, h
	m.layout()
}

// SetReport shows a finished check's problems, under its schema hint
// (check.ReportMsg's) if it has one.
//
// The selection is a problem, not a line: lines above it come and go as
// the table changes, and it stays on its problem (model.Problem.Identity). When its
// problem is no longer found, it moves to the nearest one still found
// (the next, else the one before), and the status says so.
func (m *Model) SetReport(r *model.Report, hint string) {
	was, had := m.Selected()
	old, at := m.src.problems, m.list.Cursor()
	m.src.set(r) // marks of problems no longer found go
	m.ready, m.hint = true, hint
	m.layout()
	if had {
		i, found := m.src.line(was)
		if !found {
			if i, found = m.src.nearest(old, was); found {
				m.moved = fmt.Sprintf("%s %s is no longer found: the nearest problem is selected", was.Kind, model.Printable(was.Value))
			}
		}
		if found {
			at = i
		}
	}
	m.list.SetCursor(at)
}

// maxWarnings is how many of a report's warnings the view shows; the
// rest are counted (check lists them all).
const maxWarnings = 2

// layout wraps the schema hint and the warnings to the width and gives
// the list the rest.
func (m *Model) layout() {
	m.wrapped, m.warned = nil, nil
	if m.hint != "" {
		m.wrapped = append(strings.Split(ansi.Wrap("hint: "+m.hint, max(m.w-2, 20), " ,"), "\n"), "")
	}
	if r := m.src.report; r != nil && len(r.Warnings) > 0 {
		for _, w := range r.Warnings[:min(len(r.Warnings), maxWarnings)] {
			m.warned = append(m.warned, strings.Split(ansi.Wrap("warning: "+model.Printable(w), max(m.w-2, 20), " ,"), "\n")...)
		}
		if n := len(r.Warnings) - maxWarnings; n > 0 {
			m.warned = append(m.warned, fmt.Sprintf("and %d more warnings: locktable check lists them", n))
		}
		m.warned = append(m.warned, "")
	}
	m.list.SetSize(m.w, max(m.h-len(m.wrapped)-len(m.warned), 1))
}

// SetCheck says how the check stands, for what the view shows before its
// report comes (or when none will). The root calls it from Update each
// time the check starts, progresses or ends; never from View.
func (m *Model) SetCheck(c statusbar.Check) { m.check = c }

// SetNow makes now (epoch seconds) the present the problems' time words
// count from, once it is past the check's start.
func (m *Model) SetNow(now int64) { m.src.now = now }

// ShowKind selects the first problem of kind k, if there is one.
func (m *Model) ShowKind(k model.ProblemKind) {
	for i := range m.src.lines {
		if p, ok := m.src.at(i); ok && p.Kind == k {
			m.list.SetCursor(i)
			return
		}
	}
}

// Update moves the selection; enter on a problem asks to jump to its
// rows, f to fix it.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if s, ok := msg.(batch.SettledMsg); ok {
		m.unmark(s.Sent) // what was not sent stays marked
		return m, nil
	}
	k, ok := msg.(tea.KeyPressMsg)
	if ok {
		m.note, m.moved = "", ""
	}
	if c, click := msg.(tea.MouseClickMsg); click {
		c.Y -= len(m.wrapped) + len(m.warned) // the hint and the warnings are above the list
		msg = c
	}
	switch p, selected := m.Selected(); {
	case ok && m.ready && m.onMarks(k):
	case ok && key.Matches(k, m.km.Sort, m.km.Reverse):
		m.sortBy(k)
	case !ok || !key.Matches(k, m.km.Enter, m.km.Fix):
		m.list, _ = m.list.Update(msg)
	case !selected && key.Matches(k, m.km.Fix):
		m.note = write.SelectAProblem
	case !selected:
	case key.Matches(k, m.km.Enter):
		return m, events.Emit(search.JumpMsg{Problem: p})
	default:
		m.asked = write.FixMsg{Problem: p}
	}
	return m, nil
}

// sortBy steps the sort (k: the sort key or the reverse key) and lays
// the problems out in its order, the selection staying on its problem.
func (m *Model) sortBy(k tea.KeyPressMsg) {
	m.note = m.src.sort.Step(key.Matches(k, m.km.Reverse))
	if m.src.report == nil {
		return
	}
	was, had := m.Selected()
	m.src.set(m.src.report)
	at := m.list.Cursor()
	if i, found := m.src.line(was); had && found {
		at = i
	}
	m.list.SetCursor(at)
}

// onMarks handles the keys of marks (keymap.Marks), and reports whether
// k was one: space marks the selected problem, ctrl+a those shown, F
// asks for their fixes.
func (m *Model) onMarks(k tea.KeyPressMsg) bool {
	switch {
	case key.Matches(k, m.km.Mark):
		m.mark()
	case key.Matches(k, m.km.MarkAll):
		m.markAll()
	case !key.Matches(k, m.km.FixMarked) || !m.km.FixMarked.Enabled():
		return false
	case len(m.src.marked) > 0:
		m.asked = batch.FixMsg{Problems: m.marked()}
	default:
		m.note = "nothing marked: " + m.km.Mark.Help().Key + " marks a problem, " + m.km.MarkAll.Help().Key + " every problem shown"
	}
	return true
}

// Asked returns what the last key asks of the write dialog (a fix; nil
// for none) and forgets it: the root opens the dialog in the same update.
func (m *Model) Asked() tea.Msg {
	a := m.asked
	m.asked = nil
	return a
}

// Selected is the problem on the selected line, if it is one.
func (m Model) Selected() (model.Problem, bool) {
	p, ok := m.src.at(m.list.Cursor())
	if !ok || m.list.Len() == 0 {
		return model.Problem{}, false
	}
	return *p, true
}

// SelectedRef is the key of the item the selected problem is about, for
// the copy keys: the lock for an orphan, foreign or duplicated value; the
// account for a missing lock or an invalid value, whose lock is not there.
func (m Model) SelectedRef() (model.KeyRef, bool) {
	p, ok := m.Selected()
	if !ok {
		return model.KeyRef{}, false
	}
	sc := m.src.r.Schema
	if (p.Kind == model.MissingLock || p.Kind == model.InvalidValue) && len(p.Accounts) > 0 {
		return model.KeyRef{Table: sc.Table, Key: sc.AccountKey(p.Accounts[0])}, true
	}
	if p.Lock == nil {
		return model.KeyRef{}, false
	}
	table := p.LockTable
	if table == "" {
		table = sc.Table
	}
	return model.KeyRef{Table: table, Key: p.Lock}, true
}

// SetFilter shows only the problems that contain q
// (browser.Model.SetFilter); "" shows them all.
func (m *Model) SetFilter(q string) { m.list.SetFilter(q) }

// Filter is the filter in force, "" for none.
func (m Model) Filter() string { return m.list.Filter() }

// Matched is how many problems the filter keeps, of how many.
func (m Model) Matched() (kept, of int) { return m.list.Matched() }

// Ready reports whether a check's problems are shown.
func (m Model) Ready() bool { return m.ready }

// View renders the visible lines, or why there are none yet.
func (m Model) View() string {
	switch {
	case !m.ready:
		return m.src.r.Styles.Dim.Render("  " + m.waiting())
	case m.src.Len() == 0 && m.wrapped == nil:
		return m.warnings() + m.src.r.Styles.Dim.Render("  "+m.src.clean())
	}
	var b strings.Builder
	for _, l := range m.wrapped {
		b.WriteString(m.src.r.Styles.Error.Render(l) + "\n")
	}
	return b.String() + m.warnings() + m.list.View()
}

// warnings are the warning lines, each ended.
func (m Model) warnings() string {
	var b strings.Builder
	for _, l := range m.warned {
		b.WriteString(m.src.r.Styles.Dim.Render(l) + "\n")
	}
	return b.String()
}

// waiting says why no problem is shown yet.
func (m Model) waiting() string {
	switch {
	case m.check.Err != nil:
		return "the check failed, so no problem is known (r retries it; the header and status line say why)"
	case m.check.Running:
		return "the check is still running: problems appear here when it is done"
	}
	return "the check has not run"
}

// source is the problems view's lines: the check's problems grouped by
// kind under a title with their count. It implements browser.Source.
type source struct {
	r        *rows.Renderer
	report   *model.Report
	problems []model.Problem // grouped by kind, report order within a kind
	lines    []line
	screen   rows.Screen
	// marked are the marked problems by their Identity: they outlive the
	// filter and a new report that still finds them.
	marked map[string]bool
	now    int64 // the present, as the clock last ticked (0: it does not)
	sort   sorting.Order
	// generation counts the reports set (browser.Appending): a kept filter
	// judges every line again under a new report, even one of as many
	// lines, whose lines are other problems.
	generation int
	held       int // the generation whose lines the screen holds
}

// Generation counts the reports set (browser.Appending).
func (d *source) Generation() int { return d.generation }

// line is a group title (problem < 0) or a problem.
type line struct {
	title   string
	problem int
}

func (d *source) set(r *model.Report) {
	d.report = r
	d.generation++
	d.problems, d.lines = nil, nil
	counts := r.Counts()
	found := map[string]bool{}
	defer maps.DeleteFunc(d.marked, func(k string, _ bool) bool { return !found[k] })
	for _, k := range d.kinds() {
		if counts[k] == 0 {
			continue
		}
		d.lines = append(d.lines, line{title: fmt.Sprintf("%s (%d)", k, counts[k]), problem: -1})
		var group []model.Problem
		for _, p := range r.Problems {
			if p.Kind == k {
				found[p.Identity()] = true
				group = append(group, p)
			}
		}
		if key := d.sortKey(); key != nil {
			sorting.Sort(group, key, d.sort.Descending())
		}
		for _, p := range group {
			d.lines = append(d.lines, line{problem: len(d.problems)})
			d.problems = append(d.problems, p)
		}
	}
}

// kinds are the groups in the order shown: the check's, or by the
// kind's name when sorted by kind.
func (d *source) kinds() []model.ProblemKind {
	kinds := slices.Clone(model.ProblemKinds)
	if by, _ := d.sort.By(); by == 0 {
		sorting.Sort(kinds, func(k model.ProblemKind) sorting.Key { return sorting.Text(string(k)) }, d.sort.Descending())
	}
	return kinds
}

// sortKey is what the problems of a group are sorted by (nil: the
// check's order): their value as stored, or their first holder (none
// for a lock nobody holds, last).
func (d *source) sortKey() func(model.Problem) sorting.Key {
	switch by, _ := d.sort.By(); by {
	case 1:
		return func(p model.Problem) sorting.Key { return sorting.Text(p.Value) }
	case 2:
		return func(p model.Problem) sorting.Key {
			if len(p.Accounts) == 0 {
				return sorting.None
			}
			return sorting.Text(p.Accounts[0])
		}
	}
	return nil
}

// line is the line of problem p, if the report has it: the same problem,
// else another about the same item (an orphan lock someone now holds is
// a foreign one: the row is about the same lock).
func (d *source) line(p model.Problem) (int, bool) {
	for _, same := range []func(model.Problem) string{model.Problem.Identity, subject} {
		k := same(p)
		for i, l := range d.lines {
			if l.problem >= 0 && same(d.problems[l.problem]) == k {
				return i, true
			}
		}
	}
	return 0, false
}

// subject names the item a problem is about: its lock, else the
// constraint of the accounts that hold the value.
func subject(p model.Problem) string {
	if p.Lock != nil {
		keys := slices.Sorted(maps.Keys(p.Lock))
		var b strings.Builder
		b.WriteString("lock " + p.LockTable)
		for _, k := range keys {
			b.WriteString("\x00" + k + "=" + p.Lock[k])
		}
		return b.String()
	}
	return "holders " + p.Constraint + "\x00" + strings.Join(p.Accounts, "\x00")
}

// nearest is the line of the problem nearest p among old (the problems
// shown before p left) that the report still has: the first after p,
// else the last before it.
func (d *source) nearest(old []model.Problem, p model.Problem) (int, bool) {
	k := p.Identity()
	at := slices.IndexFunc(old, func(q model.Problem) bool { return q.Identity() == k })
	if at < 0 {
		return 0, false
	}
	for _, q := range old[at+1:] {
		if i, ok := d.line(q); ok {
			return i, true
		}
	}
	for j := at - 1; j >= 0; j-- {
		if i, ok := d.line(old[j]); ok {
			return i, true
		}
	}
	return 0, false
}

// clean says what a check that found no problem checked.
func (d *source) clean() string {
	r := d.report
	return fmt.Sprintf("no problems: %s items checked, %s accounts, %s locks, %d constraints",
		rows.Count(int64(r.ScannedItems)), rows.Count(int64(r.Accounts)), rows.Count(int64(r.Locks)),
		len(d.r.Schema.Constraints))
}

func (d *source) Len() int { return len(d.lines) }

// Heading reports whether line i is a group's title: the selection steps
// over it (browser.Headings).
func (d *source) Heading(i int) bool { return d.lines[i].problem < 0 }

// cells are line i's parts, false for a group's title.
func (d *source) cells(i int) (rows.Cells, bool) {
	if l := d.lines[i]; l.problem >= 0 {
		p := &d.problems[l.problem]
		now := d.report.Now
		if now != 0 {
			now = max(now, d.now)
		}
		c := d.r.ProblemCells(p, now)
		c.Marked = len(d.marked) > 0 && d.marked[p.Identity()]
		return c, true
	}
	return rows.Cells{}, false
}

// Measure lays out the lines about to be shown together, their columns
// as wide as every problem's needs (browser.Measurer).
func (d *source) Measure(shown []int, width int) {
	if d.held != d.generation { // a new report: its problems are measured once
		d.screen.Forget()
		d.held = d.generation
	}
	d.screen.Hold(0, len(d.lines), d.cells)
	d.screen.Measure(shown, width, d.cells)
}

// Expand is what the selected line i does not show, whole, in at most
// most lines (browser.Expander).
func (d *source) Expand(i, width, most int) []string {
	return d.screen.Rest(*d.r, i, width, most)
}

func (d *source) Render(i, width int, selected bool) string {
	l := d.lines[i]
	if l.problem < 0 {
		return d.r.Text(l.title, d.r.Styles.Group, width, selected)
	}
	if lay, ok := d.screen.Layout(width); ok {
		if c, ok := d.screen.Cells(i); ok {
			return d.r.Line(c, lay, selected)
		}
	}
	c, _ := d.cells(i)
	c = d.screen.Columns.Apply(c)
	return d.r.Line(c, rows.Measure([]rows.Cells{c}, width), selected)
}

// at returns the problem on line i, if the line is one.
func (d *source) at(i int) (*model.Problem, bool) {
	if i < 0 || i >= len(d.lines) || d.lines[i].problem < 0 {
		return nil, false
	}
	return &d.problems[d.lines[i].problem], true
}

// Screen is the view's layout of its lines: the columns hidden, and
// those its problems show. It is not a method, so that Model exports no
// more.
func Screen(m *Model) *rows.Screen { return &m.src.screen }
