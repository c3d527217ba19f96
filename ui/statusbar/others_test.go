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
	if line := strings.Split(ansi.Strip(h.Render(&st, 200)), "\n")[1]; !strings.HasSuffix(line, "invalid 0 · other items 1,234") {
		t.Errorf("wide: %q", line)
	}
	if line := strings.Split(ansi.Strip(h.Render(&st, 70)), "\n")[1]; !strings.HasSuffix(line, "·other 1,234") {
		t.Errorf("narrow: %q", line)
	}
	h.Check.Others = 0
	if line := strings.Split(ansi.Strip(h.Render(&st, 200)), "\n")[1]; strings.Contains(line, "other") {
		t.Errorf("no other item: %q", line)
	}
}
