package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/locktable/locktable/dynamo/dynamotest"
)

// withoutRCU drops consumed_rcu from a check report: the capacity differs
// with paging and sharding, nothing else may.
func withoutRCU(t *testing.T, report string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(report), &m); err != nil {
		t.Fatalf("not a report: %v: %s", err, report)
	}
	delete(m, "consumed_rcu")
	b, _ := json.Marshal(m)
	return string(b)
}

// anomalousTable seeds a table of the emulator with accounts and every
// kind of anomaly, deleted after the test, and returns the flags that
// name it.
func anomalousTable(t *testing.T, accounts int) []string {
	t.Helper()
	ep := dynamotest.Endpoint(t)
	client, _ := dynamotest.Client(t)
	table := dynamotest.Name(t, "accounts")
	t.Cleanup(func() { dynamotest.DeleteTables(t, client, table) })
	common := []string{"--endpoint-url", ep, "--table", table}
	seed := append([]string{"seed", "--accounts", fmt.Sprint(accounts), "--anomalies", "--audit-log", filepath.Join(t.TempDir(), "a.log")}, common...)
	if r := locktable(t, nil, seed...); r.code != 0 {
		t.Fatalf("seed: %d %s", r.code, r.stderr)
	}
	return common
}

// TestE2EShardedCheckIsOneCheck: four processes each scan some segments
// of one table and write their part; a fifth merges them, confirms and
// reports exactly what a single check reports.
func TestE2EShardedCheckIsOneCheck(t *testing.T) {
	t.Parallel()
	common := anomalousTable(t, 80)
	one := locktable(t, nil, append([]string{"check", "--json", "--segments", "8"}, common...)...)
	if one.code != 1 {
		t.Fatalf("check: exit %d, %s", one.code, one.stderr)
	}
	dir := t.TempDir()
	ranges := []string{"0-1", "2-2", "3-5", "6-7"}
	parts := make([]string, len(ranges))
	var wg sync.WaitGroup
	for i, r := range ranges {
		parts[i] = filepath.Join(dir, fmt.Sprintf("part%d.part.gz", i))
		wg.Go(func() {
			res := locktable(t, nil, append([]string{"check", "--segments", "8", "--segment-range", r, "--partial", parts[i]}, common...)...)
			if res.code != 0 || !strings.HasPrefix(res.stderr, "wrote segments "+r) {
				t.Errorf("part %s: exit %d, stderr %q", r, res.code, res.stderr)
			}
		})
	}
	wg.Wait()
	merged := locktable(t, nil, append(append([]string{"check", "--json", "--merge"}, parts...), common...)...)
	if merged.code != 1 || withoutRCU(t, merged.stdout) != withoutRCU(t, one.stdout) {
		t.Fatalf("merged: exit %d, stderr %q\n got %s\nwant %s", merged.code, merged.stderr, merged.stdout, one.stdout)
	}
	// Under a budget each census outgrows, the parts are copied from the
	// spilled census and merged into one that spills: the same report.
	tiny := []string{"--max-memory", "16KB"}
	for i, r := range ranges {
		res := locktable(t, nil, append(append([]string{"check", "--segments", "8", "--segment-range", r, "--partial", parts[i]}, tiny...), common...)...)
		if res.code != 0 {
			t.Fatalf("part %s under a budget: exit %d, stderr %q", r, res.code, res.stderr)
		}
	}
	merged = locktable(t, nil, append(append(append([]string{"check", "--json", "--merge"}, parts...), tiny...), common...)...)
	if merged.code != 1 || withoutRCU(t, merged.stdout) != withoutRCU(t, one.stdout) || !strings.Contains(merged.stderr, "outgrew --max-memory") {
		t.Fatalf("merged under a budget: exit %d, stderr %q\n got %s\nwant %s", merged.code, merged.stderr, merged.stdout, one.stdout)
	}
	// A part missing, or one read with other schema flags, is refused.
	r := locktable(t, nil, append(append([]string{"check", "--merge"}, parts[:3]...), common...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "missing [6 7]") {
		t.Errorf("a part missing: exit %d, stderr %q", r.code, r.stderr)
	}
	r = locktable(t, nil, append(append([]string{"check", "--merge", "--owner-attr", "by"}, parts...), common...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "other schema flags") {
		t.Errorf("another schema: exit %d, stderr %q", r.code, r.stderr)
	}
}
