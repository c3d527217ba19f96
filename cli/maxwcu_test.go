package cli_test

import (
	"strings"
	"testing"

	"github.com/locktable/locktable/cli"
)

// TestRepairMaxWCU: repair takes --max-wcu and paces its transactions
// through it: three missing locks, each repaired by a put and a check
// (one item written), take 2 WCU each from the budget, as stderr says;
// the table is clean after. A negative budget is a usage error, before
// any request.
func TestRepairMaxWCU(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	missingLocks(t, w, 3)
	bad := w.run("repair", "--yes", "--max-wcu", "-1")
	wantError(t, bad, cli.ExitError, "--max-wcu -1", "write capacity units")
	r := w.run("repair", "--yes", "--max-wcu", "1000")
	if r.code != cli.ExitOK || strings.Count(r.stdout, "committed ") != 3 {
		t.Fatalf("repair --max-wcu: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"paced to 1000 WCU/s (--max-wcu): 3 transactions take 6 write capacity units, at least 1 s",
		"paced to 1000 WCU/s (--max-wcu): the transactions took 6 write capacity units"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q; want %q", r.stderr, want)
		}
	}
	if c := w.run("check"); c.code != cli.ExitOK {
		t.Fatalf("check after: exit %d, %s", c.code, c.stdout)
	}
}
