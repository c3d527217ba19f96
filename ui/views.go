package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/locks"
	"github.com/locktable/locktable/ui/others"
	"github.com/locktable/locktable/ui/problems"
)

// view is one of the list views, in tab order.
type view int

const (
	viewAccounts view = iota
	viewLocks
	viewProblems
	viewItems // the items that are neither accounts nor locks: a tab once there are any (tabs)
)

var viewTitles = []string{"Accounts", "Locks", "Problems", "Items"}

// component is what the root asks of the list view shown: the root never
// asks which one it is (soft-serve's pkg/ui/common/component.go).
type component interface {
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
	View() string
	Status() string
	SelectedRef() (model.KeyRef, bool)
	Filter() string
	SetFilter(q string)
	Matched() (kept, of int)
}

// tab is a list view as the root sees it: the component, how a message
// reaches it, and what differs between the views.
type tab struct {
	component
	update func(tea.Msg) tea.Cmd
	// asked is what its last key asks of the write dialog (nil: none).
	asked func() tea.Msg
	// show reads what a first visit shows (nil: nothing to read).
	show func() tea.Cmd
	// reload is what r reads again over it (nil: every view, and the
	// check runs again).
	reload func() tea.Cmd
	// status is what the status line says over it.
	status func() string
}

// views are the list views, in tab order, and which of them is shown.
type views struct {
	accounts accounts.Model
	locks    locks.Model
	problems problems.Model
	others   others.Model
	shown    view
}

// step hands msg to the widget at p, keeping what it becomes.
func step[T interface{ Update(tea.Msg) (T, tea.Cmd) }](p *T, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*p, cmd = (*p).Update(msg)
	return cmd
}

// tab is a copy of the list view shown, which put puts back once changed:
// the root asks it without a pointer into itself, which would move the
// whole root to the heap on every frame. This is the one place that asks
// which view is shown.
func (v *views) tab() tab {
	none := func() tea.Msg { return nil }
	switch v.shown {
	case viewLocks:
		l := v.locks
		return tab{&l, func(msg tea.Msg) tea.Cmd { return step(&l, msg) }, l.Asked, l.Show, l.Reload, l.Status}
	case viewProblems:
		p, a := v.problems, v.accounts
		// A problems view with nothing to say lets the accounts' status
		// (what is loaded) show.
		status := func() string {
			if s := p.Status(); s != "" {
				return s
			}
			return a.Status()
		}
		return tab{&p, func(msg tea.Msg) tea.Cmd { return step(&p, msg) }, p.Asked, nil, nil, status}
	case viewItems:
		o := v.others
		return tab{&o, func(msg tea.Msg) tea.Cmd { return step(&o, msg) }, none, o.Show, o.Reload, o.Status}
	}
	a := v.accounts
	return tab{&a, func(msg tea.Msg) tea.Cmd { return step(&a, msg) }, a.Asked, nil, nil, a.Status}
}

// put keeps t, a tab changed, as the view it is a copy of.
func (v *views) put(t tab) {
	switch c := t.component.(type) {
	case *accounts.Model:
		v.accounts = *c
	case *locks.Model:
		v.locks = *c
	case *problems.Model:
		v.problems = *c
	case *others.Model:
		v.others = *c
	}
}
