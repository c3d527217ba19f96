package statusbar

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/styles"
)

// TestHeaderCountsOthers: the items that are neither accounts nor locks
// are counted after the problems, in fewer letters when narrow, and not
// at all when there are none.
func TestHeaderCountsOthers(t *testing.T) {
	st := styles.New(true)
	h := Header{Table: "t", Views: []string{"Accounts", "Locks", "Problems", "Items"},
		Check: Check{Report: &model.Report{}, Others: 1234}}
	if line := strings.Split(ansi.Strip(h.Render(&st, 200)), "\n")[1]; !strings.HasSuffix(line, "no problems · other items 1,234") {
		t.Errorf("wide: %q", line)
	}
	h.Check.Report.Problems = make([]model.Problem, 14)
	h.Check.Counts = map[model.ProblemKind]int{model.MissingLock: 7, model.OrphanLock: 7}
	if line := strings.Split(ansi.Strip(h.Render(&st, 70)), "\n")[1]; !strings.HasSuffix(line, "·other 1,234") {
		t.Errorf("narrow: %q", line)
	}
	h.Check.Others = 0
	if line := strings.Split(ansi.Strip(h.Render(&st, 200)), "\n")[1]; strings.Contains(line, "other") {
		t.Errorf("no other item: %q", line)
	}
}

// TestTTLCountsFitTheHeader: a check that judged TTLs has seven kinds
// and the reservations to count. At 80 columns every kind is counted
// whole beside the tabs' keys (the active one named); narrower still the
// counts become one total rather than being cut.
func TestTTLCountsFitTheHeader(t *testing.T) {
	st := styles.New(true)
	r := &model.Report{Now: 1, Reservations: 3}
	counts := map[model.ProblemKind]int{}
	for _, k := range model.ProblemKinds {
		for range 6 {
			r.Problems = append(r.Problems, model.Problem{Kind: k})
		}
		counts[k] = 6
	}
	h := Header{Table: "accounts", Where: "the embedded demo", Views: []string{"Accounts", "Locks", "Problems", "Items"},
		Check: Check{Report: r, Counts: counts}}
	line := strings.Split(ansi.Strip(h.Render(&st, 80)), "\n")[1]
	if want := "1 Accounts  2  3  4  miss 6·orph 6·forgn 6·expd 6·expg 6·dup 6·inval 6"; !strings.HasPrefix(line, want) || strings.Contains(line, "…") {
		t.Errorf("at 80: %q, want %q", line, want)
	}
	if narrow := strings.Split(ansi.Strip(h.Render(&st, 50)), "\n")[1]; narrow != "1 Accounts  2  3  4  42 problems" {
		t.Errorf("at 50: %q", narrow)
	}
	if wide := strings.Split(ansi.Strip(h.Render(&st, 200)), "\n")[1]; !strings.Contains(wide, "expired 6 · expiring 6") || !strings.Contains(wide, "reserved 3") {
		t.Errorf("at 200 the kinds are not counted one by one: %q", wide)
	}
}

// TestHeaderCountsOnlyWhatIsThere (issue 27, 15): the header counted
// "inval 0" and the other zero kinds while it hid a zero of the other
// items and of the TTL kinds. Every count it shows is of something there;
// a check that found nothing says so.
func TestHeaderCountsOnlyWhatIsThere(t *testing.T) {
	st := styles.New(true)
	r := &model.Report{Now: 1}
	r.Problems = []model.Problem{{Kind: model.OrphanLock}, {Kind: model.OrphanLock}}
	h := Header{Table: "t", Views: []string{"Accounts", "Locks", "Problems"},
		Check: Check{Report: r, Counts: map[model.ProblemKind]int{model.OrphanLock: 2}}}
	for _, width := range []int{80, 200} {
		line := strings.Split(ansi.Strip(h.Render(&st, width)), "\n")[1]
		if strings.Contains(line, " 0") || !strings.Contains(line, "orph") {
			t.Errorf("at %d: %q, want only the orphans counted", width, line)
		}
	}
	h.Check = Check{Report: &model.Report{Now: 1}, Counts: map[model.ProblemKind]int{}}
	if line := strings.Split(ansi.Strip(h.Render(&st, 120)), "\n")[1]; !strings.HasSuffix(line, "no problems") || strings.Contains(line, " 0") {
		t.Errorf("a clean check: %q", line)
	}
}
