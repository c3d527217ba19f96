package accounts

import (
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/export"
	"github.com/locktable/locktable/ui/rows"
)

// Export is the rows the view shows, under its filter, for :export: the
// orphan locks on top, then each account followed by one row per unique
// attribute for its lock, as the screen lists them; titles and notes are
// not rows. Values are exact: an account's attribute as stored (a
// string's text, another type as DynamoDB JSON), a lock's key whole.
func (m *Model) Export() export.Table {
	sc := m.r.Schema
	t := export.Table{Columns: export.Columns("row", "account", "attribute", "value", "lock", "owner", "status", "expires_at")}
	_, sorted := m.Sort.By()
	every := m.src.win.store != nil && m.pager.Filter() == "" && !sorted
	for _, r := range m.pager.ShownRows() {
		switch {
		case every && r.Set == setMain && r.Kind == rows.Account && r.Index == 0:
			// Every account listed, on disk too, in the list's order.
			m.src.eachListed(func(a model.AccountView) { m.exportAccount(&t, &a) })
		case every && r.Set == setMain:
		case r.Kind == rows.Account:
			a := m.src.account(r)
			t.Add("account", a.ID, "", "", "", "", m.r.AccountCells(a).Status, "")
		case r.Kind == rows.Lock:
			m.exportLock(&t, m.src.account(r), int(r.Lock))
		case r.Kind == rows.Orphan:
			p := m.src.orphan(r)
			table, k := sc.LockOf(*p)
			t.Add("orphan", "", p.Constraint, p.Value, export.LockKey(sc, table, k, p.Value), p.Owner, m.r.OrphanCells(p, 0).Status, export.Epoch(p.ExpiresAt))
		}
	}
	return t
}

// exportAccount adds account a's rows: its own, then one per lock.
func (m *Model) exportAccount(t *export.Table, a *model.AccountView) {
	t.Add("account", a.ID, "", "", "", "", m.r.AccountCells(a).Status, "")
	for ci := range a.Locks {
		m.exportLock(t, a, ci)
	}
}

// exportLock adds the row of account a's lock of constraint ci.
func (m *Model) exportLock(t *export.Table, a *model.AccountView, ci int) {
	sc := m.r.Schema
	l, attr := a.Locks[ci], sc.Constraints[ci].Attr
	key := ""
	if l.Value != "" || l.Item != nil {
		table, k := sc.LockKeyAs(ci, l.Value, l.Alt)
		key = export.LockKey(sc, table, k, l.Value)
	}
	t.Add("lock", a.ID, attr, export.Text(a.Item, attr), key, l.Owner, string(l.Status), export.Epoch(l.ExpiresAt))
}
