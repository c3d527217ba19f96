package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTUISort (issue 39, 3): on the demo at 80x24, s sorts the locks
// loaded by key and S reverses it; the header keeps the tabs' names (the
// demo's counts fill it) and the status line says the sort; in the
// accounts S sorts by key descending, each account still followed by its
// locks, and the status line says the sort orders what is loaded.
func TestTUISort(t *testing.T) {
	tm := startTUISized(t, 80, 24, "--demo")
	tm.start()
	tm.waitFor("the check's counts", func(s string) bool { return strings.Contains(s, "miss ") && strings.Contains(s, "└ UNIQ#") })
	lockKey := regexp.MustCompile(`^[ ▸] (UNIQ#\S+)`)
	keys := func(screen string) []string {
		var out []string
		for _, l := range strings.Split(screen, "\n") {
			if m := lockKey.FindStringSubmatch(l); m != nil {
				out = append(out, m[1])
			}
		}
		return out
	}

	tm.keys("2")
	tm.waitFor("the locks", func(s string) bool { return len(keys(s)) > 5 })
	tm.keys("s")
	screen := tm.waitFor("the locks sorted by key", func(s string) bool { return strings.Contains(s, "sorted by key ↑") })
	// At 80 columns the demo's counts leave the header no room for the
	// sort but by the tabs' names: they stay, and the status line says
	// the sort once the key's own words give way.
	if header := strings.Split(screen, "\n")[1]; !strings.Contains(header, "1 Acct 2 Lock") || !strings.Contains(header, "4 Item") {
		t.Errorf("sorted, the header lost the tabs' names: %q", header)
	}
	tm.keys("j")
	tm.waitFor("the status line saying the sort", func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return strings.Contains(lines[len(lines)-2], "key↑")
	})
	if got := keys(screen); !slices.IsSorted(got) || len(got) < 5 {
		t.Errorf("s: the locks are not sorted by key:\n%s", screen)
	}
	tm.keys("S")
	screen = tm.waitFor("the locks sorted by key, descending", func(s string) bool { return strings.Contains(s, "sorted by key ↓") })
	if got := keys(screen); !slices.IsSortedFunc(got, func(a, b string) int { return strings.Compare(b, a) }) || len(got) < 5 {
		t.Errorf("S: the locks are not sorted by key, descending:\n%s", screen)
	}

	tm.keys("1")
	tm.waitFor("the accounts", func(s string) bool { return strings.Contains(s, "└ UNIQ#") })
	tm.keys("S")
	screen = tm.waitFor("the accounts sorted by key, descending", func(s string) bool { return strings.Contains(s, "sorted by key ↓") })
	// The demo's accounts take more pages than the screen reads.
	tm.keys("j")
	tm.waitFor("the status line saying the sort orders what is loaded", func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return strings.Contains(lines[len(lines)-2], "key↓ (loaded)")
	})
	var accounts []string
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		f := strings.Fields(strings.TrimPrefix(l, "▸"))
		if len(f) == 0 || !strings.HasPrefix(f[0], "ACCT#") {
			continue
		}
		accounts = append(accounts, f[0])
		// The next line is its first lock's, unless the list ends here
		// (the status line is not indented) or the row is selected (the
		// lines under it show its values whole).
		if next := lines[i+1]; strings.HasPrefix(next, "  ") && !strings.Contains(next, "└") && !strings.HasPrefix(l, "▸") {
			t.Errorf("account %s is not followed by its locks:\n%s", f[0], screen)
		}
	}
	if len(accounts) < 2 || !slices.IsSortedFunc(accounts, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Errorf("S: the accounts are not sorted by key, descending: %q\n%s", accounts, screen)
	}
	tm.quit()
}
