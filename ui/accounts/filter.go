package accounts

import (
	"github.com/locktable/locktable/ui/browser"
	"github.com/locktable/locktable/ui/rows"
)

// Match reports whether row r shows q (pager.Look). An account and its
// lock rows match together, on the account's key, its unique values and
// its locks' keys, owners and statuses: the filter keeps accounts whole.
// An orphan lock matches on its key, owner and kind.
func (d *source) Match(r rows.Row, q string) bool {
	switch r.Kind {
	case rows.Account, rows.Lock:
		// A lock row comes after its account's: judged once for all.
		if m := d.matched; r.Kind == rows.Lock && m.set == r.Set && m.index == r.Index && m.q == q {
			return m.ok
		}
		ok := d.matchAccount(r, q)
		d.matched = lastMatch{set: r.Set, index: r.Index, q: q, ok: ok}
		return ok
	case rows.Orphan:
		p := d.orphan(r)
		return d.r.ProblemLockShows(p, q) ||
			browser.Contains(p.Owner, q) || browser.Contains(string(p.Kind), q)
	case rows.More:
		return browser.Contains(r.Text, q)
	}
	return false
}

// lastMatch is the last account judged, for its lock rows.
type lastMatch struct {
	set   uint8
	index int32
	q     string
	ok    bool
}

func (d *source) matchAccount(r rows.Row, q string) bool {
	sc := d.r.Schema
	if matched, ok := d.items.Match(d.id(r), q); ok {
		return matched
	}
	a := d.account(r)
	if browser.Contains(a.ID, q) {
		return true
	}
	for ci, con := range sc.Constraints {
		if v, ok := a.Item[con.Attr]; ok && (browser.Contains(v.S, q) || browser.Contains(v.DynamoJSON(), q)) {
			return true
		}
		if ci < len(a.Locks) {
			if l := a.Locks[ci]; l.Value != "" && d.r.LockKeyShows(ci, l.Value, l.Alt, q) || browser.Contains(l.Owner, q) || browser.Contains(string(l.Status), q) {
				return true
			}
		}
	}
	return false
}
