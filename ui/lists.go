package ui

import (
	"fmt"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/rows"
)

// locksData is the locks view: every lock item, with its status once the
// check knows it. It implements browser.Source.
type locksData struct {
	r      *rows.Renderer
	locks  []model.Lock
	report *model.Report
	// status of (constraint, raw value) from the report: orphan or foreign.
	status map[lockID]model.LockStatus
}

type lockID struct {
	ci    int
	value string
}

func (d *locksData) Len() int { return len(d.locks) }

// setReport indexes a check's report by lock.
func (d *locksData) setReport(r *model.Report) {
	d.report = r
	d.status = map[lockID]model.LockStatus{}
	for _, p := range r.Problems {
		switch p.Kind {
		case model.OrphanLock:
			d.status[lockID{p.ConstraintIndex(), p.Value}] = model.LockOrphan
		case model.ForeignLock:
			d.status[lockID{p.ConstraintIndex(), p.Value}] = model.LockForeign
		}
	}
}

// lockStatus is a lock's status in words: "checking" until the check is done.
func (d *locksData) lockStatus(l *model.Lock) (string, model.LockStatus) {
	if d.report == nil {
		return "checking", model.LockNone
	}
	if s, ok := d.status[lockID{l.Constraint, l.Value}]; ok {
		return string(s), s
	}
	return string(model.LockOK), model.LockOK
}

func (d *locksData) Render(i, width int, selected bool) string {
	l := &d.locks[i]
	words, st := d.lockStatus(l)
	return d.r.LockItem(l, words, st, width, selected)
}

func (d *locksData) problematic(i int) bool {
	_, st := d.lockStatus(&d.locks[i])
	return st.Problematic()
}

// problemsData is the problems view: the check's problems grouped by kind
// under a title with their count. It implements browser.Source.
type problemsData struct {
	r        *rows.Renderer
	problems []model.Problem // grouped by kind, report order within a kind
	lines    []problemLine
}

// problemLine is a group title (problem < 0) or a problem.
type problemLine struct {
	title   string
	problem int
}

func (d *problemsData) set(r *model.Report) {
	d.problems, d.lines = nil, nil
	counts := r.Counts()
	for _, k := range model.ProblemKinds {
		if counts[k] == 0 {
			continue
		}
		d.lines = append(d.lines, problemLine{title: fmt.Sprintf("%s (%d)", k, counts[k]), problem: -1})
		for _, p := range r.Problems {
			if p.Kind == k {
				d.lines = append(d.lines, problemLine{problem: len(d.problems)})
				d.problems = append(d.problems, p)
			}
		}
	}
}

func (d *problemsData) Len() int { return len(d.lines) }

func (d *problemsData) Render(i, width int, selected bool) string {
	l := d.lines[i]
	if l.problem < 0 {
		return d.r.Text(l.title, d.r.Styles.Group, width, selected)
	}
	return d.r.Problem(&d.problems[l.problem], width, selected)
}

// at returns the problem on line i, if the line is one.
func (d *problemsData) at(i int) (*model.Problem, bool) {
	if i < 0 || i >= len(d.lines) || d.lines[i].problem < 0 {
		return nil, false
	}
	return &d.problems[d.lines[i].problem], true
}
