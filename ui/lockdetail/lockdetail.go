// Package lockdetail is the detail of one lock, wherever it is opened
// (an account's lock row, an orphan's row, the locks view): the lock read
// now, so that c and C copy it; why it has the status it has; its TTL in
// words. One component, so that a lock reads the same from every view.
package lockdetail

import (
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/rows"
)

// OfHolder is the detail of lock ci of account a, as a holds it (its
// lock row; the locks view, for a lock whose holder it has read). With no
// value there is no lock to read: the detail says why none is expected.
func OfHolder(r *rows.Renderer, a model.AccountView, ci int) detail.OpenMsg {
	a.Locks = append([]model.LockView(nil), a.Locks...) // the pin or a page may change under it
	open := detail.OpenMsg{Title: holderTitle(r, &a, ci), Render: func(lock model.Item) []string { return holderLines(r, &a, ci, lock) }}
	if v := a.Locks[ci].Value; v != "" {
		table, key := r.Schema.LockKeyAs(ci, v, a.Locks[ci].Alt)
		open.Read = &model.KeyRef{Table: table, Key: key}
	}
	return open
}

// OfOrphan is the detail of a lock the check found nobody holds (an
// orphan, or an expired lock), judged at now.
func OfOrphan(sc *model.Schema, p model.Problem, now int64) detail.OpenMsg {
	table, key := sc.LockOf(p) // the raw key, in the spelling found
	return detail.OpenMsg{Title: "lock " + model.Printable(p.Value), Read: &model.KeyRef{Table: table, Key: key},
		Render: func(lock model.Item) []string {
			if lock == nil {
				return []string{"this lock no longer exists: it may have been repaired (r reloads)"}
			}
			return append(append(detail.ItemLines(lock), ""), orphanWhy(p, now))
		}}
}

// TTLProblem is the expired or expiring lock of constraint ci of
// account a as its row knows it: with a as its one holder.
func TTLProblem(sc *model.Schema, a *model.AccountView, ci int) model.Problem {
	l := a.Locks[ci]
	kind := model.ExpiredLock
	if l.Status == model.LockExpiring {
		kind = model.ExpiringLock
	}
	p := model.Classifier{Schema: sc}.HolderProblem(kind, ci, l.Value, l.Owner, []string{a.ID})
	p.ExpiresAt = l.ExpiresAt
	return p
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

// holderTitle is the title of the detail of lock ci of account a.
func holderTitle(r *rows.Renderer, a *model.AccountView, ci int) string {
	l := a.Locks[ci]
	attr := r.Schema.Constraints[ci].Attr
	if l.Status == model.LockNone || (l.Status == model.LockInvalid && l.Item == nil) {
		return attr + " of " + rows.AccountKey(a) + "  (" + string(l.Status) + ")"
	}
	return "lock " + r.LockKey(ci, l.Value, l.Alt) + "  (" + string(l.Status) + ")"
}

// holderLines is the detail of a lock as its holder holds it: the lock as read now, or for a
// lock that is not there, the key it should have; then why.
func holderLines(r *rows.Renderer, a *model.AccountView, ci int, lock model.Item) []string {
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
	case model.LockUnread:
		lines = append(lines, id+" holds "+attr+" = "+model.Printable(l.Value)+"; its lock was not read yet when the row was drawn: no verdict.")
	case model.LockExpired:
		lines = append(lines, "why: expired_lock: "+TTLProblem(sc, a, ci).TTLNote(a.Now)+
			"; once it is gone, nothing stops another account from taking the value "+id+" holds.")
	case model.LockExpiring:
		lines = append(lines, "why: expiring_lock: "+TTLProblem(sc, a, ci).TTLNote(a.Now)+
			": "+id+" does not expire with it.")
	case model.LockReserved:
		lines = append(lines, "ok: "+id+" holds "+attr+" = "+model.Printable(l.Value)+" and this lock protects it, "+
			model.TTLSaid(l.ExpiresAt, a.Now)+"; "+id+" expires no later.")
	}
	return lines
}
