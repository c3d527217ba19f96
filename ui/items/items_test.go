package items

import (
	"slices"
	"testing"

	"github.com/locktable/locktable/model"
)

func view(sc *model.Schema, id, email, owner string) model.AccountView {
	return model.AccountView{ID: id, Item: model.Item{sc.PK: model.S(id), "email": model.S(email)},
		Locks: []model.LockView{{Constraint: 0, Value: email, Owner: owner, Item: model.Item{}, Status: model.LockOK}, {Constraint: 1, Status: model.LockNone}}}
}

// TestAReportJudgesTheRowsAgain: a duplicate the check found shows on the
// account's lock, and a later report that no longer finds it clears it;
// what was read stays as read.
func TestAReportJudgesTheRowsAgain(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	c := New(&sc)
	c.Put(view(&sc, "ACCT#d4", "dup@x.io", "ACCT#d4"))
	if got := c.Status("ACCT#d4", 0); got != model.LockOK {
		t.Fatalf("before a check: %s", got)
	}
	dup := &model.Report{Problems: []model.Problem{model.Classifier{Schema: &sc}.HolderProblem(model.DuplicateValue, 0, "dup@x.io", "ACCT#d4", []string{"ACCT#e5"})}}
	c.SetReport(dup, dup.Duplicates())
	if a, _ := c.Account("ACCT#d4"); a.Locks[0].Status != model.LockDuplicate || c.Status("ACCT#d4", 0) != model.LockDuplicate {
		t.Fatalf("after a check finding the duplicate: %s, %s", a.Locks[0].Status, c.Status("ACCT#d4", 0))
	}
	clean := &model.Report{}
	c.SetReport(clean, clean.Duplicates())
	if a, _ := c.Account("ACCT#d4"); a.Locks[0].Status != model.LockOK || c.Status("ACCT#d4", 0) != model.LockOK {
		t.Fatalf("after a check that no longer finds it: %s, %s", a.Locks[0].Status, c.Status("ACCT#d4", 0))
	}
	if c.Reports(dup.Problems[0]) {
		t.Fatal("the clean report still reports the duplicate")
	}
}

// TestRelatedNamesTheRowsAWriteChanges: the accounts that hold a value of
// the one written, or whose lock names it as owner, or own its lock.
func TestRelatedNamesTheRowsAWriteChanges(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	c := New(&sc)
	c.Put(view(&sc, "ACCT#d4", "dup@x.io", "ACCT#d4"))
	c.Put(view(&sc, "ACCT#e5", "dup@x.io", "ACCT#d4"))
	c.Put(view(&sc, "ACCT#c3", "carol@x.io", "ACCT#z9"))
	c.Put(view(&sc, "ACCT#z9", "zed@x.io", "ACCT#z9"))
	c.Put(view(&sc, "ACCT#a1", "ada@x.io", "ACCT#a1"))
	for _, tc := range []struct {
		written string
		want    []string
	}{
		{"ACCT#d4", []string{"ACCT#e5"}},
		{"ACCT#e5", []string{"ACCT#d4"}},
		{"ACCT#z9", []string{"ACCT#c3"}},
		{"ACCT#c3", []string{"ACCT#z9"}},
		{"ACCT#a1", nil},
	} {
		if got := c.Related([]string{tc.written}); !slices.Equal(got, tc.want) {
			t.Errorf("a write to %s: related %q, want %q", tc.written, got, tc.want)
		}
	}
}

// TestDriftIsAChangeOfWhatWasRead: reading an account again as it was is
// no drift; reading it changed, or gone, is.
func TestDriftIsAChangeOfWhatWasRead(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	c := New(&sc)
	c.Put(view(&sc, "ACCT#a1", "ada@x.io", "ACCT#a1"))
	c.Put(view(&sc, "ACCT#a1", "ada@x.io", "ACCT#a1"))
	if c.TakeDrift() {
		t.Fatal("the same read twice drifted")
	}
	c.Put(view(&sc, "ACCT#a1", "ada2@x.io", "ACCT#a1"))
	if !c.TakeDrift() || c.TakeDrift() {
		t.Fatal("a changed read did not drift once")
	}
	c.Drop("ACCT#a1")
	if !c.TakeDrift() || c.Has("ACCT#a1") {
		t.Fatal("a dropped account did not drift")
	}
}

// TestAnAccountReadUpdatesItsLocks: the locks listed follow what an
// account's read found of them (another owner now, or none), and LocksOf
// names those a written account owns.
func TestAnAccountReadUpdatesItsLocks(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	c := New(&sc)
	table, key := sc.LockKey(0, "ada@x.io")
	k := c.PutLock(model.Lock{Constraint: 0, Value: "ada@x.io", Table: table, Key: key, Item: model.Item{"owner": model.S("ACCT#a1")}, Owner: "ACCT#a1"})
	if refs := c.LocksOf([]string{"ACCT#a1"}); len(refs) != 1 || LockKey(refs[0].Table, refs[0].Key) != k {
		t.Fatalf("LocksOf(ACCT#a1) = %v", refs)
	}
	a := view(&sc, "ACCT#a1", "ada@x.io", "ACCT#z9")
	a.Locks[0].Item = model.Item{"owner": model.S("ACCT#z9")}
	c.Put(a)
	if l := c.Lock(k); l.Owner != "ACCT#z9" {
		t.Fatalf("after the account's read the lock's owner is %q", l.Owner)
	}
	a.Locks[0] = model.LockView{Constraint: 0, Value: "ada@x.io", Status: model.LockMissing}
	c.Put(a)
	if l := c.Lock(k); l.Item != nil {
		t.Fatalf("a lock read missing is still held: %v", l.Item)
	}
	if words, _ := c.LockStatus(new(c.Lock(k))); words != "gone" {
		t.Fatalf("a lock gone is %q", words)
	}
}

// TestLockStatusOfALockTheCheckDidNotList: a lock read after the check
// (not among its problems) is judged by its TTL at the check's time, as
// the check judges one: expired whoever holds its value (before the
// duplicate its value is), reserved while ahead, ok without a TTL.
func TestLockStatusOfALockTheCheckDidNotList(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	const now = 1_764_600_000
	report := &model.Report{Now: now, Problems: []model.Problem{model.Classifier{Schema: &sc}.HolderProblem(model.DuplicateValue, 0, "dup@x.io", "ACCT#d4", []string{"ACCT#e5"})}}
	c := New(&sc)
	c.SetReport(report, report.Duplicates())
	for _, tt := range []struct {
		value     string
		expiresAt int64
		want      model.LockStatus
	}{
		{"a@x.io", 0, model.LockOK},
		{"a@x.io", now + 60, model.LockReserved},
		{"a@x.io", now, model.LockExpired},
		{"a@x.io", 1, model.LockExpired}, // a TTL of 0 or below, as a view keeps it
		{"dup@x.io", 0, model.LockDuplicate},
		{"dup@x.io", now + 60, model.LockDuplicate},
		{"dup@x.io", now - 60, model.LockExpired},
	} {
		l := model.Lock{Constraint: 0, Value: tt.value, Item: model.Item{}, ExpiresAt: tt.expiresAt}
		if words, st := c.LockStatus(&l); st != tt.want || words != string(tt.want) {
			t.Errorf("%s, expires at now%+d: %s (%q), want %s", tt.value, tt.expiresAt-now, st, words, tt.want)
		}
	}
}
