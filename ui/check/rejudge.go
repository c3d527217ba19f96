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

// RejudgedMsg answers Rejudge: the problems the reads no longer show.
type RejudgedMsg struct {
	run  runID
	gone []model.Problem
	err  error
}

// Rejudge judges again the problems of ps after writes that fixed them:
// it re-reads, consistently, only the keys each involves (the lock, its
// owner, the holders: model.Classifier.Involved) and confirms each as the
// check does (model.Confirm); the report drops those no longer found,
// and the rest of it stands (r runs the whole check). It is nil where
// that cannot stand for a check: none has finished, or one is running
// (it may have read those keys before the writes); run Start then.
func (m Model) Rejudge(r Reader, ps []model.Problem) tea.Cmd {
	if m.bar.Report == nil || m.bar.Running || len(ps) == 0 {
		return nil
	}
	ctx, sc, run, now := m.ctx, m.schema, m.run, m.bar.Report.Now
	ps = slices.Clone(ps)
	return func() tea.Msg {
		cl := model.Classifier{Schema: sc}
		fresh := model.NewCensus(sc, now)
		var refs []model.KeyRef
		for _, p := range ps {
			refs = append(refs, cl.Involved(p)...)
		}
		if err := r.ReadConsistent(ctx, refs, fresh.Add); err != nil {
			return RejudgedMsg{run: run, err: err}
		}
		still := model.Confirm(ps, fresh)
		msg := RejudgedMsg{run: run}
		for _, p := range ps {
			if !slices.ContainsFunc(still, func(q model.Problem) bool { return same(p, q) }) {
				msg.gone = append(msg.gone, p)
			}
		}
		return msg
	}
}

// same reports whether p and q are the same problem: kind, constraint,
// value.
func same(p, q model.Problem) bool {
	return p.Kind == q.Kind && p.ConstraintIndex() == q.ConstraintIndex() && p.Value == q.Value
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
	return m.replace(slices.DeleteFunc(slices.Clone(m.bar.Report.Problems), func(p model.Problem) bool {
		return slices.ContainsFunc(msg.gone, func(g model.Problem) bool { return same(p, g) })
	}))
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
			if !slices.ContainsFunc(ps, func(q model.Problem) bool { return model.SameProblem(p, q) }) {
				ps = append(ps, p)
			}
		}
	}
	model.SortProblems(ps)
	return ps
}

// Lapse judges the report's expiring locks at now (epoch seconds): one
// whose TTL has passed is an expired lock now, as the check would find
// it (model.Confirm takes the two for the same lock's problem). The
// report goes to the views only when one lapsed; nothing is read.
func (m Model) Lapse(now int64) (Model, tea.Cmd) {
	if m.bar.Report == nil || m.bar.Running || m.bar.Counts[model.ExpiringLock] == 0 {
		return m, nil
	}
	var ps []model.Problem
	for i, p := range m.bar.Report.Problems {
		if p.Kind == model.ExpiringLock && p.ExpiresAt != 0 && model.KeptLease(p.ExpiresAt).Verdict(now) == model.TTLExpired {
			if ps == nil {
				ps = slices.Clone(m.bar.Report.Problems)
			}
			ps[i].Kind = model.ExpiredLock
		}
	}
	if ps == nil {
		return m, nil
	}
	model.SortProblems(ps)
	return m.replace(ps)
}

// replace makes ps the report's problems, the rest of it standing, and
// hands it to the views.
func (m Model) replace(ps []model.Problem) (Model, tea.Cmd) {
	report := *m.bar.Report
	report.Problems = ps
	m.bar.Report, m.bar.Counts = &report, report.Counts()
	return m, events.Emit(ReportMsg{Report: &report, Duplicates: report.Duplicates(), Hint: m.bar.Hint})
}
