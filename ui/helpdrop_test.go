package ui

import (
	"strings"
	"testing"
)

// TestHelpLineSaysWhatItDrops (issue 27, 4): at 80x24 with a problem row
// selected the help line lists f, and has no room for c copy key and C
// copy item JSON: it says that more keys exist, and ? lists them.
func TestHelpLineSaysWhatItDrops(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Store: fakePlanted()}, 80, 24)
	d.ready()
	d.selectRow("ACCT#c3")
	d.press("down") // its foreign lock
	line := d.lines()[len(d.lines())-1]
	if !strings.Contains(line, "f fix") {
		t.Fatalf("the help line offers no fix on a problem row: %q", line)
	}
	for _, want := range []string{"c copy key", "C copy item JSON"} {
		if !strings.Contains(line, want) && !strings.Contains(line, "… ? help") {
			t.Errorf("the help line drops %q with no sign that more exists: %q", want, line)
		}
	}
	d.press("?")
	for _, want := range []string{"c         copy key", "C         copy item JSON"} {
		if !strings.Contains(d.screen(), want) {
			t.Errorf("help does not list %q:\n%s", want, d.screen())
		}
	}
}
