package accounts

import (
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/rows"
)

// open asks for the detail of the selected row: the item read again now,
// and for a lock, why it has the status it has. The "… more orphan locks"
// row leads to the problems view.
func (m Model) open() tea.Cmd {
	if m.list.Len() == 0 {
		return nil
	}
	r, sc := m.src.row(m.list.Cursor()), m.r.Schema
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
		open := detail.OpenMsg{Title: lockTitle(rr, &a, ci), Render: func(lock model.Item) []string { return lockLines(rr, &a, ci, lock) }}
		if v := a.Locks[ci].Value; v != "" { // no value, no lock to read
			table, key := sc.LockKeyAs(ci, v, a.Locks[ci].Alt)
			open.Read = &model.KeyRef{Table: table, Key: key}
		}
		return events.Emit(open)
	case rows.Orphan:
		p, now := *m.src.orphan(r), m.src.items.JudgedAt()
		table, key := sc.LockOf(p) // the raw key, in the spelling found
		return events.Emit(detail.OpenMsg{Title: "lock " + model.Printable(p.Value), Read: &model.KeyRef{Table: table, Key: key},
			Render: func(lock model.Item) []string {
				if lock == nil {
					return []string{"this lock no longer exists: it may have been repaired (r reloads)"}
				}
				return append(append(detail.ItemLines(lock), ""), orphanWhy(p, now))
			}})
	case rows.More:
		return events.Emit(ProblemsMsg{Kind: model.OrphanLock})
	}
	return nil
}

// SelectedRef is the key of the item on the selected row, for the copy
// keys: an account, or a lock that has a value; false on a heading, a
// missing lock's row or the "… more" row.
func (m Model) SelectedRef() (model.KeyRef, bool) {
	if m.list.Len() == 0 {
		return model.KeyRef{}, false
	}
	r, sc := m.src.row(m.list.Cursor()), m.r.Schema
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

// orphanWhy says why a lock nobody holds is a problem: an orphan, or an
// expired lock (at now).
func orphanWhy(p model.Problem, now int64) string {
	if p.Kind == model.ExpiredLock {
		return "why: expired_lock: " + p.TTLNote(now) + "; no account holds it."
	}
	why := "why: orphan_lock: no account holds " + p.Constraint + " = " + model.Printable(p.Value) + ", so nobody can ever claim this value again."
	if p.Owner != "" {
		why += " Its owner " + model.Printable(p.Owner) + " does not hold it (renamed or deleted without releasing the lock)."
	}
	return why
}

// lockTitle is the title of a lock row's detail.
func lockTitle(r *rows.Renderer, a *model.AccountView, ci int) string {
	l := a.Locks[ci]
	attr := r.Schema.Constraints[ci].Attr
	if l.Status == model.LockNone || (l.Status == model.LockInvalid && l.Item == nil) {
		return attr + " of " + rows.AccountKey(a) + "  (" + string(l.Status) + ")"
	}
	return "lock " + r.LockKey(ci, l.Value, l.Alt) + "  (" + string(l.Status) + ")"
}

// lockLines is the detail of a lock row: the lock as read now, or for a
// lock that is not there, the key it should have; then why.
func lockLines(r *rows.Renderer, a *model.AccountView, ci int, lock model.Item) []string {
	sc := r.Schema
	l := a.Locks[ci]
	attr := sc.Constraints[ci].Attr
	id := rows.AccountKey(a)
	var lines []string
	if lock != nil {
		lines = append(detail.ItemLines(lock), "")
	} else if l.Item != nil {
		lines = append(lines, "this lock no longer exists (r reloads)", "")
	}
	switch l.Status {
	case model.LockNone:
		lines = append(lines, id+" has no "+attr+" (absent, NULL or empty): no lock is expected.")
	case model.LockInvalid:
		if l.Item == nil {
			lines = append(lines, "why: invalid_value: "+attr+" is "+rows.AttrText(a.Item, attr)+
				"; only a non-empty string whose lock key fits in 2048 bytes can be locked.")
		} else {
			lines = append(lines, "why: invalid_value: the lock's "+sc.OwnerAttr+" is not a string.")
		}
	case model.LockMissing:
		table, k := sc.LockKey(ci, l.Value)
		key := model.Item{}
		for n, v := range k {
			key[n] = model.S(v)
		}
		lines = append(lines, "expected key (table "+model.Printable(table)+"):")
		lines = append(lines, detail.ItemLines(key)...)
		lines = append(lines, "",
			"why: missing_lock: "+id+" holds "+attr+" = "+model.Printable(l.Value)+
				", so this lock must exist; no item has this key, and nothing stops another account from taking the value.")
	case model.LockForeign:
		lines = append(lines, "why: foreign_lock: the lock names "+model.Printable(l.Owner)+
			", which does not hold "+attr+" = "+model.Printable(l.Value)+"; "+id+" does.")
	case model.LockDuplicate:
		lines = append(lines, "why: duplicate_value: other accounts hold "+attr+" = "+model.Printable(l.Value)+" too (see the problems view).")
	case model.LockOK:
		lines = append(lines, "ok: "+id+" holds "+attr+" = "+model.Printable(l.Value)+" and this lock protects it.")
	case model.LockExpired:
		lines = append(lines, "why: expired_lock: "+lockTTLProblem(sc, a, ci).TTLNote(a.Now)+
			"; once it is gone, nothing stops another account from taking the value "+id+" holds.")
	case model.LockExpiring:
		lines = append(lines, "why: expiring_lock: "+lockTTLProblem(sc, a, ci).TTLNote(a.Now)+
			": "+id+" does not expire with it.")
	case model.LockReserved:
		lines = append(lines, "ok: "+id+" holds "+attr+" = "+model.Printable(l.Value)+" and this lock protects it, "+
			model.TTLSaid(l.ExpiresAt, a.Now)+"; "+id+" expires no later.")
	}
	return lines
}
