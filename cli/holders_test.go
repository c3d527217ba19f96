package cli_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// missingLockTable is Ada, healthy, and Bob, who holds username bob while
// its lock is missing: a repairable missing_lock.
func missingLockTable(t *testing.T) writeEnv {
	t.Helper()
	w := newWriteEnv(t)
	dynamotest.Put(t, w.client, w.table,
		dynamotest.Account("ACCT#a1f9c3", "ada@lovelace.io", "ada"),
		dynamotest.Lock("UNIQ#EMAIL#ada@lovelace.io", "ACCT#a1f9c3"), dynamotest.Lock("UNIQ#HANDLE#ada", "ACCT#a1f9c3"),
		dynamotest.Account("ACCT#b0b001", "bob@x.io", "bob"),
		dynamotest.Lock("UNIQ#EMAIL#bob@x.io", "ACCT#b0b001"))
	return w
}

// TestWritesRefuseAValueHeldWithoutItsLock: renaming Ada to username bob
// committed (Ada took the lock) and turned Bob's repairable missing_lock
// into a duplicate_value no repair may fix. The holder lookup refuses it
// as taken, names Bob and says his lock is missing; the same for a signup.
func TestWritesRefuseAValueHeldWithoutItsLock(t *testing.T) {
	t.Parallel()
	w := missingLockTable(t)
	before := w.snapshot()
	for _, args := range [][]string{
		{"rename", "ACCT#a1f9c3", "--set", "username=bob"},
		{"signup", "--set", "email=new@x.io", "--set", "username=bob", "--id", "ACCT#c0c001"},
	} {
		r := w.run(append(args, "--yes", "--json")...)
		if r.code != cli.ExitCancelled {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q; want 3", args[0], r.code, r.stdout, r.stderr)
		}
		if !strings.HasPrefix(r.stderr, "holder lookup for ") || !strings.Contains(r.stderr, "username=bob: consistent scan of the accounts, 5 items read: ") ||
			!strings.Contains(r.stderr, "username=bob is held by ACCT#b0b001 without its lock: refused") {
			t.Errorf("%s: stderr %q; want how the lookup looked and what it read", args[0], r.stderr)
		}
		outs := outcomes(t, r.stdout)
		if len(outs) != 1 || outs[0].Outcome != "cancelled" || len(outs[0].Reasons) != 1 {
			t.Fatalf("%s: %s", args[0], r.stdout)
		}
		rs := outs[0].Reasons[0]
		if rs.Code != "HeldWithoutLock" || rs.Slot < 1 || !strings.Contains(rs.Message, "username bob is taken by ACCT#b0b001, whose lock is missing") {
			t.Errorf("%s: reason %+v", args[0], rs)
		}
	}
	if got := w.snapshot(); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Fatalf("a refused write changed the table:\n%s", strings.Join(got, "\n"))
	}
	// Each refusal is in the audit log, with the holder.
	lines := w.auditLines()
	if len(lines) != 2 {
		t.Fatalf("audit %q; want two refusals", lines)
	}
	for _, l := range lines {
		var e dynamo.AuditEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Event != dynamo.EventRefused || e.Outcome != model.Cancelled ||
			!strings.Contains(e.Reason, "ACCT#b0b001") {
			t.Errorf("audit line %q", l)
		}
	}
}

// TestSkipHolderLookupSaysSo: --skip-holder-lookup sends without looking,
// and says what that risks.
func TestSkipHolderLookupSaysSo(t *testing.T) {
	t.Parallel()
	w := missingLockTable(t)
	r := w.run("rename", "ACCT#a1f9c3", "--set", "username=bob", "--yes", "--skip-holder-lookup")
	if r.code != cli.ExitOK || !strings.Contains(r.stderr, "holder lookup skipped (--skip-holder-lookup)") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestRenameToAFreeValueStillWorks: the lookup clears a value nobody
// holds, and the rename commits.
func TestRenameToAFreeValueStillWorks(t *testing.T) {
	t.Parallel()
	w := missingLockTable(t)
	r := w.run("rename", "ACCT#a1f9c3", "--set", "username=lovelace", "--yes")
	if r.code != cli.ExitOK || !strings.Contains(r.stderr, "username=lovelace: consistent scan of the accounts, 5 items read: no other account holds them") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestWriteWithAnUnwritableAuditLogSendsNothing: --audit-log /dev/full
// committed silently. The intent cannot be recorded, so nothing is sent.
func TestWriteWithAnUnwritableAuditLogSendsNothing(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	w := newWriteEnv(t)
	w.audit = "/dev/full"
	before := w.snapshot()
	r := w.run("signup", "--set", "email=a@x.io", "--id", "ACCT#a", "--yes")
	if r.code != cli.ExitError || r.stdout != "" || !strings.HasSuffix(r.stderr, "locktable: the audit log cannot record the write, so nothing was sent: audit log: write /dev/full: no space left on device\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := w.snapshot(); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Fatalf("written without an audit record:\n%s", strings.Join(got, "\n"))
	}
}

// TestWriteOnTheDemoSaysWhatTheBackendLacks: minidyn ignores tokens; a
// write says so before it is sent, and still commits.
func TestWriteOnTheDemoSaysWhatTheBackendLacks(t *testing.T) {
	t.Parallel()
	audit := t.TempDir() + "/audit.log"
	r := run(t, "signup", "--demo", "--set", "email=new@x.io", "--set", "username=newbie", "--id", "ACCT#n1", "--yes", "--audit-log", audit)
	if r.code != cli.ExitOK || !strings.Contains(r.stderr, "has no idempotency tokens (ClientRequestToken is ignored)") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestDryRunLooksForHolders: --dry-run shows what would be sent, so a
// write the holder lookup would refuse is not printed as if it would go:
// stderr says why it would be refused, stdout stays empty, exit 3 (as the
// write itself), nothing is written and nothing recorded.
func TestDryRunLooksForHolders(t *testing.T) {
	t.Parallel()
	w := missingLockTable(t)
	before := w.snapshot()
	r := w.run("signup", "--set", "email=new@x.io", "--set", "username=bob", "--id", "ACCT#c0c001", "--dry-run")
	if r.code != cli.ExitCancelled || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 3 and nothing to send", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "would be refused") || !strings.Contains(r.stderr, "username bob is taken by ACCT#b0b001, whose lock is missing") {
		t.Errorf("stderr %q; want why it would be refused", r.stderr)
	}
	// A value nobody holds: the transaction, and exit 0.
	r = w.run("signup", "--set", "email=new@x.io", "--set", "username=nina", "--id", "ACCT#c0c001", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, `"TransactItems"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the transaction", r.code, r.stdout, r.stderr)
	}
	if got := w.snapshot(); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Fatalf("a dry run changed the table:\n%s", strings.Join(got, "\n"))
	}
	if lines := w.auditLines(); len(lines) != 0 {
		t.Errorf("a dry run was recorded: %q", lines)
	}
}

// TestHolderLookupSaysALockedValueIsLocked: ACCT#e0e001 holds eve@x.io
// with its lock. The lookup said "no other account holds them" (it left
// out values whose lock exists), and then the guard cancelled the signup
// as taken by ACCT#e0e001. It says what it found, value by value: the
// locked one by whom, the free one free; the write is still sent, and the
// guard refuses it.
func TestHolderLookupSaysALockedValueIsLocked(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	dynamotest.Put(t, w.client, w.table,
		dynamotest.Account("ACCT#e0e001", "eve@x.io", "eve"),
		dynamotest.Lock("UNIQ#EMAIL#eve@x.io", "ACCT#e0e001"), dynamotest.Lock("UNIQ#HANDLE#eve", "ACCT#e0e001"))
	r := w.run("signup", "--set", "email=eve@x.io", "--set", "username=eve2", "--id", "ACCT#e0e002", "--yes", "--json")
	if r.code != cli.ExitCancelled {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 3", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "no other account holds them") {
		t.Errorf("stderr %q: the lookup calls a locked value free", r.stderr)
	}
	if want := "email=eve@x.io is locked by ACCT#e0e001 (its lock exists): the guard will refuse it"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q; want %q", r.stderr, want)
	}
	if want := "username=eve2: no other account holds it"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q; want %q", r.stderr, want)
	}
	outs := outcomes(t, r.stdout)
	if len(outs) != 1 || outs[0].Outcome != "cancelled" || len(outs[0].Reasons) != 1 ||
		!strings.Contains(outs[0].Reasons[0].Message, "email eve@x.io is taken by ACCT#e0e001") {
		t.Fatalf("stdout %s; want the signup cancelled by the guard, naming ACCT#e0e001", r.stdout)
	}

	// A lock nobody holds, naming an owner that is gone: the lookup finds
	// no holder, and still says the lock will refuse the value.
	dynamotest.Put(t, w.client, w.table, dynamotest.Lock("UNIQ#EMAIL#gone@x.io", "ACCT#90e001"))
	r = w.run("signup", "--set", "email=gone@x.io", "--id", "ACCT#e0e003", "--yes")
	if r.code != cli.ExitCancelled || !strings.Contains(r.stderr, "email=gone@x.io is locked by ACCT#90e001 (its lock exists): the guard will refuse it") {
		t.Errorf("exit %d, stderr %q; want the orphan lock named", r.code, r.stderr)
	}
}
