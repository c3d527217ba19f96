package rows

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
)

// maxSummary caps an item's attributes as one line shows them.
const maxSummary = 160

// ItemKey is an item's primary key in the account table as stored, made
// printable: its partition key, then its sort key when the table has one.
func (r Renderer) ItemKey(it model.Item) string {
	k := AttrText(it, r.Schema.PK)
	if sk := r.Schema.SK; sk != "" {
		k += "  " + AttrText(it, sk)
	}
	return k
}

// ItemAttrs is an item's attributes other than its key as one line
// shows them, name=value in name order (AttrText, a number as its
// digits), cut at maxSummary cells.
func (r Renderer) ItemAttrs(it model.Item) string {
	var parts []string
	for _, name := range it.SortedNames() {
		if name == r.Schema.PK || (name == r.Schema.SK && name != "") {
			continue
		}
		v := AttrText(it, name)
		if n := it[name]; n.Kind == model.KindN {
			v = model.Printable(n.S) // a summary: the detail has the JSON
		}
		parts = append(parts, model.Printable(name)+"="+v)
	}
	return ansi.Truncate(strings.Join(parts, "  "), maxSummary, "…")
}

// Other renders a row of the items view: an item that is neither an
// account nor a lock, by its key and its attributes.
func (r Renderer) Other(it model.Item, width int, selected bool) string {
	return r.line(r.OtherCells(it), width, selected)
}

// OtherCells are an other item's parts: its key whole, its attributes cut
// at their end.
func (r Renderer) OtherCells(it model.Item) Cells {
	return Cells{Key: r.ItemKey(it), Detail: []Part{{Text: r.ItemAttrs(it), Rank: Value, Column: AttributesColumn}}, Status: "other", StatusStyle: r.Styles.Dim.Paint()}
}
