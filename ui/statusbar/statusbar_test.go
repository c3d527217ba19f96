package statusbar

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/styles"
)

// TestRunningCheckShowsRate: a running check shows its progress and how
// fast it reads, once it has run long enough to say.
func TestRunningCheckShowsRate(t *testing.T) {
	st := styles.New(true)
	for _, tc := range []struct {
		elapsed time.Duration
		want    string
	}{
		{0, "checking: 2,400 / ~10,000 items scanned"},
		{2 * time.Second, "checking: 2,400 / ~10,000 items scanned (1,200 items/s)"},
	} {
		h := Header{Table: "t", Where: "w", Views: []string{"A"}, Check: Check{Running: true,
			Progress: model.CheckProgress{Phase: model.PhaseScan, Scanned: 2400, Approx: 10000}, Elapsed: tc.elapsed}}
		line := strings.Split(ansi.Strip(h.Render(&st, 200)), "\n")[1]
		if !strings.HasSuffix(strings.TrimSpace(line), tc.want) {
			t.Errorf("after %v the header says %q, want it to end %q", tc.elapsed, line, tc.want)
		}
	}
}

// TestHeaderSaysRCU: after a check the header says the read capacity it
// consumed.
func TestHeaderSaysRCU(t *testing.T) {
	st := styles.New(true)
	h := Header{Table: "t", Where: "w", Views: []string{"A"}, Check: Check{Report: &model.Report{ConsumedRCU: 2193.4}}}
	lines := strings.Split(ansi.Strip(h.Render(&st, 300)), "\n")
	if want := "check: 2,193.4 RCU"; !strings.Contains(lines[1], want) {
		t.Errorf("header line 2 %q does not say %q", lines[1], want)
	}
}

// TestEveryShortFormIsAnAbbreviation: each short form the counts take
// where the line is narrow is listed by Abbreviations (help's legend is
// made of it), with a long form to explain it.
func TestEveryShortFormIsAnAbbreviation(t *testing.T) {
	st := styles.New(true)
	listed := map[string]bool{}
	for _, a := range Abbreviations() {
		if a.Long == "" {
			t.Errorf("%q stands for nothing", a.Short)
		}
		listed[a.Short] = true
	}
	counts := map[model.ProblemKind]int{}
	for _, k := range model.ProblemKinds {
		counts[k] = 1
	}
	h := Header{Table: "t", Where: "w", Views: []string{"Accounts"}, Check: Check{Report: &model.Report{Now: 1, Reservations: 2}, Counts: counts, Others: 3}}
	line := strings.Split(ansi.Strip(h.Render(&st, 100)), "\n")[1]
	_, said, _ := strings.Cut(line, "Accounts")
	words := strings.FieldsFunc(said, func(r rune) bool { return r == '·' || r == ' ' || r >= '0' && r <= '9' })
	if len(words) < len(model.ProblemKinds)+2 {
		t.Fatalf("at 100 columns the counts are not all short: %q", line)
	}
	for _, w := range words {
		if !listed[w] {
			t.Errorf("the header says %q, which Abbreviations does not list: %q", w, line)
		}
	}
}

// TestTabsKeepNamesAt80 (issue 38, 10): with the demo's counts (seven
// kinds, reservations, other items) the tabs dropped their names at 80
// columns ("1 Accounts  2  3  4"): they keep them, in four letters where
// the full ones do not fit, with every kind counted; narrower, the active
// tab keeps its name and nothing is cut. Sorted, the header says the
// sort only where the tabs keep their names (RenderSaying: else the status
// line says it; the sort shown took the names before).
func TestTabsKeepNamesAt80(t *testing.T) {
	st := styles.New(true)
	counts := map[model.ProblemKind]int{model.MissingLock: 6, model.OrphanLock: 5, model.ForeignLock: 3,
		model.ExpiredLock: 6, model.ExpiringLock: 3, model.DuplicateValue: 3, model.InvalidValue: 1}
	views, short := []string{"Accounts", "Locks", "Problems", "Items"}, []string{"Acct", "Lock", "Prob", "Item"}
	named := func(line string, i int) bool {
		return strings.Contains(line, fmt.Sprintf("%d %s", i+1, views[i])) || strings.Contains(line, fmt.Sprintf("%d %s", i+1, short[i]))
	}
	for _, width := range []int{120, 80, 70, 60} {
		for i := range 2 * len(views) {
			active := i % len(views)
			h := Header{Table: "accounts", Where: "the embedded demo", Views: views, Short: short, Active: active,
				Check: Check{Report: &model.Report{Now: 1, Reservations: 3, ConsumedRCU: 53}, Counts: counts, Others: 3}}
			if i >= len(views) { // sorted: the sort gives way to the tabs' names, to the status line
				h.Sort = Sort{Column: "email", Arrow: "↑", Partial: true}
			}
			header, said := h.RenderSaying(&st, width)
			line := strings.Split(ansi.Strip(header), "\n")[1]
			if shown := strings.Contains(line, "email↑") || strings.Contains(line, "email ↑"); h.Sort.Column != "" && said != shown {
				t.Errorf("at %d the header says it says the sort: %v, but its line is %q", width, said, line)
			}
			if ansi.StringWidth(line) > width || strings.Contains(line, "…") {
				t.Errorf("at %d the tabs line is cut: %q", width, line)
			}
			if !named(line, active) {
				t.Errorf("at %d the active tab %s has no name: %q", width, views[active], line)
			}
			if width < 80 {
				continue
			}
			for i, v := range views {
				if !named(line, i) {
					t.Errorf("at %d the tab %s has no name: %q", width, v, line)
				}
			}
			for k, n := range counts {
				if !strings.Contains(line, fmt.Sprintf("%s %d", shortKind[k], n)) && !strings.Contains(line, fmt.Sprintf("%s %d", tinyKind[k], n)) {
					t.Errorf("at %d the tabs line does not count %s: %q", width, k, line)
				}
			}
		}
	}
}

// TestRCUSaidOneWay (issue 38, 12): the header said "check: 53 RCU" after
// one check and "check: 8.0 RCU" after another; read capacity is said one
// way, with one decimal (the check counts it in tenths), as check's
// report says it.
func TestRCUSaidOneWay(t *testing.T) {
	st := styles.New(true)
	for rcu, want := range map[float64]string{8: "check: 8.0 RCU", 53: "check: 53.0 RCU", 2193.4: "check: 2,193.4 RCU", 0.5: "check: 0.5 RCU"} {
		h := Header{Table: "t", Where: "w", Views: []string{"A"}, Check: Check{Report: &model.Report{ConsumedRCU: rcu}}}
		if line := strings.Split(ansi.Strip(h.Render(&st, 200)), "\n")[1]; !strings.Contains(line, want) {
			t.Errorf("after a check of %v RCU the header says %q, want %q", rcu, line, want)
		}
	}
}
