package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTUIWholeValuesAndHiddenColumns (issue 39, 3 and 4): on the demo at
// 80x24 an account's email and username are cut on its line, and once it
// is selected they show whole on the line under it; :hide username takes
// the usernames off the screen, the columns still aligned, and :hide!
// saves it in the config file.
func TestTUIWholeValuesAndHiddenColumns(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tm := startTUISized(t, 80, 24, "--demo", "--config", cfg)
	tm.start()
	tm.waitFor("the check's counts", func(s string) bool { return strings.Contains(s, "miss ") && strings.Contains(s, "└ UNIQ#") })

	cut := regexp.MustCompile(`^▸ ACCT#\S+\s+email=(\S+)…\s+username=`)
	whole := regexp.MustCompile(`^    email=(\S+)\s+username=(\S+)\s*$`)
	var screen string
	for range 40 { // down to an account whose email its line cuts
		screen = tm.capture()
		if line := selectedLine(screen); cut.MatchString(line) {
			break
		}
		tm.keys("Down")
		tm.waitFor("the selection to move", func(s string) bool { return s != screen })
	}
	lines := strings.Split(screen, "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "▸ ") })
	m := cut.FindStringSubmatch(selectedLine(screen))
	if m == nil {
		t.Fatalf("no account row with its email cut on the demo at 80x24:\n%s", screen)
	}
	w := whole.FindStringSubmatch(lines[at+1])
	if w == nil || !strings.HasPrefix(w[1], m[1]) || strings.Contains(w[0], "…") || !strings.HasSuffix(w[1], "@example.org") {
		t.Fatalf("the selected account's email %q… is not whole on the line under it:\n%s", m[1], screen)
	}
	if wrong := layoutWrong(strings.TrimSuffix(screen, "\n"), strings.TrimSuffix(screen, "\n"), 80, 24); wrong != "" {
		t.Errorf("the layout with the selected row's values whole: %s\n%s", wrong, screen)
	}

	tm.keys(":")
	tm.waitText("the command line", "command (tab lists them)")
	tm.text("hide! username")
	tm.keys("Enter")
	hidden := tm.waitFor("the column hidden and saved", func(s string) bool {
		return strings.Contains(strings.Join(strings.Fields(s), " "), "saved in the config file")
	})
	if strings.Contains(hidden, "username=") || !strings.Contains(hidden, "email=") {
		t.Errorf("username is not hidden alone:\n%s", hidden)
	}
	if wrong := layoutWrong(strings.TrimSuffix(hidden, "\n"), strings.TrimSuffix(hidden, "\n"), 80, 24); wrong != "" {
		t.Errorf("the layout with username hidden: %s\n%s", wrong, hidden)
	}
	if b, err := os.ReadFile(cfg); err != nil || !strings.Contains(string(b), "hide-columns: {accounts: [username]}") {
		t.Errorf("the config file does not hide username: %v\n%s", err, b)
	}
	if got := tm.quit(); got != "EXIT=0" {
		t.Errorf("exit: %s", got)
	}
}
