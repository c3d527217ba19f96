package ui

import (
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/command"
	"github.com/locktable/locktable/ui/locks"
	"github.com/locktable/locktable/ui/others"
	"github.com/locktable/locktable/ui/pager"
	"github.com/locktable/locktable/ui/problems"
	"github.com/locktable/locktable/ui/rows"
)

// ViewNames are the list views as the config file's hide-columns names
// them, in tab order (view).
var ViewNames = []string{"accounts", "locks", "problems", "items"}

// screenOf is the layout of view v's rows: its columns hidden, and those
// its rows show.
func (m *Model) screenOf(v view) *rows.Screen {
	switch v {
	case viewLocks:
		return locks.Screen(&m.views.locks)
	case viewProblems:
		return problems.Screen(&m.views.problems)
	case viewItems:
		return others.Screen(&m.views.others)
	}
	return pager.Screen(m.views.accounts.Pager())
}

// hideColumns hides the columns the config file hides, by view name.
func (m *Model) hideColumns(hidden map[string][]string) {
	for i, name := range ViewNames {
		m.screenOf(view(i)).Columns.Set(hidden[name])
	}
}

// columnNames are the columns of the view shown a user may hide (hide
// true: those shown) or show again (those hidden); nil when its rows
// name none yet (any name is tried).
func (m Model) columnNames(hide bool) []string {
	s := m.screenOf(m.views.shown)
	if !hide {
		return append([]string{}, s.Columns.Hidden()...) // none hidden: none to show
	}
	names := slices.DeleteFunc(s.Names(), s.Columns.IsHidden)
	if len(names) == 0 {
		return nil
	}
	return names
}

// columnCommands are :hide and :show, with the view's columns to
// complete.
func (m Model) columnCommands() []entry {
	hidden, shown := m.columnNames(false), m.columnNames(true)
	save := "and saves the view's hidden columns in the config file"
	return []entry{
		{command.Command{Name: "hide", Args: "COLUMN", Help: "hide a column of the view shown (the key column stays)", Bang: save,
			Complete: func() []string { return shown }}, func(m Model, c command.Call) (Model, tea.Cmd) {
			return m.hideColumn(c.Arg, true, c.Bang)
		}},
		{command.Command{Name: "show", Args: "COLUMN", Help: "show a hidden column of the view shown again", Bang: save,
			Complete: func() []string { return hidden }}, func(m Model, c command.Call) (Model, tea.Cmd) {
			return m.hideColumn(c.Arg, false, c.Bang)
		}},
	}
}

// columnsSavedMsg says how saving the hidden columns of a view went.
type columnsSavedMsg struct {
	view   string
	hidden []string
	err    error
}

// hideColumn hides column name in the view shown (hide false: shows it),
// and saves the view's hidden columns when save.
func (m Model) hideColumn(name string, hide, save bool) (Model, tea.Cmd) {
	cols := &m.screenOf(m.views.shown).Columns
	cols.Hide(name, hide)
	hidden, v := cols.Hidden(), ViewNames[m.views.shown]
	m.status = columnsSaid(v, hidden)
	if !save {
		return m, nil
	}
	saveTo := m.setup.opts.SaveColumns
	if saveTo == nil {
		m.status += "; not saved: no config file to save to"
		return m, nil
	}
	return m, func() tea.Msg { return columnsSavedMsg{view: v, hidden: hidden, err: saveTo(v, hidden)} }
}

// columnsSaid says which columns of view v are hidden, in a line.
func columnsSaid(v string, hidden []string) string {
	if len(hidden) == 0 {
		return v + " shows every column"
	}
	return v + " hides " + model.Printable(strings.Join(hidden, ", "))
}

// onColumnsSaved says where the hidden columns went, or why not.
func (m Model) onColumnsSaved(msg columnsSavedMsg) Model {
	if msg.err != nil {
		m.status = "columns not saved: " + errText(msg.err)
		return m
	}
	m.status = columnsSaid(msg.view, msg.hidden) + ": saved in the config file"
	return m
}
