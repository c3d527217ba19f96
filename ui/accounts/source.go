package accounts

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/rows"
	"github.com/locktable/locktable/ui/sorting"
	"github.com/locktable/locktable/ui/styles"
)

// Account lists that rows point into.
const (
	setMain   = 0 // accounts paged in from the table
	setPinned = 1 // accounts found by a search or a jump
)

// maxOrphanRows is how many orphan locks the accounts view lists on top;
// the rest are a keypress away in the problems view.
const maxOrphanRows = 5

// Pin is a group shown on top of the accounts view: search results, the
// rows of a problem jumped to, or accounts just written. Its accounts go
// to the item cache, which the rows are rendered from.
type Pin struct {
	Title    string
	Accounts []model.AccountView
	Orphans  []model.Problem
	Note     string // shown when there is nothing else, e.g. "not found"
	// Problem is the problem whose rows these are (a jump), nil for
	// others: once a check no longer finds it, the title says so.
	Problem *model.Problem
	// fixed: the last check no longer finds Problem.
	fixed bool
	// written: the accounts of the last write that no list showed; each
	// leaves the group once a page lists it.
	written bool
	// added: accounts someone else inserted that no list showed (also
	// written: each leaves once a page lists it); the title counts them.
	added bool
}

// title is the pinned group's heading.
func (p *Pin) title() string {
	if p.fixed {
		return p.Title + " (fixed since: the check no longer finds it)"
	}
	return p.Title
}

// source is how the accounts view's rows look (pager.Look): the
// accounts paged in, each followed by one row per constraint, under a
// small head of its own (orphan locks from the check, a pinned group)
// that the pager shows on top. Rows name accounts by their place in main
// or pinned; the accounts are the item cache's.
type source struct {
	r       *rows.Renderer
	items   *items.Cache
	many    string         // accounts, or records: the items of the account table
	loaded  string         // "accounts loaded", for the status (asked every frame)
	main    []string       // the keys of the accounts held (the window's), in the order read
	index   map[string]int // account id -> index in main
	win     window         // the blocks of accounts listed: those of main, and those on disk
	kept    []string       // the accounts the last page listed (a sweep lists them no more)
	sorting accountSort    // the order they are shown in
	orphans []model.Problem
	partial bool // orphans are those a running (or failed) check confirmed so far
	pin     *Pin
	pinned  []string // the keys of the pinned accounts (pin.Accounts are cached)
	pinEnd  int      // the first row after the pinned group (0: none pinned)
	top     []rows.Row
	// topKeys name the rows of top by what they show (topKey), for the
	// selection to stay on its row when the rows on top change.
	topKeys []shownAs
	unpin   string // the key that unpins, as a note says it
	matched lastMatch
	// judgedBy is the report the rows were judged by when a reload began:
	// once its first page comes, the check runs anew, and until it ends the
	// rows say what was read. (A reload that fails keeps the rows and
	// their judgement, stale.)
	judgedBy   *model.Report
	emptyTable bool // the check scanned no item at all
	// generation counts the changes to what a row shows in place (the
	// pager counts the others): a row on top names a pinned account or an
	// orphan by its place, and what is at that place changing is a change.
	generation int
}

// setOrphans lists orphans on top, partial when the check is unfinished.
func (d *source) setOrphans(orphans []model.Problem, partial bool) {
	shown := func(ps []model.Problem) []model.Problem { return ps[:min(len(ps), maxOrphanRows)] }
	if !slices.EqualFunc(shown(d.orphans), shown(orphans), sameLock) {
		d.generation++
	}
	d.orphans, d.partial = orphans, partial
}

// sameLock reports whether problems p and q are of one lock, as a row
// shows it.
func sameLock(p, q model.Problem) bool {
	return p.Kind == q.Kind && p.ConstraintIndex() == q.ConstraintIndex() && p.Value == q.Value && p.Owner == q.Owner
}

func newSource(r *rows.Renderer, c *items.Cache, unpin string) *source {
	_, many := r.Schema.Nouns()
	columns := []string{"key"}
	for _, c := range r.Schema.Constraints {
		columns = append(columns, c.Attr)
	}
	return &source{r: r, items: c, many: many, loaded: many + " loaded", index: map[string]int{}, unpin: unpin,
		sorting: accountSort{order: sorting.New(append(columns, "problems")...)}}
}

// id is the key of the account a row refers to.
func (d *source) id(r rows.Row) string {
	if r.Set == setPinned {
		return d.pinned[r.Index]
	}
	return d.main[r.Index]
}

// Count is how many accounts are listed, held or on disk (pager.Counter).
func (d *source) Count() int { return d.win.total() }

// Empty is what the view says with no row at all (pager.Look).
func (d *source) Empty() string {
	if d.emptyTable {
		return "this table is empty"
	}
	return "no accounts"
}

// account returns the account a row refers to, as the item cache holds
// and judges it.
func (d *source) account(r rows.Row) *model.AccountView {
	v, _ := d.items.Account(d.id(r))
	return &v
}

// status is the status of a lock row, without building a view.
func (d *source) status(r rows.Row) model.LockStatus {
	return d.items.Status(d.id(r), int(r.Lock))
}

// orphan returns the problem an Orphan row refers to.
func (d *source) orphan(r rows.Row) *model.Problem {
	if r.Set == setPinned {
		return &d.pin.Orphans[r.Index]
	}
	return &d.orphans[r.Index]
}

// Cells are an account's, a lock's or an orphan lock's row's parts
// (pager.Look); the other rows are Text.
func (d *source) Cells(r rows.Row) rows.Cells {
	switch r.Kind {
	case rows.Account:
		a := d.account(r)
		c := d.r.AccountCells(a)
		c.Changed = d.items.Changed(a.ID)
		return c
	case rows.Lock:
		return d.r.LockCells(d.account(r), int(r.Lock))
	}
	return d.r.OrphanCells(d.orphan(r), d.items.JudgedAt())
}

// Text is what a title, a note or the "… more" row says, and in which
// style (pager.Texts); false for the other rows.
func (d *source) Text(r rows.Row) (string, styles.Style, bool) {
	switch r.Kind {
	case rows.Group:
		return r.Text, d.r.Styles.Group, true
	case rows.More:
		return r.Text, d.r.Styles.Title, true
	case rows.Note:
		return r.Text, d.r.Styles.Dim, true
	}
	return "", styles.Style{}, false
}

// Heading reports whether r is a title or a note, which nothing can be
// done with: the selection steps over it (pager.Texts).
func (d *source) Heading(r rows.Row) bool { return r.Kind == rows.Group || r.Kind == rows.Note }

// Generation counts the changes to what rows show in place.
func (d *source) Generation() int { return d.generation }

// problematic reports whether row r shows a problem, for n and N.
func (d *source) problematic(r rows.Row) bool {
	switch r.Kind {
	case rows.Orphan:
		return true
	case rows.Lock:
		return d.status(r).Problematic()
	}
	return false
}

// accountRows appends the rows of account index i of set: the account,
// then one per constraint.
func accountRows(dst []rows.Row, set uint8, i, constraints int) []rows.Row {
	dst = append(dst, rows.Row{Kind: rows.Account, Set: set, Index: int32(i)})
	for ci := range constraints {
		dst = append(dst, rows.Row{Kind: rows.Lock, Set: set, Index: int32(i), Lock: int16(ci)})
	}
	return dst
}

// Keep puts an account read into the item cache and appends its rows to
// dst (pager.Look). An account already listed (a page boundary seen
// twice) is replaced, not repeated.
func (d *source) Keep(dst []rows.Row, a model.AccountView) []rows.Row {
	d.items.Put(a)
	if _, ok := d.index[a.ID]; ok {
		return dst
	}
	d.kept = append(d.kept, a.ID)
	if !d.win.endHeld() {
		// Listed after accounts on disk, with the last block. If that
		// block cannot be read back, it is not listed until r reads the
		// table again (the cache holds it: a search finds it).
		_ = d.keepAtEnd(a.ID)
		return dst
	}
	d.win.tail()
	d.index[a.ID] = len(d.main)
	d.main = append(d.main, a.ID)
	return accountRows(dst, setMain, len(d.main)-1, len(d.r.Schema.Constraints))
}

// Reset forgets every account paged in, when a reload's first page
// replaces them (pager.Counter): the check runs anew, and until it ends
// the rows say what was read.
func (d *source) Reset() {
	d.main, d.index = nil, map[string]int{}
	d.win.reset()
	if r := d.items.Report(); r != nil && r == d.judgedBy {
		d.items.SetReport(nil, nil)
	}
}

// rebuildTop lays out the top part again, to be the pager's head.
func (d *source) rebuildTop() []rows.Row {
	top := d.top[:0:0]
	if d.pin != nil {
		title := d.pin.title()
		if d.pin.added {
			title = fmt.Sprintf("%s (%d)", title, len(d.pinned))
		}
		top = append(top, rows.Row{Kind: rows.Group, Text: title})
		for i := range d.pin.Orphans {
			top = append(top, rows.Row{Kind: rows.Orphan, Set: setPinned, Index: int32(i)})
		}
		for i := range d.pinned {
			top = accountRows(top, setPinned, i, len(d.r.Schema.Constraints))
		}
		if d.pin.Note != "" {
			top = append(top, rows.Row{Kind: rows.Note, Text: d.pin.Note})
		}
	}
	d.pinEnd = len(top)
	if n := len(d.orphans); n > 0 {
		what, one := "orphan locks", "orphan lock"
		if slices.ContainsFunc(d.orphans, func(p model.Problem) bool { return p.Kind == model.ExpiredLock }) {
			what, one = "locks nobody holds", "lock nobody holds"
		}
		title := fmt.Sprintf("%s (%d)", what, n)
		if d.partial {
			title = fmt.Sprintf("%s (%d, partial: the check is unfinished)", what, n)
		}
		top = append(top, rows.Row{Kind: rows.Group, Text: title})
		for i := range min(n, maxOrphanRows) {
			top = append(top, rows.Row{Kind: rows.Orphan, Index: int32(i)})
		}
		if more := n - maxOrphanRows; more > 0 {
			if more == 1 {
				what = one
			}
			top = append(top, rows.Row{Kind: rows.More, Text: fmt.Sprintf("… %d more %s: enter or 3 for the problems view", more, what)})
		}
	}
	if d.pin != nil || len(d.orphans) > 0 {
		top = append(top, rows.Row{Kind: rows.Note, Text: d.many})
	}
	d.top = top
	d.topKeys = d.topKeys[:0]
	for _, r := range top {
		d.topKeys = append(d.topKeys, d.topKey(r))
	}
	return top
}

// shownAs is what a row on top shows (topKey), for the selection to
// follow it: its key, and for a pinned account's row, the account and
// the row's kind and lock, to find it below once a page lists it.
type shownAs struct {
	key     string
	account string
	kind    rows.Kind
	lock    int16
	orphan  string // an orphan's lock, whichever group shows it
}

// topKey names a row on top by what it shows, not by its place: an orphan
// by its lock, a pinned account's row by the account (and the lock's
// constraint), a heading by its words without the count.
func (d *source) topKey(r rows.Row) shownAs {
	switch r.Kind {
	case rows.Orphan:
		p := d.orphan(r)
		lock := fmt.Sprintf("%s %s", p.Constraint, p.Value)
		return shownAs{key: fmt.Sprintf("orphan %d %s", r.Set, lock), orphan: lock}
	case rows.Account, rows.Lock:
		id := d.id(r)
		return shownAs{key: fmt.Sprintf("account %d %s %d %d", r.Set, id, r.Kind, r.Lock), account: id, kind: r.Kind, lock: r.Lock}
	}
	title, _, _ := strings.Cut(r.Text, " (")
	return shownAs{key: fmt.Sprintf("text %d %s", r.Kind, title)}
}

// unpinListed drops from a group of accounts written those the body now
// lists, and the group once it is empty; it reports whether it dropped
// any (the top is to be laid out again).
func (d *source) unpinListed() bool {
	if d.pin == nil || !d.pin.written {
		return false
	}
	n := len(d.pinned)
	d.pinned = slices.DeleteFunc(d.pinned, func(id string) bool { _, ok := d.index[id]; return ok })
	if len(d.pinned) == 0 {
		d.pin = nil
	}
	if len(d.pinned) != n {
		d.generation++
		return true
	}
	return false
}

// isPinned reports whether account id is shown in the pinned group.
func (d *source) isPinned(id string) bool { return slices.Contains(d.pinned, id) }

// setPin shows p on top (nil: nothing), its accounts put in the item cache.
func (d *source) setPin(p *Pin) {
	d.pin, d.pinned = p, nil
	d.generation++
	if p == nil {
		return
	}
	for _, a := range p.Accounts {
		d.items.Put(a)
		if !d.isPinned(a.ID) {
			d.pinned = append(d.pinned, a.ID)
		}
	}
	p.Accounts = nil // the cache's from now on
}

// prunePinnedOrphans drops the pinned orphan locks that a check no longer
// reports among problems.
func (d *source) prunePinnedOrphans(problems []model.Problem) {
	if d.pin == nil || len(d.pin.Orphans) == 0 {
		return
	}
	n := len(d.pin.Orphans)
	d.pin.Orphans = slices.DeleteFunc(d.pin.Orphans, func(o model.Problem) bool {
		return !slices.ContainsFunc(problems, func(p model.Problem) bool {
			return p.Kind == o.Kind && p.ConstraintIndex() == o.ConstraintIndex() && p.Value == o.Value
		})
	})
	if len(d.pin.Orphans) != n {
		d.generation++
	}
	d.sayIfEmptied()
}

// sayIfEmptied says so when the pinned group lost all its rows, rather
// than leave its title over nothing.
func (d *source) sayIfEmptied() {
	if p := d.pin; p != nil && len(d.pinned) == 0 && len(p.Orphans) == 0 && p.Note == "" {
		p.Note = "nothing left: deleted or fixed since (" + d.unpin + " unpins)"
	}
}

// selection is a body row by what it shows: an account, and which of
// its rows (0 the account, 1+ci its lock of constraint ci).
type selection struct {
	id  string
	row int
}

// selection returns what row r shows, nil for a row of the top.
func (d *source) selection(r rows.Row) *selection {
	if r.Set != setMain || r.Kind != rows.Account && r.Kind != rows.Lock {
		return nil
	}
	sel := &selection{id: d.main[r.Index]}
	if r.Kind == rows.Lock {
		sel.row = 1 + int(r.Lock)
	}
	return sel
}

// rowSelection is the selection of account id's row of kind (an
// account's, or its lock's of constraint lock).
func rowSelection(id string, kind rows.Kind, lock int16) selection {
	s := selection{id: id}
	if kind == rows.Lock {
		s.row = 1 + int(lock)
	}
	return s
}

// rowOf returns the row that shows s, if its account is loaded.
func (d *source) rowOf(s selection) (int, bool) {
	i, ok := d.index[s.id]
	if !ok {
		return 0, false
	}
	return len(d.top) + d.sorting.place(i)*(1+len(d.r.Schema.Constraints)) + s.row, true
}

// shows reports whether a row loaded shows problem p: one of its
// accounts in the body, or its orphan lock among those listed on top.
func (d *source) shows(p model.Problem) bool {
	if p.Kind == model.OrphanLock {
		i := slices.IndexFunc(d.orphans, func(o model.Problem) bool {
			return o.ConstraintIndex() == p.ConstraintIndex() && o.Value == p.Value
		})
		return i >= 0 && i < maxOrphanRows
	}
	return slices.ContainsFunc(p.Accounts, func(id string) bool { _, ok := d.index[id]; return ok })
}

// pinnedIDs are the accounts of the pinned group.
func (d *source) pinnedIDs() []string { return slices.Clone(d.pinned) }

// remove drops deleted accounts from every list, and returns the rows
// of those left paged in.
func (d *source) remove(ids []string) []rows.Row {
	gone := map[string]bool{}
	for _, id := range ids {
		gone[id] = true
	}
	for id := range gone {
		if _, held := d.index[id]; !held && d.win.store != nil {
			if d.win.gone == nil {
				d.win.gone = map[string]bool{}
			}
			d.win.gone[id] = true // if it is on disk, it stays there
		}
		d.items.Drop(id)
	}
	if d.pin != nil {
		n := len(d.pinned)
		d.pinned = slices.DeleteFunc(d.pinned, func(id string) bool { return gone[id] })
		if len(d.pinned) != n {
			d.generation++
		}
		d.sayIfEmptied()
	}
	return d.dropFromBody(gone)
}

// listAtEnd lists views after the accounts paged in, as a page would,
// and returns the rows of them all.
func (d *source) listAtEnd(views []model.AccountView) []rows.Row {
	for _, a := range views {
		d.Keep(nil, a) // listed after the rest, the index kept
	}
	return d.body()
}

// dropFromBody drops the accounts of gone from those paged in, and
// returns the rows of those left, as read (the pager sorts them again:
// Sort).
func (d *source) dropFromBody(gone map[string]bool) []rows.Row {
	main := d.main
	var body []rows.Row
	d.main, d.index = nil, map[string]int{}
	b, left := d.win.lo, 0 // the block of main's i-th account, and how many of it are left to go through
	for _, id := range main {
		for left == 0 && b < d.win.hi {
			left = d.win.counts[b]
			b++
		}
		left--
		if gone[id] {
			d.win.counts[b-1]--
			continue
		}
		d.index[id] = len(d.main)
		d.main = append(d.main, id)
		body = accountRows(body, setMain, len(d.main)-1, len(d.r.Schema.Constraints))
	}
	if w := &d.win; w.apart != nil {
		n := len(w.apart)
		w.apart = slices.DeleteFunc(w.apart, func(id string) bool { return gone[id] })
		w.counts[len(w.counts)-1] -= n - len(w.apart)
	}
	return body
}
