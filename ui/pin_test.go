package ui

import (
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/search"
)

// pinned returns the rows of the pinned group: from its title to the
// "accounts" heading.
func (d *driver) pinned(title string) []string {
	d.t.Helper()
	first, ls := d.rowIndex(title), d.lines()
	if first < 0 {
		d.t.Fatalf("no pin %q on screen:\n%s", title, d.screen())
	}
	var out []string
	for _, l := range ls[first+1:] {
		f := fields(strings.TrimPrefix(l, "▸ "))
		if f == "accounts" || strings.HasPrefix(f, "orphan locks (") {
			break
		}
		out = append(out, f)
	}
	return out
}

// problem returns the first problem of kind the check reported.
func (d *driver) problem(kind model.ProblemKind) model.Problem {
	d.t.Helper()
	for _, p := range d.m.check.Report().Problems {
		if p.Kind == kind {
			return p
		}
	}
	d.t.Fatalf("the check reported no %s", kind)
	return model.Problem{}
}

// TestJumpToADuplicateListsEachHolderOnce: the rows of a duplicate_value
// problem are each of its holders once, the lock's owner too.
func TestJumpToADuplicateListsEachHolderOnce(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Store: fakePlanted()}, 120, 40)
	d.ready()
	d.send(search.JumpMsg{Problem: d.problem(model.DuplicateValue)})
	d.until("the jump", func(m *Model) bool { return !m.search.Busy() })
	d.settle()
	var ids []string
	for _, r := range d.pinned("duplicate_value email=dup@x.io") {
		if strings.HasPrefix(r, "ACCT#") {
			ids = append(ids, strings.Fields(r)[0])
		}
	}
	if strings.Join(ids, " ") != "ACCT#d4 ACCT#e5" {
		t.Errorf("the pin lists %v, want ACCT#d4 ACCT#e5 once each:\n%s", ids, d.screen())
	}
}
