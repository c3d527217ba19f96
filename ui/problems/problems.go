// Package problems is the problems view: the check's problems grouped by
// kind, each group under a title with its count. enter on a problem asks
// for its rows to be pinned on top of the accounts view.
package problems

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/write"
)

// Model is the problems view.
type Model struct {
	km    KeyMap
	src   *source
	list  browser.Model
	ready bool   // a report is shown
	note  string // what the last key could not do
}

// New returns the problems view, waiting for the check.
func New(r *rows.Renderer, km KeyMap) Model {
	src := &source{r: r}
	return Model{km: km, src: src, list: browser.New(km.KeyMap, src)}
}

// ShortHelp is the help line's part for this view.
func (m Model) ShortHelp() []key.Binding { return m.km.ShortHelp() }

// FullHelp is the help screen's part for this view.
func (m Model) FullHelp() [][]key.Binding { return m.km.FullHelp() }

// Status says what the last key could not do, "" when nothing.
func (m Model) Status() string { return m.note }

// SetSize sets the list's size in cells.
func (m *Model) SetSize(w, h int) { m.list.SetSize(w, h) }

// SetReport shows a finished check's problems.
func (m *Model) SetReport(r *model.Report) {
	m.src.set(r)
	m.ready = true
	m.list.SetCursor(m.list.Cursor())
}

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
	k, ok := msg.(tea.KeyPressMsg)
	if ok {
		m.note = ""
	}
	switch p, selected := m.Selected(); {
	case !ok || !key.Matches(k, m.km.Enter, m.km.Fix):
		m.list, _ = m.list.Update(msg)
	case !selected && key.Matches(k, m.km.Fix):
		m.note = write.SelectAProblem
	case !selected:
	case key.Matches(k, m.km.Enter):
		return m, events.Emit(search.JumpMsg{Problem: p})
	default:
		return m, events.Emit(write.FixMsg{Problem: p})
	}
	return m, nil
}

// Selected is the problem on the selected line, if it is one.
func (m Model) Selected() (model.Problem, bool) {
	p, ok := m.src.at(m.list.Cursor())
	if !ok {
		return model.Problem{}, false
	}
	return *p, true
}

// Ready reports whether a check's problems are shown.
func (m Model) Ready() bool { return m.ready }

// View renders the visible lines.
func (m Model) View() string { return m.list.View() }

// source is the problems view's lines: the check's problems grouped by
// kind under a title with their count. It implements browser.Source.
type source struct {
	r        *rows.Renderer
	problems []model.Problem // grouped by kind, report order within a kind
	lines    []line
}

// line is a group title (problem < 0) or a problem.
type line struct {
	title   string
	problem int
}

func (d *source) set(r *model.Report) {
	d.problems, d.lines = nil, nil
	counts := r.Counts()
	for _, k := range model.ProblemKinds {
		if counts[k] == 0 {
			continue
		}
		d.lines = append(d.lines, line{title: fmt.Sprintf("%s (%d)", k, counts[k]), problem: -1})
		for _, p := range r.Problems {
			if p.Kind == k {
				d.lines = append(d.lines, line{problem: len(d.problems)})
				d.problems = append(d.problems, p)
			}
		}
	}
}

func (d *source) Len() int { return len(d.lines) }

func (d *source) Render(i, width int, selected bool) string {
	l := d.lines[i]
	if l.problem < 0 {
		return d.r.Text(l.title, d.r.Styles.Group, width, selected)
	}
	return d.r.Problem(&d.problems[l.problem], width, selected)
}

// at returns the problem on line i, if the line is one.
func (d *source) at(i int) (*model.Problem, bool) {
	if i < 0 || i >= len(d.lines) || d.lines[i].problem < 0 {
		return nil, false
	}
	return &d.problems[d.lines[i].problem], true
}
