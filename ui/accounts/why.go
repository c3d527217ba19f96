package accounts

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/rows"
)

// whyNoAccount says why e or d (k) does nothing on the selected row: it
// is not an account's, and what it is instead.
func (m Model) whyNoAccount(k tea.KeyPressMsg) string {
	what := "rename"
	if key.Matches(k, m.km.Delete) {
		what = "delete"
	}
	b := m.km.Edit
	if what == "delete" {
		b = m.km.Delete
	}
	says := fmt.Sprintf("%s %ss %s; ", b.Help().Key, what, article(m.one()))
	r, ok := m.pager.Selected()
	if !ok {
		return says + "none is loaded"
	}
	switch r.Kind {
	case rows.Orphan:
		what := "an orphan lock"
		if m.src.orphan(r).Kind == model.ExpiredLock {
			what = "an expired lock nobody holds"
		}
		return says + "this is " + what + " (" + m.km.Fix.Help().Key + " fixes it)"
	case rows.More:
		return says + "this row leads to the problems view"
	}
	return says + "select one"
}

// whyNothingToFix says why f does nothing on the selected row: it shows
// no problem, and where one is.
func (m Model) whyNothingToFix() string {
	r, ok := m.pager.Selected()
	if !ok {
		return "nothing to fix: no row is loaded"
	}
	switch r.Kind {
	case rows.Account:
		for ci := range m.r.Schema.Constraints {
			if st := m.src.account(r).Locks[ci].Status; st.Problematic() {
				return fmt.Sprintf("%s fixes a lock: select its %s lock below", m.km.Fix.Help().Key, st)
			}
		}
		return "nothing to fix: this " + m.one() + "'s locks are ok"
	case rows.Lock:
		if m.src.status(r) == model.LockNone {
			return "nothing to fix: no value, so no lock is expected"
		}
		return "nothing to fix: this lock is " + string(m.src.status(r))
	case rows.More:
		return "this row leads to the problems view, where " + m.km.Fix.Help().Key + " fixes each"
	}
	return "nothing to fix on this row"
}
