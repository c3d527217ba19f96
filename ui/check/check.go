// Package check runs the background check for the terminal UI and keeps
// how it stands: its progress while it runs, its report once it is done.
package check

import (
	"context"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/events"
	"github.com/locktable/locktable/ui/statusbar"
)

// Checker runs a check.
type Checker interface {
	Check(ctx context.Context, progress func(model.CheckProgress)) (model.Report, error)
}

// runID numbers runs, so that an older run's answers are dropped.
type runID int

// ProgressMsg reports a running check.
type ProgressMsg struct {
	run     runID
	p       model.CheckProgress
	elapsed time.Duration // since the check started, for its rate
}

// DoneMsg ends a check.
type DoneMsg struct {
	run    runID
	report model.Report
	err    error
}

// ReportMsg hands a finished check's report to the views, with what is
// built from it once, here: its duplicate values, for every view that
// marks them, and its schema hint ("" for none).
type ReportMsg struct {
	Report     *model.Report
	Duplicates model.OthersHold
	Hint       string
	// Checked: a check just finished it, as opposed to the report amended
	// (a follow's judgements, a fix's, a lapse): only a check's problems
	// are news to the follow, which judged the others itself, and more
	// freshly (the amended report keeps a problem's first holders).
	Checked bool
}

// OrphansMsg hands the problems a running check has confirmed so far to
// the accounts view, which shows the orphan locks among them.
type OrphansMsg struct{ Problems []model.Problem }

// Model is the background check.
type Model struct {
	ctx     context.Context
	checker Checker
	pump    events.Pump
	schema  *model.Schema
	approx  int64
	say     func(model.SchemaField) string // names the settings a hint asks to check
	run     runID
	cancel  context.CancelFunc
	bar     statusbar.Check
	// later are what a follow of the table judged while the check ran
	// (Amend), in order: taken into its report when it is done.
	later []amended
	// lapsing are the locks with a TTL that writes told (a reservation the
	// follow does not count, perhaps), each as the expired_lock it may
	// become: read again once their TTL passes, as the report's
	// reservations are (Lapse). A check does not clear them: it may have
	// read a lock before the write the stream told.
	lapsing []model.Problem
}

// maxLapsing bounds the locks Lapsing keeps, as a report bounds the
// reservations it lists.
const maxLapsing = 1000

// Lapsing notes locks with a TTL that writes told since the check (ps:
// model.Classifier.LockProblem, expired_lock, with its ExpiresAt), to
// read again once their TTL passes: one nobody holds then is an expired
// lock, which nothing else would tell until the next check.
func (m Model) Lapsing(ps []model.Problem) Model {
	if len(ps) == 0 {
		return m
	}
	m.lapsing = slices.Clone(m.lapsing) // a Model is a value: its copies keep theirs
	for _, p := range ps {
		// The newest write tells the lock's TTL: one rewritten nearer
		// lapses then, not at the TTL it was first told with.
		i := slices.IndexFunc(m.lapsing, func(q model.Problem) bool { return q.Identity() == p.Identity() })
		switch {
		case i >= 0:
			m.lapsing[i] = p
		case len(m.lapsing) < maxLapsing:
			m.lapsing = append(m.lapsing, p)
		}
	}
	return m
}

// New returns a check of the tables of schema that has not run. approx is
// the tables' approximate item count, shown until the check reports its
// own. say names the settings of the schema its hint asks to check (nil:
// by their fields' names).
func New(ctx context.Context, checker Checker, pump events.Pump, schema *model.Schema, approx int64, say func(model.SchemaField) string) Model {
	if say == nil {
		say = func(f model.SchemaField) string { return string(f) }
	}
	return Model{ctx: ctx, checker: checker, pump: pump, schema: schema, approx: approx, say: say}
}

// Start runs a new check in the background, stopping the one running (its
// answers are dropped). The last report stays shown until the new one
// comes unless fresh is set.
func (m Model) Start(fresh bool) (Model, tea.Cmd) {
	if m.cancel != nil {
		m.cancel() // a newer check makes the running one moot
	}
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel = cancel
	m.run++
	m.later = nil // the new check reads what they changed
	m.bar.Running, m.bar.Err = true, nil
	m.bar.Progress, m.bar.Elapsed = model.CheckProgress{Approx: m.approx}, 0
	if fresh {
		m.bar.Report, m.bar.Hint, m.bar.Counts, m.bar.Others = nil, "", nil, 0
	}
	checker, pump, run := m.checker, m.pump, m.run
	return m, func() tea.Msg {
		go func() {
			took := clock.Start()
			report, err := checker.Check(ctx, func(p model.CheckProgress) {
				pump.Post(ctx, ProgressMsg{run: run, p: p, elapsed: took.Elapsed()}, p.Confirmed != nil)
			})
			pump.Post(ctx, DoneMsg{run: run, report: report, err: err}, true)
		}()
		return nil
	}
}

// Update follows the running check.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case ProgressMsg:
		if msg.run != m.run {
			return m, nil
		}
		m.bar.Progress, m.bar.Elapsed = msg.p, msg.elapsed
		if msg.p.Confirmed != nil {
			return m, events.Emit(OrphansMsg{Problems: msg.p.Confirmed})
		}
	case DoneMsg:
		if msg.run != m.run {
			return m, nil
		}
		m.bar.Running = false
		if msg.err != nil {
			m.bar.Err = msg.err
			return m, nil
		}
		report := msg.report
		report.Problems = amend(report.Problems, m.later) // what changed while it ran, it may have read before
		m.later = nil                                     // (lapsing stays: the check may have read a lock before its write)
		m.bar.Report, m.bar.Hint, m.bar.Counts = &report, report.SchemaHint(m.schema, m.say), report.Counts()
		m.bar.Others = report.OtherItems()
		return m, events.Emit(ReportMsg{Report: &report, Duplicates: report.Duplicates(), Hint: m.bar.Hint, Checked: true})
	case RejudgedMsg:
		return m.rejudged(msg)
	}
	return m, nil
}

// Started reports whether a check was ever started.
func (m Model) Started() bool { return m.run > 0 }

// Report is the last finished check's report, nil before there is one.
func (m Model) Report() *model.Report { return m.bar.Report }

// Err is why the last check failed, if it did.
func (m Model) Err() error { return m.bar.Err }

// Bar is the check as the header shows it.
func (m Model) Bar() statusbar.Check { return m.bar }
