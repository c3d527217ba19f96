package e2e

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestTUIExport (issue 39): on the demo at 80x24 the first screen says
// nothing of what the backend lacks, :export writes the problems shown
// as CSV under a header row and the accounts as JSON Lines, the status
// line says how many rows, and a second :export to the same file is
// refused.
func TestTUIExport(t *testing.T) {
	dir := t.TempDir()
	tm := startTUISized(t, 80, 24, "--demo")
	tm.start()
	first := tm.waitFor("the check's counts", func(s string) bool { return strings.Contains(s, "miss ") && strings.Contains(s, "└ UNIQ#") })
	if strings.Contains(first, "lacks") || strings.Contains(first, "works around") {
		t.Errorf("the demo's first screen speaks of what the backend lacks:\n%s", first)
	}
	exported := regexp.MustCompile(`exported (\d+) rows? to`)
	export := func(file string) int {
		t.Helper()
		tm.keys(":")
		tm.waitText("the command line", "command (tab lists them)")
		tm.text("export " + filepath.Join(dir, file))
		tm.keys("Enter")
		m := exported.FindStringSubmatch(tm.waitFor("the export", exported.MatchString))
		n, _ := strconv.Atoi(m[1])
		return n
	}

	tm.keys("3")
	tm.waitText("the problems", "missing_lock (")
	n := export("problems.csv")
	b, err := os.ReadFile(filepath.Join(dir, "problems.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) != n+1 || n == 0 {
		t.Fatalf("problems.csv is not a header row and %d rows (%v):\n%s", n, err, b)
	}
	if got := strings.Join(rows[0], ","); got != "kind,constraint,value,lock,owner,accounts,expires_at" {
		t.Errorf("problems.csv's header row is %q", got)
	}
	kinds := map[string]bool{}
	for _, r := range rows[1:] {
		kinds[r[0]] = true
	}
	for _, k := range []string{"missing_lock", "orphan_lock", "foreign_lock", "duplicate_value", "invalid_value"} {
		if !kinds[k] {
			t.Errorf("problems.csv has no %s:\n%s", k, b)
		}
	}

	tm.keys("1")
	tm.waitFor("the accounts", func(s string) bool { return strings.Contains(s, "└ UNIQ#") })
	n = export("accounts.json")
	b, err = os.ReadFile(filepath.Join(dir, "accounts.json"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != n {
		t.Errorf("accounts.json has %d lines, the status said %d rows", len(lines), n)
	}
	for _, l := range lines {
		var row map[string]string
		if err := json.Unmarshal([]byte(l), &row); err != nil || row["row"] == "" {
			t.Fatalf("a line of accounts.json is not a row (%v): %q", err, l)
		}
	}

	tm.keys(":")
	tm.text("export " + filepath.Join(dir, "accounts.json"))
	tm.keys("Enter")
	tm.waitText("the refusal", "not exported:")
	if after, _ := os.ReadFile(filepath.Join(dir, "accounts.json")); !bytes.Equal(after, b) {
		t.Error("a second :export wrote over the file")
	}
	if got := tm.quit(); got != "EXIT=0" {
		t.Errorf("after q: %q, want EXIT=0", got)
	}
}
