package check

import (
	"context"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/events"
)

// Reader reads items by key with strongly consistent reads.
type Reader interface {
	ReadConsistent(ctx context.Context, refs []model.KeyRef, visit func(table string, it model.Item)) error
}

// RejudgedMsg answers Rejudge: the problems the reads no longer show;
// or Lapse: the lapsed reservations they show as expired locks (found).
type RejudgedMsg struct {
	run   runID
	gone  []model.Problem
	found []model.Problem
	still []model.Problem // of Rejudge's problems, those the reads still show
	err   error
	// Since is the caller's mark of what it had seen when the reads began
	// (Rejudge's since): the UI's last live batch handled.
	Since int
}

// Judged is what the reads found of the problems they judged, for a
// follow's tracker to know from then on (live.Model.Rejudged): those no
// longer there, and those there now; false when the reads failed.
func (msg RejudgedMsg) Judged() (gone, there []model.Problem, ok bool) {
	if msg.err != nil {
		return nil, nil, false
	}
	return msg.gone, append(slices.Clone(msg.still), msg.found...), true
}

// Rejudge judges again the problems of ps after writes that fixed them:
// it re-reads, consistently, only the keys each involves (the lock, its
// owner, the holders: model.Classifier.Involved) and confirms each as the
// check does (model.Confirm); the report drops those no longer found,
// and the rest of it stands (r runs the whole check). It is nil where
// that cannot stand for a check: none has finished, or one is running
// (it may have read those keys before the writes); run Start then.
//
// TTLs are judged at now (epoch seconds; 0: the report's time). since is
// the caller's mark of what it has seen as the reads begin, handed back
// in RejudgedMsg.Since.
func (m Model) Rejudge(r Reader, ps []model.Problem, now int64, since int) tea.Cmd {
	if m.bar.Report == nil || m.bar.Running || len(ps) == 0 {
		return nil
	}
	ps = slices.Clone(ps)
	confirm := m.confirm(r, ps, m.at(now))
	return func() tea.Msg {
		still, msg := confirm()
		msg.still, msg.Since = still, since
		for _, p := range ps {
			if !slices.ContainsFunc(still, func(q model.Problem) bool { return model.SameProblem(p, q) }) {
				msg.gone = append(msg.gone, p)
			}
		}
		return msg
	}
}

// Suspect reads the keys of problems that may have appeared (ps: a
// duplicate of a value two accounts the UI holds now hold, say) and takes
// into the report those the reads show, as a follow's would; the follow
// is told what they found (RejudgedMsg.Judged). The stream's judge reads
// a value's lock, its owner and the accounts written, so a holder behind
// a lock that names no owner is one it cannot see; the UI's rows can.
// nil where a check runs (its report will tell) or none has finished.
// TTLs are judged at now (epoch seconds; 0: the report's time).
//
// The report's problems of the same values are judged with them, by the
// same reads: those the reads no longer show leave (an orphan lock the
// follow took for one, whose value someone holds, is a foreign one).
func (m Model) Suspect(r Reader, ps []model.Problem, now int64, since int) tea.Cmd {
	if m.bar.Report == nil || m.bar.Running || len(ps) == 0 {
		return nil
	}
	var known []model.Problem // the report's, of the values of ps
	for _, q := range m.bar.Report.Problems {
		if slices.ContainsFunc(ps, func(p model.Problem) bool { return sameValue(p, q) }) {
			known = append(known, q)
		}
	}
	confirm := m.confirm(r, append(slices.Clone(ps), known...), m.at(now))
	return func() tea.Msg {
		found, msg := confirm()
		msg.found, msg.Since = found, since
		for _, q := range known {
			if !slices.ContainsFunc(found, func(f model.Problem) bool { return model.SameProblem(f, q) }) {
				msg.gone = append(msg.gone, q)
			}
		}
		return msg
	}
}

// at is the time TTLs are judged at: now (epoch seconds), the UI's
// clock, or the report's time where the UI has none (0).
func (m Model) at(now int64) int64 {
	if now == 0 {
		return m.bar.Report.Now
	}
	return now
}

// sameValue reports whether problems p and q are about one value of one
// constraint.
func sameValue(p, q model.Problem) bool {
	return p.ConstraintIndex() == q.ConstraintIndex() && p.Value == q.Value
}

// confirm reads, consistently, only the keys each problem of ps involves
// (the lock, its owner, the holders: model.Classifier.Involved), and
// keeps those the reads still show, judged at now, as the check confirms
// them (model.Confirm); the message says the run, or why the reads failed.
func (m Model) confirm(r Reader, ps []model.Problem, now int64) func() ([]model.Problem, RejudgedMsg) {
	ctx, sc, run := m.ctx, m.schema, m.run
	return func() ([]model.Problem, RejudgedMsg) {
		cl := model.Classifier{Schema: sc}
		fresh := model.NewCensus(sc, now)
		var refs []model.KeyRef
		for _, p := range ps {
			refs = append(refs, cl.Involved(p)...)
		}
		if err := r.ReadConsistent(ctx, refs, fresh.Add); err != nil {
			return nil, RejudgedMsg{run: run, err: err}
		}
		return model.Confirm(ps, fresh), RejudgedMsg{run: run}
	}
}

// rejudged takes the problems a Rejudge no longer found out of the
// report, and hands the report to the views as a check's; a failed read
// leaves the report as it was, and says why.
func (m Model) rejudged(msg RejudgedMsg) (Model, tea.Cmd) {
	if msg.run != m.run || m.bar.Running || m.bar.Report == nil {
		return m, nil // a check started since: its report will do
	}
	if msg.err != nil {
		m.bar.Err = msg.err
		return m, nil
	}
	ps := slices.DeleteFunc(slices.Clone(m.bar.Report.Problems), func(p model.Problem) bool {
		return slices.ContainsFunc(msg.gone, func(g model.Problem) bool { return model.SameProblem(p, g) })
	})
	return m.replace(amend(ps, []amended{{appeared: msg.found}}))
}

// amended is what a follow judged of the table once: the problems that
// appeared, and those resolved.
type amended struct{ appeared, resolved []model.Problem }

// Amend takes into the report what a follow of the table judged since
// (live): the problems that appeared are added, those resolved leave,
// and the report goes to the views as a check's. While a check runs it
// is kept for the check's report, which may have read the keys before;
// before any check it is dropped (the first one reads them).
func (m Model) Amend(appeared, resolved []model.Problem) (Model, tea.Cmd) {
	a := amended{appeared: appeared, resolved: resolved}
	switch {
	case len(appeared)+len(resolved) == 0:
		return m, nil
	case m.bar.Running:
		m.later = append(slices.Clip(m.later), a)
		return m, nil
	case m.bar.Report == nil:
		return m, nil
	}
	return m.replace(amend(slices.Clone(m.bar.Report.Problems), []amended{a}))
}

// amend applies what a follow judged, in order, to problems ps.
func amend(ps []model.Problem, as []amended) []model.Problem {
	if len(as) == 0 {
		return ps
	}
	for _, a := range as {
		ps = slices.DeleteFunc(ps, func(p model.Problem) bool {
			return slices.ContainsFunc(a.resolved, func(r model.Problem) bool { return model.SameProblem(p, r) })
		})
		for _, p := range a.appeared {
			// The follow's is the newest judgement: it replaces the same
			// problem with its details now (a TTL lapsed, holders changed).
			if i := slices.IndexFunc(ps, func(q model.Problem) bool { return model.SameProblem(p, q) }); i >= 0 {
				ps[i] = p
			} else {
				ps = append(ps, p)
			}
		}
	}
	model.SortProblems(ps)
	return ps
}

// Lapse judges the report at now (epoch seconds). An expiring lock whose
// TTL has passed is an expired lock now, as the check would find it
// (model.Confirm takes the two for the same lock's problem): nothing is
// read. A reservation whose TTL has passed leaves the count at once, and
// its keys are read from r (its signup may have completed it): if the
// reads show it expired, it joins the problems. The report goes to the
// views only when something lapsed. since is as Rejudge's: the reads'
// findings go to the follow too (RejudgedMsg.Judged).
func (m Model) Lapse(r Reader, now int64, since int) (Model, tea.Cmd) {
	if m.bar.Report == nil || m.bar.Running {
		return m, nil
	}
	report := *m.bar.Report
	var due []model.Problem // of lapsing, those whose TTL has passed
	m.lapsing = slices.DeleteFunc(slices.Clone(m.lapsing), func(p model.Problem) bool {
		if model.Lapsed(p.ExpiresAt, now) {
			due = append(due, p)
			return true
		}
		return false
	})
	read := m.lapseReserved(&report, r, now, since, due)
	if !lapseExpiring(&report, now) && read == nil {
		return m, nil
	}
	m.bar.Report, m.bar.Counts = &report, report.Counts()
	return m, tea.Batch(events.Emit(ReportMsg{Report: &report, Duplicates: report.Duplicates(), Hint: m.bar.Hint}), read)
}

// lapseReserved takes the reservations whose TTL has passed at now out
// of report, and returns the reads of their keys and of due's, the
// locks written since the check whose TTL has passed (nil: none lapsed).
func (m Model) lapseReserved(report *model.Report, r Reader, now int64, since int, due []model.Problem) tea.Cmd {
	lapsed := func(p model.Problem) bool { return model.Lapsed(p.ExpiresAt, now) }
	if r == nil || !slices.ContainsFunc(report.Reserved, lapsed) && len(due) == 0 {
		return nil
	}
	var gone []model.Problem
	report.Reserved = slices.DeleteFunc(slices.Clone(report.Reserved), func(p model.Problem) bool {
		if lapsed(p) {
			gone = append(gone, p)
		}
		return lapsed(p)
	})
	report.Reservations -= len(gone)
	confirm := m.confirm(r, withHolders(append(gone, due...), report.Problems), now)
	return func() tea.Msg {
		found, msg := confirm()
		msg.found, msg.Since = found, since
		return msg
	}
}

// withHolders gives each lock of ps the holders the report's problems of
// its value name, so that the reads of its keys (Involved) read them: a
// lock that lapsed is an expired lock, and its holders are its problem's
// (read without them, it would say nobody holds it, and the follow's
// tracker, told so, would look no further).
func withHolders(ps, report []model.Problem) []model.Problem {
	out := make([]model.Problem, len(ps))
	for i, p := range ps {
		out[i] = p
		holders := slices.Clone(p.Accounts)
		for _, q := range report {
			if sameValue(p, q) {
				holders = append(holders, q.Accounts...)
			}
		}
		slices.Sort(holders)
		out[i].Accounts = slices.Compact(holders)
	}
	return out
}

// lapseExpiring turns the expiring locks of report whose TTL has passed
// at now into expired ones, and says whether one did.
func lapseExpiring(report *model.Report, now int64) bool {
	var ps []model.Problem
	for i, p := range report.Problems {
		if p.Kind == model.ExpiringLock && model.Lapsed(p.ExpiresAt, now) {
			if ps == nil {
				ps = slices.Clone(report.Problems)
			}
			ps[i].Kind = model.ExpiredLock
		}
	}
	if ps == nil {
		return false
	}
	model.SortProblems(ps)
	report.Problems = ps
	return true
}

// replace makes ps the report's problems, the rest of it standing, and
// hands it to the views.
func (m Model) replace(ps []model.Problem) (Model, tea.Cmd) {
	report := *m.bar.Report
	report.Problems = ps
	m.bar.Report, m.bar.Counts = &report, report.Counts()
	return m, events.Emit(ReportMsg{Report: &report, Duplicates: report.Duplicates(), Hint: m.bar.Hint})
}
