package accounts

import (
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
	for _, r := range m.pager.ShownRows() {
		switch r.Kind {
		case rows.Account:
			a := m.src.account(r)
			t.Add("account", a.ID, "", "", "", "", m.r.AccountCells(a).Status, "")
		case rows.Lock:
			a := m.src.account(r)
			l, attr := a.Locks[r.Lock], sc.Constraints[r.Lock].Attr
			key := ""
			if l.Value != "" || l.Item != nil {
				table, k := sc.LockKeyAs(int(r.Lock), l.Value, l.Alt)
				key = export.LockKey(sc, table, k, l.Value)
			}
			t.Add("lock", a.ID, attr, export.Text(a.Item, attr), key, l.Owner, string(l.Status), export.Epoch(l.ExpiresAt))
		case rows.Orphan:
			p := m.src.orphan(r)
			table, k := sc.LockOf(*p)
			t.Add("orphan", "", p.Constraint, p.Value, export.LockKey(sc, table, k, p.Value), p.Owner, m.r.OrphanCells(p, 0).Status, export.Epoch(p.ExpiresAt))
		}
	}
	return t
}
