package ui

import (
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/accounts"
	"github.com/locktable/locktable/ui/locks"
	"github.com/locktable/locktable/ui/others"
	"github.com/locktable/locktable/ui/problems"
	"github.com/locktable/locktable/ui/sorting"
	"github.com/locktable/locktable/ui/statusbar"
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

// viewShort are the tab titles in four letters, for a header too narrow
// for viewTitles beside the check's counts; the first is the accounts'
// by the schema's noun (tabShort).
var viewShort = []string{"Acct", "Lock", "Prob", "Item"}

// tabShort are the short titles of the tabs shown.
func (m Model) tabShort() []string {
	short := slices.Clone(viewShort[:m.tabs()])
	if _, many := m.setup.schema.Nouns(); many == "records" {
		short[0] = "Recs"
	}
	return short
}

// component is what the root asks of the list view shown: the root never
// asks which one it is (soft-serve's pkg/ui/common/component.go).
type component interface {
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
	View() string
	Status() string
	SelectedRef() (model.KeyRef, bool)
}

// filterable is the list a filter narrows: the one a list view owns, or
// its pager's (the accounts view's).
type filterable interface {
	Filter() string
	SetFilter(q string)
	Matched() (kept, of int)
}

// tab is a copy of the list view shown (put puts it back once changed):
// the component, and what differs between the views, asked of its type.
type tab struct {
	component
	sort statusbar.Sort // its order, as the header says it
}

// sortSaid is order as the header says it; partial: pages remain, so
// it orders the rows loaded.
func sortSaid(order *sorting.Order, partial bool) statusbar.Sort {
	return statusbar.Sort{Column: order.Column(), Arrow: order.Arrow(), Partial: partial}
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

// tab is a copy of the list view shown: the root asks it without a
// pointer into itself, which would move the whole root to the heap on
// every frame. This is the one place that asks which view is shown.
func (v *views) tab() tab {
	switch v.shown {
	case viewLocks:
		l := v.locks
		return tab{&l, sortSaid(l.Sort, !l.Paging().Done())}
	case viewProblems:
		return tab{&problemsTab{v.problems, v.accounts.Status()}, sortSaid(v.problems.Sort, false)}
	case viewItems:
		o := v.others
		return tab{&o, sortSaid(o.Sort, !o.Done())}
	}
	a := v.accounts
	return tab{&a, sortSaid(a.Sort, !a.Pager().Paging().Done())}
}

// poll reads again, consistently, the rows on screen of the view shown,
// n either side of its selection, through the reads a write's rows take
// (the item cache they fill updates every view): in the locks view the
// locks on screen and their owners, in the items view the items on
// screen, and otherwise the accounts about the accounts view's selection
// and the locks they own.
func (v *views) poll(n int) tea.Cmd {
	switch c := v.tab().component.(type) {
	case *locks.Model:
		refs, owners := c.OnScreen(n)
		return tea.Batch(v.accounts.Reread(owners, false), c.RefreshFor(nil, refs))
	case *others.Model:
		return c.RefreshFor(c.OnScreen(n))
	}
	ids := v.accounts.OnScreen(n)
	return tea.Batch(v.accounts.Reread(ids, false), v.locks.RefreshFor(ids, nil))
}

// problemsTab is the problems view as a tab: with nothing to say, it lets
// the accounts' status (what is loaded) show.
type problemsTab struct {
	problems.Model
	loaded string // the accounts' status
}

func (p *problemsTab) Status() string {
	if s := p.Model.Status(); s != "" {
		return s
	}
	return p.loaded
}

// put keeps t, a tab changed, as the view it is a copy of.
func (v *views) put(t tab) {
	switch c := t.component.(type) {
	case *accounts.Model:
		v.accounts = *c
	case *locks.Model:
		v.locks = *c
	case *problemsTab:
		v.problems = c.Model
	case *others.Model:
		v.others = *c
	}
}

// list is the tab's list, which a filter narrows.
func (t tab) list() filterable {
	if a, ok := t.component.(*accounts.Model); ok {
		return a.Pager()
	}
	return t.component.(filterable)
}

// update hands the tab a key or the wheel.
func (t tab) update(msg tea.Msg) tea.Cmd {
	switch c := t.component.(type) {
	case *accounts.Model:
		return step(c, msg)
	case *locks.Model:
		return step(c, msg)
	case *problemsTab:
		return step(&c.Model, msg)
	case *others.Model:
		return step(c, msg)
	}
	return nil
}

// asked is what the tab's last key asks of the write dialog (nil: none).
func (t tab) asked() tea.Msg {
	if a, ok := t.component.(interface{ Asked() tea.Msg }); ok {
		return a.Asked()
	}
	return nil
}

// show reads what a first visit of the tab shows (nil: nothing).
func (t tab) show() tea.Cmd {
	if s, ok := t.component.(interface{ Show() tea.Cmd }); ok {
		return s.Show()
	}
	return nil
}

// reload is what r reads again over the tab: the locks, or the other
// items, only; false over the accounts and the problems, where r reads
// every view again and runs the check again.
func (t tab) reload() (tea.Cmd, bool) {
	switch c := t.component.(type) {
	case *locks.Model:
		return c.Reload(), true
	case *others.Model:
		return c.Reload(), true
	}
	return nil, false
}
