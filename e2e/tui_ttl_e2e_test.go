package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// TestTUIMarksTTLs drives the binary in an 80x24 terminal against
// dynoxide, on a table whose TTL attribute is enabled (found with
// DescribeTimeToLive: no flag), holding one case of each TTL rule
// (dynamotest.TTLItems): each shows its mark and its time (issue 20). The
// accounts view marks the expired lock its account holds, the reserved
// lock its account outlives (expiring) and the one its account expires
// before (reserved), beside the clean ones; the locks view the live
// reservation (reserved, not orphan) and the expired lock nobody holds;
// the problems view lists the expired and expiring locks; the header
// counts them.
func TestTUIMarksTTLs(t *testing.T) {
	ep := dynamotest.Endpoint(t)
	t.Parallel()
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.TTLAttr, sc.TTLGiven = "ttl", true
	store, client := dynamotest.Store(t, sc)
	table := store.Schema.Table
	dynamotest.Put(t, client, table, dynamotest.TTLItems(time.Now())...)

	tm := startTUISized(t, 80, 24, "--endpoint-url", ep, "--table", table)
	tm.start()
	wantLines := func(what, screen string, patterns ...string) {
		t.Helper()
		for _, p := range patterns {
			if !hasLine(screen, regexp.MustCompile(p)) {
				t.Errorf("%s: no line matches %s:\n%s", what, p, screen)
			}
		}
	}
	// The hour ahead, less the seconds since: 59 min, or 1 h within the
	// first second; the reservation's 12 min 30 s, 11 or 12 min.
	hour := `reserved (59 min|1 h) more`
	screen := tm.waitText("the check's counts", "expd 2·expg 1")
	if !strings.Contains(screen, "resv 1") {
		t.Errorf("the header does not count the reservation:\n%s", screen)
	}
	wantLines("the accounts", screen,
		`^▸ ACCT#ada\s+email=ada@x\s+username=ada\s+problem\s*$`,
		`└ UNIQ#EMAIL#ada@x\s+owner ACCT#ada\s+expired 3 h ago\s+expired\s*$`,
		`└ UNIQ#EMAIL#bob@x\s+owner ACCT#bob\s+`+hour+`\s+expiring\s*$`,
		`└ UNIQ#EMAIL#trial@x\s+owner ACCT#trial\s+`+hour+`\s+reserved\s*$`,
		`└ UNIQ#EMAIL#clean@x\s+owner ACCT#clean\s+ok\s*$`,
	)

	tm.keys("2")
	screen = tm.waitText("the locks", "UNIQ#EMAIL#pending@x")
	wantLines("the locks", screen,
		`^  UNIQ#EMAIL#pending@x\s+email\s+no owner\s+reserved 1[12] min more\s+reserved\s*$`,
		`^  UNIQ#EMAIL#gone@x\s+email\s+owner ACCT#gone\s+expired 3 h ago\s+expired\s*$`,
		`^  UNIQ#EMAIL#bob@x\s+email\s+owner ACCT#bob\s+`+hour+`\s+expiring\s*$`,
		`^  UNIQ#EMAIL#clean@x\s+email\s+owner ACCT#clean\s+ok\s*$`,
	)

	tm.keys("3")
	screen = tm.waitText("the problems", "expiring_lock (1)")
	wantLines("the problems", screen,
		`^  expired_lock \(2\)`,
		`UNIQ#EMAIL#ada@x\s+email\s+held by ACCT#ada\s+expired 3 h ago\s+expired\s*$`,
		`UNIQ#EMAIL#gone@x\s+email\s+owner ACCT#gone\s+expired 3 h ago\s+expired\s*$`,
		`UNIQ#EMAIL#bob@x\s+email\s+held by ACCT#bob\s+`+hour+`\s+expiring\s*$`,
		`^warning: .*UNIQ#HANDLE#carol.*ttl is`,
	)
	if got := tm.quit(); got != "EXIT=0" {
		t.Errorf("after q: %q, want EXIT=0", got)
	}
}
