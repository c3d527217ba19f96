package locks

import (
	"github.com/locktable/locktable/ui/export"
)

// Export is the locks the view shows, under its filter, for :export:
// each lock's key whole, the attribute it guards, its value as stored,
// its owner, its status in the view's words and its TTL.
func (m *Model) Export() export.Table {
	sc := m.look.r.Schema
	t := export.Table{Columns: export.Columns("lock", "attribute", "value", "owner", "status", "expires_at")}
	for _, name := range m.pager.ShownRows() {
		l := m.look.items.Lock(name)
		words, _ := m.look.items.LockStatus(&l)
		table, key := l.Table, l.Key
		if key == nil {
			table, key = sc.LockKeyAs(l.Constraint, l.Value, false)
		}
		t.Add(export.LockKey(sc, table, key, l.Value), sc.Constraints[l.Constraint].Attr, l.Value, l.Owner, words, export.Epoch(l.ExpiresAt))
	}
	return t
}
