package e2e

import (
	"net/http"
	"os"
	"strings"
	"sync/atomic"
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

// TestE2ECtrlCDuringASpilledCheck: Ctrl-C while a check scans, after its
// census has spilled, ends it with 130 and removes its partition files.
func TestE2ECtrlCDuringASpilledCheck(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the binary's, through startThrough's environment
	common := anomalousTable(t, 300)
	var scans atomic.Int32
	p := &signalProxy{hook: func(p *signalProxy, target string, w http.ResponseWriter, r *http.Request) bool {
		if target != "Scan" || scans.Add(1) < 20 {
			return false
		}
		if left, _ := os.ReadDir(tmp); len(left) == 0 {
			t.Errorf("nothing spilled after 19 pages of 20 items in 16KiB")
		}
		p.signal(os.Interrupt)
		p.hold(r)
		return true
	}}
	r := startThrough(t, p, "check", "--table", common[3], "--segments", "1", "--page-size", "20", "--max-memory", "16KiB")
	if r.code != 130 || r.stderr != "locktable: interrupted\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 130, interrupted", r.code, r.stdout, r.stderr)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("the interrupted check left %v in the temporary directory", left)
	}
}
