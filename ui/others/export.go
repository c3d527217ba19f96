package others

import (
	"github.com/locktable/locktable/ui/export"
)

// Export is the items the view shows, under its filter, for :export: the
// key attributes as stored, then the whole item as DynamoDB JSON.
func (m *Model) Export() export.Table {
	sc := m.r.Schema
	names := []string{"pk"}
	if sc.SK != "" {
		names = append(names, "sk")
	}
	cols := export.Columns(append(names, "item")...)
	cols[len(cols)-1].JSON = true
	t := export.Table{Columns: cols}
	for _, k := range m.pager.ShownRows() {
		it := m.items.Item(k)
		row := []string{export.Text(it, sc.PK)}
		if sc.SK != "" {
			row = append(row, export.Text(it, sc.SK))
		}
		b, _ := it.MarshalJSON() // cannot fail: strings, bools and slices
		t.Add(append(row, string(b))...)
	}
	return t
}
