package problems

import (
	"strconv"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/export"
)

// Export is the problems the view shows, under its filter, for :export,
// as check --json reports them: kind, constraint, value, the lock's key
// (none for a value no lock guards), owner, the holders (a JSON list)
// and the TTL; the groups' titles are not rows.
func (m *Model) Export() export.Table {
	sc := m.src.r.Schema
	cols := export.Columns("kind", "constraint", "value", "lock", "owner", "accounts", "expires_at")
	cols[5].JSON = true
	t := export.Table{Columns: cols}
	for _, i := range m.list.Shown() {
		p, ok := m.src.at(i)
		if !ok {
			continue
		}
		lock := ""
		if p.Lock != nil {
			table, key := sc.LockOf(*p)
			lock = export.LockKey(sc, table, key, p.Value)
		}
		expires := ""
		if model.TTLKind(p.Kind) { // as in check --json: 0 too, long past
			expires = strconv.FormatInt(p.ExpiresAt, 10)
		}
		t.Add(string(p.Kind), p.Constraint, p.Value, lock, p.Owner, export.List(p.Accounts), expires)
	}
	return t
}
