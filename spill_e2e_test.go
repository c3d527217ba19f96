package main

import (
	"os"
	"strings"
	"testing"
)

// TestE2ECheckSpillIsOneCheck: a check whose --max-memory is too small for
// its census spills it to disk, says so, reports exactly what a check in
// memory reports (JSON and human), and leaves nothing in the temporary
// directory.
func TestE2ECheckSpillIsOneCheck(t *testing.T) {
	t.Parallel()
	common := append(anomalousTable(t, 300), "--segments", "4")
	tmp := t.TempDir()
	env := map[string]string{"TMPDIR": tmp}
	for _, format := range [][]string{{"--json"}, nil} {
		inMemory := locktable(t, env, append(append([]string{"check"}, format...), common...)...)
		spilled := locktable(t, env, append(append([]string{"check", "--max-memory", "16KiB"}, format...), common...)...)
		if inMemory.code != 1 || strings.Contains(inMemory.stderr, "outgrew") {
			t.Fatalf("check: exit %d, stderr %q", inMemory.code, inMemory.stderr)
		}
		if spilled.code != 1 || !strings.Contains(spilled.stderr, "the census outgrew --max-memory 16KiB") {
			t.Fatalf("check --max-memory 16KiB: exit %d, stderr %q", spilled.code, spilled.stderr)
		}
		got, want := spilled.stdout, inMemory.stdout
		if format != nil {
			got, want = withoutRCU(t, got), withoutRCU(t, want)
		} else {
			got, want = withoutRCULine(got), withoutRCULine(want)
		}
		if got != want {
			t.Errorf("check %v: spilled and in memory differ:\n got %s\nwant %s", format, got, want)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the spill left %v in the temporary directory", left)
	}
	r := locktable(t, nil, append([]string{"check", "--max-memory", "lots"}, common...)...)
	if r.code != 2 || !strings.Contains(r.stderr, `"lots" is not a size`) {
		t.Errorf("--max-memory lots: exit %d, stderr %q", r.code, r.stderr)
	}
}

// withoutRCULine drops the capacity from the human report's summary line:
// like consumed_rcu, it differs from run to run.
func withoutRCULine(report string) string {
	first, rest, _ := strings.Cut(report, "\n")
	if i := strings.Index(first, " read capacity units"); i >= 0 {
		first = first[:strings.LastIndex(first[:i], ", ")]
	}
	return first + "\n" + rest
}
