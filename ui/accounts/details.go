package accounts

import (
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/lockdetail"
	"github.com/locktable/locktable/ui/rows"
)

// open asks for the detail of the selected row: the item read again now,
// and for a lock, why it has the status it has. The "… more orphan locks"
// row leads to the problems view.
func (m Model) open() tea.Cmd {
	r, ok := m.pager.Selected()
	if !ok {
		return nil
	}
	sc := m.r.Schema
	switch r.Kind {
	case rows.Account:
		a := m.src.account(r)
		ref := model.KeyRef{Table: sc.Table, Key: sc.AccountKey(a.ID)}
		open := detail.OpenMsg{Title: "account " + rows.AccountKey(a), Read: &ref, Render: itemOrGone}
		if sc.SK != "" { // a table without a sort key holds one item per partition
			open.Partition = partition(m.r, a.ID)
		}
		return events.Emit(open)
	case rows.Lock:
		a, ci, rr := *m.src.account(r), int(r.Lock), m.r
		a.Locks = slices.Clone(a.Locks) // the pin or a page may change under it
		return events.Emit(lockdetail.OfHolder(rr, a, ci))
	case rows.Orphan:
		return events.Emit(lockdetail.OfOrphan(sc, *m.src.orphan(r), m.src.items.JudgedAt()))
	case rows.More:
		return events.Emit(ProblemsMsg{Kind: model.OrphanLock})
	}
	return nil
}

// SelectedRef is the key of the item on the selected row, for the copy
// keys: an account, or a lock that has a value; false on a heading, a
// missing lock's row or the "… more" row.
func (m Model) SelectedRef() (model.KeyRef, bool) {
	r, ok := m.pager.Selected()
	if !ok {
		return model.KeyRef{}, false
	}
	sc := m.r.Schema
	switch r.Kind {
	case rows.Account:
		return model.KeyRef{Table: sc.Table, Key: sc.AccountKey(m.src.id(r))}, true // asked every frame: no view built
	case rows.Lock:
		if l := m.src.account(r).Locks[r.Lock]; l.Value != "" && l.Status != model.LockMissing {
			table, key := sc.LockKeyAs(int(r.Lock), l.Value, l.Alt)
			return model.KeyRef{Table: table, Key: key}, true
		}
	case rows.Orphan:
		p := m.src.orphan(r)
		table, key := sc.LockOf(*p)
		return model.KeyRef{Table: table, Key: key}, true
	}
	return model.KeyRef{}, false
}

// itemOrGone renders an item that should exist.
func itemOrGone(it model.Item) []string {
	if it == nil {
		return []string{"this item no longer exists: it may have been deleted (r reloads)"}
	}
	return detail.ItemLines(it)
}

// partition lists, under an account's detail, the other items its
// partition key holds: what a single-table design keeps beside the
// account (orders, sessions ...), one line each.
func partition(r *rows.Renderer, id string) *detail.Partition {
	sc := r.Schema
	return &detail.Partition{PK: id, Lines: func(items []model.Item, more bool) []string {
		var lines []string
		for _, it := range items {
			if e := (model.Classifier{Schema: sc}).Classify(sc.Table, it); e.Kind == model.EntryAccount && e.ID == id {
				continue // the account itself, shown above
			}
			line := "  " + r.ItemKey(it)
			if attrs := r.ItemAttrs(it); attrs != "" {
				line += "  " + attrs
			}
			lines = append(lines, line)
		}
		head := "other items under " + sc.PK + " " + model.Printable(id) + ": "
		switch {
		case len(lines) == 0 && !more:
			head += "none"
		case more:
			head += rows.Count(int64(len(lines))) + " read so far"
		default:
			head += rows.Count(int64(len(lines)))
		}
		return append([]string{"", head}, lines...)
	}}
}
