package accounts

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"runtime/debug"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/startuptrace"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/pager"
	"github.com/locktable/locktable/ui/rows"
)

// Sweeper is a Backend that reads every account at once, at the speed of
// a scan (dynamo.Sweeper: one parallel scan, the locks matched from it):
// progress as it reads, then the accounts, each segment's in the order
// its scan read them, a few hundred at a time. Stopped by ctx, it hands
// on nothing more. A Backend that is one reads the rest of the table so
// for G, and for n before the check has ended; else they read page after
// page.
type Sweeper interface {
	AccountsSweep(ctx context.Context, consistent bool, progress func(backend.SweepProgress), page func(segment int, views []model.AccountView)) error
}

// SweepMsg tells how a sweep goes: how far it has read, accounts read,
// or its end. A stopped sweep's are dropped.
type SweepMsg struct {
	ch       <-chan SweepMsg // the sweep it tells of
	progress backend.SweepProgress
	views    []model.AccountView
	done     bool
	err      error
}

// sweeper is the accounts view's sweep, if one runs: its messages come
// through ch, one at a time as the view asks (wait), and stop ends it.
type sweeper struct {
	ch       chan SweepMsg // nil: none runs
	stop     context.CancelFunc
	progress backend.SweepProgress
	listed   int // accounts it listed so far
	// seek: n started it, and looks for the next problem once every
	// account is read.
	seek bool
	// before are the accounts listed before it began (hashes of their
	// keys), which it does not list again.
	before map[uint64]struct{}
	seed   maphash.Seed
}

// running reports whether a sweep runs.
func (w *sweeper) running() bool { return w.ch != nil }

// start starts a sweep of b, consistent or not, under ctx; its first
// message is the command's. What it hands on waits in a channel of a few
// messages for the view to take: memory stays the view's.
func (w *sweeper) start(ctx context.Context, b Sweeper, consistent bool) tea.Cmd {
	ctx, stop := context.WithCancel(ctx)
	ch := make(chan SweepMsg, 4)
	w.ch, w.stop, w.progress, w.listed, w.seed = ch, stop, backend.SweepProgress{}, 0, maphash.MakeSeed()
	return func() tea.Msg {
		startuptrace.Mark("sweep") // bench/tui times G from here to "swept"
		go sweepInto(ctx, b, consistent, ch)
		return receive(ch)
	}
}

// sweepInto runs the sweep, telling ch how it goes: progress when the
// view is ready for it (a newer one replaces it), every chunk of
// accounts, then the end, unless stopped first.
func sweepInto(ctx context.Context, b Sweeper, consistent bool, ch chan SweepMsg) {
	defer close(ch)
	send := func(msg SweepMsg) {
		select {
		case ch <- msg:
		case <-ctx.Done():
		}
	}
	err := b.AccountsSweep(ctx, consistent,
		func(p backend.SweepProgress) {
			select {
			case ch <- SweepMsg{progress: p}:
			default: // the view is behind: it hears of the next
			}
		},
		func(_ int, views []model.AccountView) { send(SweepMsg{views: views}) })
	// What the sweep held to match the locks is garbage now: given back
	// at once, as the check's census is (the runtime would, over minutes).
	debug.FreeOSMemory()
	send(SweepMsg{done: true, err: err})
}

// receive waits for ch's next message (nil once it is closed).
func receive(ch chan SweepMsg) tea.Msg {
	msg, ok := <-ch
	if !ok {
		return nil
	}
	if msg.done && msg.err == nil {
		startuptrace.Mark("swept")
	}
	msg.ch = ch
	return msg
}

// wait asks for the running sweep's next message.
func (w *sweeper) wait() tea.Cmd {
	ch := w.ch
	return func() tea.Msg { return receive(ch) }
}

// end forgets the sweep, stopping it if it runs.
func (w *sweeper) end() {
	if w.stop != nil {
		w.stop()
	}
	w.ch, w.stop, w.seek, w.before = nil, nil, false, nil
}

// status says how far the sweep has read, and how to stop it.
func (w *sweeper) status(stop string) string {
	p := w.progress
	if p.Pages == 0 {
		return "reading every account… · " + stop + " stops"
	}
	pages := rows.Count(int64(p.Pages)) + " pages"
	if p.Pages == 1 {
		pages = "1 page"
	}
	s := fmt.Sprintf("reading every account: %s items in %s, %.1f RCU", rows.Count(p.Items), pages, p.RCU)
	if p.Approx > 0 {
		s = fmt.Sprintf("reading every account: %s of ~%s items in %s, %.1f RCU", rows.Count(p.Items), rows.Count(p.Approx), pages, p.RCU)
	}
	if w.listed > 0 {
		s += fmt.Sprintf(", %s listed", rows.Count(int64(w.listed)))
	}
	if left, ok := p.Left(); ok {
		s += fmt.Sprintf(", about %s left", seconds(left))
	}
	return s + " · " + stop + " stops"
}

// seconds says a time of ms milliseconds in whole seconds (under one: "1 s").
func seconds(ms int64) string { return fmt.Sprintf("%d s", max((ms+999)/1000, 1)) }

// sweep starts reading every account at once, the list following as the
// accounts come (G: to its end; n: to the next problem), unless the
// backend cannot, every page is read, or a sweep runs already.
func (m *Model) sweep(seek bool) tea.Cmd {
	b, ok := m.backend.(Sweeper)
	if !ok || m.pager.Paging().Done() || !m.pager.Paging().Shown() || m.pager.Paging().Reloading() {
		return nil // a reload replaces the rows first: G pages after it
	}
	if m.sweeper.running() {
		m.sweeper.seek = m.sweeper.seek || seek
		return nil
	}
	cmd := m.sweeper.start(m.ctx, b, m.consistent)
	before, err := m.src.listedKeys(m.sweeper.seed)
	if err != nil {
		m.sweeper.end()
		m.err = err
		return nil
	}
	m.sweeper.seek, m.sweeper.before = seek, before
	pager.Hold(&m.pager, true) // no page of its own meanwhile
	pager.Stream(&m.pager, true)
	return cmd
}

// stopSweep stops the sweep. The rows listed stay; if it listed none
// (its scan had not ended), pages are read on from where they stood, and
// else the list is what it read (r reads the table again).
func (m *Model) stopSweep(why string) {
	if !m.sweeper.running() {
		return
	}
	listed := m.sweeper.listed
	m.sweeper.end()
	pager.Stream(&m.pager, false)
	if listed > 0 {
		pager.Swept(&m.pager)
		if why != "" {
			why += fmt.Sprintf("; %s accounts listed, r reads them all again", rows.Count(int64(m.src.win.total())))
		}
	}
	m.hold()
	m.pager.SetCursor(m.pager.Cursor()) // G no longer follows the end
	m.note = why
}

// onSweep takes what the sweep tells: its progress, accounts (listed as
// a page's, but for those listed before it began), its end (every
// account read: n looks on), or its failure (the rows listed stay).
func (m Model) onSweep(msg SweepMsg) (Model, tea.Cmd) {
	if msg.ch == nil || msg.ch != m.sweeper.ch {
		return m, nil // a stopped sweep's
	}
	switch {
	case msg.err != nil && errors.Is(msg.err, backend.ErrNoSweep):
		m.sweeper.end()
		pager.Stream(&m.pager, false)
		m.hold()
		return m, m.pager.More() // through the index, page after page
	case msg.err != nil:
		m.stopSweep(fmt.Sprintf("reading every %s failed: %v", m.one(), msg.err))
		return m, nil
	case msg.done:
		seek := m.sweeper.seek
		m.sweeper.end()
		pager.Stream(&m.pager, false)
		pager.Swept(&m.pager)
		cmd := m.settle()
		if seek {
			return m, tea.Batch(cmd, m.seek(+1))
		}
		return m, cmd
	case msg.views != nil:
		views := m.src.unlisted(msg.views, &m.sweeper)
		m.sweeper.listed += len(views)
		pager.Append(&m.pager, views)
		m.src.kept = m.src.kept[:0] // the sweep's own: not noted
		if m.src.unpinListed() {
			m.setHead()
		}
		return m, tea.Batch(m.settle(), m.sweeper.wait())
	default:
		m.sweeper.progress = msg.progress
	}
	return m, m.sweeper.wait()
}

// listedKeys are the hashes of the keys of every account listed, held or
// on disk.
func (d *source) listedKeys(seed maphash.Seed) (map[uint64]struct{}, error) {
	keys := make(map[uint64]struct{}, d.win.total())
	add := func(id string) { keys[maphash.String(seed, id)] = struct{}{} }
	for _, id := range d.main {
		add(id)
	}
	for _, id := range d.win.apart {
		add(id)
	}
	for b := range d.win.counts {
		if b >= d.win.lo && b < d.win.hi || b == len(d.win.counts)-1 && d.win.apart != nil {
			continue
		}
		ids, err := d.win.store.IDs(b)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			add(id)
		}
	}
	return keys, nil
}

// unlisted are the accounts of views not listed before the sweep began,
// each as the item cache holds it if it does: read since the sweep's scan
// saw it (a write of this session, someone else's that the stream told
// of), what the cache holds is newer.
func (d *source) unlisted(views []model.AccountView, w *sweeper) []model.AccountView {
	kept := views[:0]
	for _, a := range views {
		if _, ok := w.before[maphash.String(w.seed, a.ID)]; ok {
			continue
		}
		if d.items.Has(a.ID) {
			a, _ = d.items.Account(a.ID)
		}
		kept = append(kept, a)
	}
	return kept
}

// listedBefore notes the accounts a page listed while the sweep runs (it
// was asked for before the sweep began) as listed before it: it does not
// list them again.
func (w *sweeper) listedBefore(ids []string) {
	if w.before == nil {
		return
	}
	for _, id := range ids {
		w.before[maphash.String(w.seed, id)] = struct{}{}
	}
}
