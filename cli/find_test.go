package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/dynamotest"
)

// findTable: Ada, healthy; Dave and Eve share dup@x.io (Dave holds the
// lock); an orphan lock whose owner is gone.
func findTable(t *testing.T) writeEnv {
	t.Helper()
	w := newWriteEnv(t)
	dynamotest.Put(t, w.client, w.table,
		dynamotest.Account("ACCT#a1f9c3", "ada@lovelace.io", "ada"),
		dynamotest.Lock("UNIQ#EMAIL#ada@lovelace.io", "ACCT#a1f9c3"), dynamotest.Lock("UNIQ#HANDLE#ada", "ACCT#a1f9c3"),
		dynamotest.Account("ACCT#d4", "dup@x.io", "dave"), dynamotest.Lock("UNIQ#EMAIL#dup@x.io", "ACCT#d4"), dynamotest.Lock("UNIQ#HANDLE#dave", "ACCT#d4"),
		dynamotest.Account("ACCT#e5", "dup@x.io", "eve"), dynamotest.Lock("UNIQ#HANDLE#eve", "ACCT#e5"),
		dynamotest.Lock("UNIQ#EMAIL#old@x.io", "ACCT#gone"))
	return w
}

// TestFindWhatAPersonPastes: a bare id, a pasted lock key, another case
// under --normalize none, and a duplicate (every holder, not only the
// lock's owner) were found only partly or not at all by the UI's search.
func TestFindWhatAPersonPastes(t *testing.T) {
	t.Parallel()
	w := findTable(t)
	cases := []struct {
		q        string
		accounts []string
		note     string
	}{
		{"a1f9c3", []string{"ACCT#a1f9c3"}, ""},
		{"ACCT#a1f9c3", []string{"ACCT#a1f9c3"}, ""},
		{"UNIQ#EMAIL#ada@lovelace.io", []string{"ACCT#a1f9c3"}, ""},
		{"ada", []string{"ACCT#a1f9c3"}, ""},
		{"Ada@Lovelace.io", []string{"ACCT#a1f9c3"}, "case matters"},
		{"dup@x.io", []string{"ACCT#d4", "ACCT#e5"}, ""},
	}
	for _, c := range cases {
		r := w.run("find", c.q, "--json")
		if r.code != cli.ExitOK {
			t.Errorf("find %s: exit %d, stderr %q", c.q, r.code, r.stderr)
			continue
		}
		var f struct {
			Accounts []struct{ ID string }
			Note     string
		}
		if err := json.Unmarshal([]byte(r.stdout), &f); err != nil {
			t.Fatalf("find %s: %v: %s", c.q, err, r.stdout)
		}
		var ids []string
		for _, a := range f.Accounts {
			ids = append(ids, a.ID)
		}
		if strings.Join(ids, " ") != strings.Join(c.accounts, " ") || !strings.Contains(f.Note, c.note) {
			t.Errorf("find %s: accounts %v note %q; want %v and a note with %q", c.q, ids, f.Note, c.accounts, c.note)
		}
		if !strings.HasPrefix(r.stderr, "tried ") {
			t.Errorf("find %s: stderr %q; want what was tried", c.q, r.stderr)
		}
	}
}

// TestFindAnOrphanAndNothing: a value whose lock nobody holds is shown as
// the orphan it is; nothing found is exit 1 with a note.
func TestFindAnOrphanAndNothing(t *testing.T) {
	t.Parallel()
	w := findTable(t)
	r := w.run("find", "old@x.io")
	if r.code != cli.ExitOK || !strings.HasPrefix(r.stdout, "orphan_lock      email old@x.io  lock PK=UNIQ#EMAIL#old@x.io,SK=LOCK  owner ACCT#gone  (nobody holds it)") {
		t.Errorf("orphan: exit %d, stdout %q", r.code, r.stdout)
	}
	r = w.run("find", "nobody@x.io")
	if r.code != cli.ExitProblems || !strings.Contains(r.stdout, "nothing matches nobody@x.io") {
		t.Errorf("nothing: exit %d, stdout %q", r.code, r.stdout)
	}
}

// TestCheckWithAWrongAccountPrefixSaysWhatItSaw: --account-prefix USER#
// on an ACCT# table reported every lock as an orphan without a hint.
func TestCheckWithAWrongAccountPrefixSaysWhatItSaw(t *testing.T) {
	t.Parallel()
	w := findTable(t)
	r := w.run("check", "--account-prefix", "USER#")
	if r.code != cli.ExitProblems || !strings.Contains(r.stderr, "hint: no item of "+w.table+" matches the accounts' key (USER# with SK PROFILE); its other keys start with ACCT# (3): check --account-prefix, --account-sk and --layout") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if r = w.run("check"); strings.Contains(r.stderr, "hint") {
		t.Errorf("a hint with the right prefix: %q", r.stderr)
	}
}

// TestCompleteTablesFromALocalEmulator: --table completes with the tables
// a loopback endpoint lists.
func TestCompleteTablesFromALocalEmulator(t *testing.T) {
	t.Parallel()
	w := findTable(t)
	r := run(t, "__complete", "--endpoint-url", w.ep, "--table", "")
	if r.code != 0 || !strings.Contains(r.stdout, w.table+"\n") {
		t.Fatalf("exit %d, completions %q; want %s among them", r.code, r.stdout, w.table)
	}
}
