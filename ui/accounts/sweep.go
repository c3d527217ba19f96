package accounts

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/startuptrace"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/pager"
	"github.com/locktable/locktable/ui/rows"
)

// Sweeper reads every account at once, at the speed of a scan
// (dynamo.Sweeper): progress as it reads, then the accounts in browse
// order, in pages; stopped by ctx, it hands on nothing more.
type Sweeper interface {
	AccountsSweep(ctx context.Context, consistent bool, progress func(backend.SweepProgress), page func([]model.AccountView)) error
}

// SweepMsg tells how a sweep goes (G, or n past the rows loaded: every
// account read at once, Backend.AccountsSweep): how far it has read, a
// page of accounts in browse order, or its end. A stopped sweep's are
// dropped.
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
	// seek: n started it, and looks for the next problem once every
	// account is read.
	seek bool
}

// running reports whether a sweep runs.
func (w *sweeper) running() bool { return w.ch != nil }

// start starts a sweep of b, consistent or not, under ctx; its first
// message is the command's.
func (w *sweeper) start(ctx context.Context, b Sweeper, consistent bool) tea.Cmd {
	ctx, stop := context.WithCancel(ctx)
	ch := make(chan SweepMsg, 4)
	w.ch, w.stop, w.progress = ch, stop, backend.SweepProgress{}
	return func() tea.Msg {
		startuptrace.Mark("sweep") // bench/tui times G from here to "swept"
		go sweepInto(ctx, b, consistent, ch)
		return receive(ch)
	}
}

// sweepInto runs the sweep, telling ch how it goes: progress when the
// view is ready for it (a newer one replaces it), every page, then the
// end, unless stopped first.
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
		func(views []model.AccountView) { send(SweepMsg{views: views}) })
	send(SweepMsg{done: true, err: err})
}

// receive waits for ch's next message (nil once it is closed). The end
// comes once Update has taken every page before it.
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
	w.ch, w.stop, w.seek = nil, nil, false
}

// status says how far the sweep has read, and how to stop it.
func (w *sweeper) status(stop string) string {
	p := w.progress
	if p.Pages == 0 {
		return "reading every account… · " + stop + " stops"
	}
	s := fmt.Sprintf("reading every account: %s items in %s pages, %.1f RCU", rows.Count(p.Items), rows.Count(int64(p.Pages)), p.RCU)
	if p.Approx > 0 {
		s = fmt.Sprintf("reading every account: %s of ~%s items in %s pages, %.1f RCU", rows.Count(p.Items), rows.Count(p.Approx), rows.Count(int64(p.Pages)), p.RCU)
	}
	if left, ok := p.Left(); ok {
		s += fmt.Sprintf(", about %s left", seconds(left))
	}
	return s + " · " + stop + " stops"
}

// seconds says a time of ms milliseconds in whole seconds (under one: "1 s").
func seconds(ms int64) string { return fmt.Sprintf("%d s", max((ms+999)/1000, 1)) }

// sweep starts reading every account at once, the list following as
// pages are read (G: to its end; n: to the next problem), unless every
// page is read or a sweep runs already.
func (m *Model) sweep(seek bool) tea.Cmd {
	if m.sweeps == nil || m.pager.Paging().Done() || !m.pager.Paging().Shown() {
		return nil
	}
	if m.sweeper.running() {
		m.sweeper.seek = m.sweeper.seek || seek
		return nil
	}
	cmd := m.sweeper.start(m.ctx, m.sweeps, m.consistent)
	m.sweeper.seek = seek
	pager.Sweep(&m.pager, true)
	return cmd
}

// stopSweep stops the sweep: the rows listed stay, and pages are read
// from where they stood.
func (m *Model) stopSweep(why string) {
	if !m.sweeper.running() {
		return
	}
	m.sweeper.end()
	pager.Sweep(&m.pager, false)
	m.pager.SetCursor(m.pager.Cursor()) // G no longer follows the end
	m.note = why
}

// onSweep takes what the sweep tells: its progress, a page (listed as a
// page read), its end (every page read: n looks on), or its failure (a
// failed page's: the rows listed stay, and Retry reads on from where the
// pages stood).
func (m Model) onSweep(msg SweepMsg) (Model, tea.Cmd) {
	if msg.ch == nil || msg.ch != m.sweeper.ch {
		return m, nil // a stopped sweep's
	}
	switch {
	case msg.err != nil:
		m.sweeper.end()
		pager.SweepFailed(&m.pager, fmt.Errorf("reading every %s: %w", m.one(), msg.err))
		return m, nil
	case msg.done:
		seek := m.sweeper.seek
		m.sweeper.end()
		pager.Swept(&m.pager)
		if seek {
			return m, m.seek(+1)
		}
		return m, nil
	case msg.views != nil:
		pager.Append(&m.pager, m.src.known(msg.views))
		if m.src.unpinListed() {
			m.setHead()
		}
		m.restoreSelection()
	default:
		m.sweeper.progress = msg.progress
	}
	return m, m.sweeper.wait()
}

// known replaces, in views a sweep read, the accounts the item cache
// holds by what it holds: read before the sweep's scan reached them, or
// since (a write of this session, someone else's that the stream told
// of), and by consistent reads, they are not replaced by what the scan
// saw.
func (d *source) known(views []model.AccountView) []model.AccountView {
	for i, a := range views {
		if d.items.Has(a.ID) {
			views[i], _ = d.items.Account(a.ID)
		}
	}
	return views
}

// restoreSelection selects again the row selected before a reload, once
// its account is listed again.
func (m *Model) restoreSelection() {
	if m.restore == nil {
		return
	}
	if i, ok := m.src.rowOf(*m.restore); ok {
		m.restore = nil
		m.pager.SetCursor(i)
	}
}
