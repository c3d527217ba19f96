package accounts

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/items"
	"github.com/locktable/locktable/ui/pager"
	"github.com/locktable/locktable/ui/rows"
)

// The accounts listed are kept in blocks, in the order read. A window of
// blocks about the selection is held in memory (the source's main, in
// the item cache); the others are on disk (items.Store), and come back
// as the selection nears the window's edge. So the view's memory is the
// window's, however many accounts are listed: G on ten million accounts
// holds what G on ten thousand does.

// blockSize is how many accounts a block holds: the step the window moves
// by. heldBlocks is how many blocks the window holds after it moved
// (4,096 accounts, about 6 MB); it moves once it holds half as many more.
// Variables, for the tests.
var (
	blockSize  = 256
	heldBlocks = 16
)

// window is where the accounts listed are: how many each block holds,
// which are held in memory, and the store that keeps the others.
type window struct {
	counts []int // accounts in each block, in the order listed
	lo, hi int   // the blocks held: [lo, hi)
	store  *items.Store
	// Someone else's changes (the table's stream told), numbered: the
	// accounts they involve and the values they wrote or held, by the
	// number of the last; spilled is the number when each block went to
	// disk. An account coming back is read again if a change since its
	// block went involves it or one of its values.
	changes       int
	staleAccounts map[string]int
	staleValues   map[items.LockValue]int
	spilled       map[int]int
	// gone are accounts deleted while on disk: left out when their block
	// comes back.
	gone map[string]bool
	// apart is the last block's accounts while the window is elsewhere
	// and accounts are listed after the rest (a sweep n started, others'
	// inserts): in the item cache, put on disk once the block is full.
	apart []string
}

// before is how many accounts are listed before those held.
func (w *window) before() int { return sum(w.counts[:w.lo]) }

// after is how many accounts are listed after those held.
func (w *window) after() int { return sum(w.counts[w.hi:]) }

// total is how many accounts are listed.
func (w *window) total() int { return sum(w.counts) }

// endHeld reports whether the last block is held: accounts read on from
// the table join it.
func (w *window) endHeld() bool { return w.hi == len(w.counts) }

// tail is the block an account listed at the end goes in, the last one
// (a new one when it is full), counted in.
func (w *window) tail() int {
	if n := len(w.counts); n == 0 || w.counts[n-1] >= blockSize {
		held := w.endHeld()
		w.counts = append(w.counts, 0)
		if held {
			w.hi = len(w.counts)
		}
	}
	w.counts[len(w.counts)-1]++
	return len(w.counts) - 1
}

func sum(ns []int) int {
	t := 0
	for _, n := range ns {
		t += n
	}
	return t
}

// reset forgets every block: a reload lists the accounts anew.
func (w *window) reset() {
	if w.store != nil {
		_ = w.store.Close() // a temporary file: nothing to lose
	}
	*w = window{}
}

// blockOf is the place in main of the first account of held block b, and
// of the first after it.
func (d *source) blockOf(b int) (from, to int) {
	from = 0
	for k := d.win.lo; k < b; k++ {
		from += d.win.counts[k]
	}
	return from, from + d.win.counts[b]
}

// spill puts the held blocks [from, to) on disk, at the window's start
// (from is lo) or its end (to is hi), and forgets them; the pinned
// accounts stay in the cache, which their rows on top read.
func (d *source) spill(from, to int) error {
	if from >= to {
		return nil
	}
	if d.win.apart != nil && to == len(d.win.counts) {
		return fmt.Errorf("the last block is held apart") // never: it is not in the window
	}
	if d.win.store == nil {
		s, err := items.NewStore("")
		if err != nil {
			return err
		}
		d.win.store = s
	}
	first, _ := d.blockOf(from)
	_, last := d.blockOf(to - 1)
	at := first
	if d.win.spilled == nil {
		d.win.spilled = map[int]int{}
	}
	for b := from; b < to; b++ {
		ids := d.main[at : at+d.win.counts[b]]
		if err := d.win.store.Put(d.items, b, ids, d.isPinned); err != nil {
			return err
		}
		d.win.spilled[b] = d.win.changes
		at += d.win.counts[b]
	}
	d.main = append(d.main[:first:first], d.main[last:]...)
	if from == d.win.lo {
		d.win.lo = to
	} else {
		d.win.hi = from
	}
	d.reindex()
	return nil
}

// unspill brings blocks [from, to) back from disk, before those held (to
// is lo) or after them (from is hi), and returns the accounts among them
// to read again: changed by someone else while on disk.
func (d *source) unspill(from, to int) ([]string, error) {
	var ids, again []string
	for b := from; b < to; b++ {
		if b == len(d.win.counts)-1 && d.win.apart != nil {
			ids, d.win.apart = append(ids, d.win.apart...), nil // held already
			continue
		}
		got, unread, err := d.win.store.Get(d.items, b)
		if err != nil {
			return nil, err
		}
		got = slices.DeleteFunc(got, func(id string) bool { return d.win.gone[id] })
		d.win.counts[b] = len(got)
		ids = append(ids, got...)
		again = append(again, unread...)
	}
	went := d.win.changes
	for b := from; b < to; b++ {
		went = min(went, d.win.spilled[b])
	}
	again = append(again, d.changedSince(ids, went)...)
	if to == d.win.lo {
		d.main = append(ids, d.main...)
		d.win.lo = from
	} else {
		d.main = append(d.main, ids...)
		d.win.hi = to
	}
	d.reindex()
	return again, nil
}

// reindex numbers the accounts held again, after the window moved.
func (d *source) reindex() {
	clear(d.index)
	for i, id := range d.main {
		d.index[id] = i
	}
}

// body is the rows of the accounts held, as read.
func (d *source) body() []rows.Row {
	k := len(d.r.Schema.Constraints)
	body := make([]rows.Row, 0, len(d.main)*(1+k))
	for i := range d.main {
		body = accountRows(body, setMain, i, k)
	}
	return body
}

// Outside is how many rows are listed before and after those held
// (pager.Outside).
func (d *source) Outside() (before, after int) {
	per := 1 + len(d.r.Schema.Constraints)
	return d.win.before() * per, d.win.after() * per
}

// keepAtEnd lists account id after every other, in the last block: the
// window is elsewhere (a sweep n started reads on, or someone else
// inserted it and the table is read to its end). The last block is held
// apart until it is full, then goes to disk.
func (d *source) keepAtEnd(id string) error {
	w := &d.win
	last := len(w.counts) - 1
	if w.apart == nil && w.counts[last] < blockSize {
		ids, _, err := w.store.Get(d.items, last) // to fill it up
		if err != nil {
			return err
		}
		w.apart = ids
	}
	if w.counts[last] >= blockSize {
		if w.apart != nil {
			if err := w.store.Put(d.items, last, w.apart, d.isPinned); err != nil {
				return err
			}
		}
		w.counts, w.apart, last = append(w.counts, 0), []string{}, last+1
	}
	w.apart = append(w.apart, id)
	w.counts[last]++
	return nil
}

// margin is how many accounts the window holds at least on either side of
// the selection, where the list has them: more than a page key moves by.
func margin() int { return max(blockSize/2, 1) }

// selectedAt is the place in main of the selected account, false when
// the selection is not an account's row read (a row on top).
func (m *Model) selectedAt() (int, bool) {
	r, ok := m.pager.Selected()
	if !ok || r.Set != setMain || r.Kind != rows.Account && r.Kind != rows.Lock {
		return 0, false
	}
	return int(r.Index), true
}

// settle moves the window with the selection: the block next to it comes
// back from disk once the selection nears the window's edge, and the
// blocks farthest from it go there while the window holds more than
// heldBlocks. It returns the command that reads again the accounts
// someone else changed while they were on disk.
func (m *Model) settle() tea.Cmd {
	at, selected := m.selectedAt()
	_, sorted := m.Sort.By()
	var was *selection // by its key: the window's places change
	if r, ok := m.pager.Selected(); ok {
		was = m.src.selection(r)
	}
	var mv moving
	refilled := m.refill(&mv)
	// Sorted, the view sorts the accounts held: scrolling does not move
	// the window (the sort would move every row); pages read still do.
	if selected && !sorted && m.err == nil {
		at = m.bringBack(&mv, at)
	}
	m.trim(&mv, at, selected, sorted)
	if mv.moved {
		m.slide(mv.delta, mv.put, sorted, was)
		if m.src.unpinListed() {
			m.setHead() // a pinned account back in the window leaves the pin
		}
		if refilled && m.goneSelected {
			// Every row held had gone, the selected one with them: the
			// first that came back is selected, the row after it.
			pager.Reselect(&m.pager, len(m.src.top))
		}
	}
	m.goneSelected = false
	m.offHeading()
	m.hold()
	if len(mv.again) > 0 {
		return m.refresh(mv.again, true)
	}
	return nil
}

// moving is what settle did to the window: the accounts to read again,
// the rows put (+) or taken (-) above the selection, whether a block came
// or went, and whether one came in front.
type moving struct {
	again      []string
	delta      int
	moved, put bool
}

// refill brings blocks back when every account held went (deleted): the
// next ones, or those before, until one holds an account (blocks whose
// accounts all went hold none); it reports whether it did.
func (m *Model) refill(mv *moving) bool {
	w := &m.src.win
	refilled := false
	for len(m.src.main) == 0 && (w.lo > 0 || !w.endHeld()) {
		from := w.hi
		if w.endHeld() {
			from = w.lo - 1
		}
		got, err := m.src.unspill(from, from+1)
		if err != nil {
			m.err = err
			break
		}
		mv.again, mv.moved, mv.put, refilled = append(mv.again, got...), true, true, true
	}
	return refilled
}

// bringBack brings back the block next to the selection's end of the
// window, at place at of main, once it is within margin of it, and
// returns where the selection is now.
func (m *Model) bringBack(mv *moving, at int) int {
	w := &m.src.win
	per := 1 + len(m.r.Schema.Constraints)
	if at < margin() && w.lo > 0 {
		n := w.counts[w.lo-1]
		got, err := m.src.unspill(w.lo-1, w.lo)
		if err != nil {
			m.err = err
			return at
		}
		mv.again, at, mv.delta, mv.moved, mv.put = append(mv.again, got...), at+n, mv.delta+n*per, true, true
	}
	if len(m.src.main)-at <= margin() && !w.endHeld() {
		got, err := m.src.unspill(w.hi, w.hi+1)
		if err != nil {
			m.err = err
			return at
		}
		mv.again, mv.moved = append(mv.again, got...), true
	}
	return at
}

// trim puts on disk, once the window holds half as many blocks more than
// heldBlocks, the blocks farthest from the selection, at place at of
// main, at once (each move lays out the window's rows anew: not a block
// at a time while G reads on).
func (m *Model) trim(mv *moving, at int, selected, sorted bool) {
	w := &m.src.win
	over := w.hi - w.lo - heldBlocks
	if over <= heldBlocks/2 {
		return
	}
	var err error
	if selected && at >= len(m.src.main)/2 || !selected && sorted {
		if selected {
			over = min(over, m.src.blockAt(at)-w.lo) // the selection's block stays
		}
		n := 0
		for b := w.lo; b < w.lo+over; b++ {
			n += w.counts[b]
		}
		err = m.src.spill(w.lo, w.lo+over)
		mv.delta -= n * (1 + len(m.r.Schema.Constraints))
	} else {
		if selected {
			over = min(over, w.hi-m.src.blockAt(at)-1) // the selection's block stays
		}
		err = m.src.spill(w.hi-over, w.hi)
	}
	if err != nil {
		m.err = err
	}
	mv.moved = true
}

// slide shows the accounts held now, the selected row staying selected:
// where it was on screen, delta rows having come (+) or gone (-) above it
// (put: some came); sorted, wherever the sort puts it (was: the row
// selected before the window moved, nil for one on top).
func (m *Model) slide(delta int, put, sorted bool, was *selection) {
	if !sorted {
		pager.Slide(&m.pager, m.src.body(), delta, put)
		return
	}
	pager.Slide(&m.pager, m.src.body(), 0, true)
	if was == nil {
		return
	}
	if i, ok := m.src.rowOf(*was); ok {
		pager.Reselect(&m.pager, i)
	}
}

// windowAt holds the blocks about block b, those held before going to
// disk: g and G, which go to the first and the last account listed.
func (m *Model) windowAt(b int) tea.Cmd {
	w := &m.src.win
	k := heldBlocks / 2 // room to move before the window is full
	from := max(min(b-k/2, len(w.counts)-k), 0)
	to := min(from+k, len(w.counts))
	if w.lo == from && w.hi == to {
		return nil
	}
	if err := m.src.spill(w.lo, w.hi); err != nil {
		m.err = err
		return nil
	}
	w.lo, w.hi = from, from // nothing held: brought back after
	again, err := m.src.unspill(from, to)
	pager.Slide(&m.pager, m.src.body(), 0, true) // what is held, if that failed: none
	if m.src.unpinListed() {
		m.setHead() // a pinned account back in the window leaves the pin
	}
	m.hold()
	if err != nil {
		m.err = err
		return nil
	}
	if len(again) > 0 {
		return m.refresh(again, true)
	}
	return nil
}

// touched notes someone else's changes: the accounts they involve and
// the values they wrote or held, for the accounts on disk to be read
// again when they come back (changedSince).
func (d *source) touched(ids []string, values []items.LockValue) {
	w := &d.win
	if w.store == nil {
		return // nothing on disk: the rows held are read again as they are
	}
	w.changes++
	if w.staleAccounts == nil {
		w.staleAccounts, w.staleValues = map[string]int{}, map[items.LockValue]int{}
	}
	for _, id := range ids {
		w.staleAccounts[id] = w.changes
	}
	for _, v := range values {
		w.staleValues[v] = w.changes
	}
}

// changedSince are the accounts of ids, just back from disk, where they
// went at change number went, that a change since involves: by key, or by
// a value one of its locks is for.
func (d *source) changedSince(ids []string, went int) []string {
	w := &d.win
	var again []string
	for _, id := range ids {
		if w.staleAccounts[id] > went {
			again = append(again, id)
			continue
		}
		a, _ := d.items.Account(id)
		for _, l := range a.Locks {
			if l.Value != "" && w.staleValues[items.LockValue{Constraint: l.Constraint, Value: l.Value}] > went {
				again = append(again, id)
				break
			}
		}
	}
	return again
}

// blockAt is the block of the account at place i of main.
func (d *source) blockAt(i int) int {
	b := d.win.lo
	for ; b < d.win.hi-1 && i >= d.win.counts[b]; b++ {
		i -= d.win.counts[b]
	}
	return b
}

// seekOnDisk looks for the next row (dir +1) or the previous (-1) that
// match holds for in the blocks on disk past the window's edge, a block
// at a time, the window moving with the selection, and reports whether
// it found one; if not, the selection is back on its row. Sorted, the
// view sorts the accounts held, and looks no further.
func (m *Model) seekOnDisk(dir int, match func(rows.Row) bool) (bool, tea.Cmd) {
	w := &m.src.win
	at, selected := m.selectedAt()
	if _, sorted := m.Sort.By(); sorted || !selected || w.store == nil {
		return false, nil
	}
	r, _ := m.pager.Selected()
	was, home := *m.src.selection(r), m.src.blockAt(at)
	var cmds []tea.Cmd
	for dir > 0 && !w.endHeld() || dir < 0 && w.lo > 0 {
		if dir > 0 {
			m.pager.SetCursor(m.pager.Len() - 1)
		} else {
			m.pager.SetCursor(len(m.src.top))
		}
		cmds = append(cmds, m.settle())
		if m.err != nil {
			break
		}
		if m.pager.Seek(dir, match) {
			return true, tea.Batch(cmds...)
		}
	}
	if dir > 0 && !m.pager.Paging().Done() {
		// n reads on from the table: the selection stays at the end,
		// where the pages land.
		return false, tea.Batch(cmds...)
	}
	cmds = append(cmds, m.windowAt(home))
	if i, ok := m.src.rowOf(was); ok {
		m.pager.SetCursor(i)
	}
	return false, tea.Batch(cmds...)
}

// hold keeps the pager from reading pages of its own while the accounts
// after the window are on disk, or a sweep reads them all.
func (m *Model) hold() { pager.Hold(&m.pager, !m.src.win.endHeld() || m.sweeper.running()) }

// eachListed calls f with every account listed, held or on disk, in the
// list's order (:export); a block that cannot be read back is left out.
func (d *source) eachListed(f func(model.AccountView)) {
	w := &d.win
	for b := range w.counts {
		switch {
		case b == w.lo:
			for _, id := range d.main {
				a, _ := d.items.Account(id)
				f(a)
			}
		case b > w.lo && b < w.hi:
		case b == len(w.counts)-1 && w.apart != nil:
			for _, id := range w.apart {
				a, _ := d.items.Account(id)
				f(a)
			}
		default:
			_ = w.store.Views(d.items, b, func(a model.AccountView) {
				if !w.gone[a.ID] {
					f(a)
				}
			})
		}
	}
}

// SetWindow makes blocks of block accounts, held heldBlocks at a time,
// until restore: the window moves on a table a test makes in seconds.
func SetWindow(block, held int) (restore func()) {
	b, h := blockSize, heldBlocks
	blockSize, heldBlocks = block, held
	return func() { blockSize, heldBlocks = b, h }
}

// offHeading selects the account row after the selected one if that is
// a heading, which a key never selects: rows around it came or went while
// it was kept in place.
func (m *Model) offHeading() {
	// Over no account row at all, the heading stays: there is no row
	// after it to select.
	if r, ok := m.pager.Selected(); ok && m.src.Heading(r) && len(m.src.main) > 0 {
		pager.Reselect(&m.pager, m.pager.Cursor())
	}
}
