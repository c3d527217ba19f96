package dynamo_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestFindReadsEachThingOnce: a value looked up in every constraint
// without an index costs one scan of the accounts, not one per attribute,
// and the lower-case fallback reads the lock it found once, while what
// Find answers is the same.
func TestFindReadsEachThingOnce(t *testing.T) {
	base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	dynamotest.Put(t, client, base.Schema.Table,
		acct("ACCT#a", "ada@x.io", "ada"), lock("UNIQ#EMAIL#ada@x.io", "ACCT#a"), lock("UNIQ#HANDLE#ada", "ACCT#a"),
		acct("ACCT#b", "bob@x.io", "bob"), lock("UNIQ#EMAIL#bob@x.io", "ACCT#b"), lock("UNIQ#HANDLE#bob", "ACCT#b"))
	api := &countingAPI{api: client}
	store := dynamo.NewStore(api, base.Endpoint, base.Schema, clock.System())
	for _, tc := range []struct {
		q        string
		accounts []string
		note     string
		how      []string
		scans    int
		lock     string // a lock whose reads are counted: by Find itself,
		reads    int    // and once more when its owner's state is judged
	}{
		{q: "nobody",
			note:  "nothing matches nobody (tried the account key and every unique attribute); values are compared exactly, so case matters",
			how:   []string{"scan for email=nobody or username=nobody: 6 items read, 0 found"},
			scans: 1, lock: "UNIQ#HANDLE#nobody", reads: 1},
		{q: "bob", accounts: []string{"ACCT#b"},
			how: []string{"lock UNIQ#HANDLE#bob: owner ACCT#b",
				"scan for email=bob or username=bob: 6 items read, 1 found"},
			scans: 1, lock: "UNIQ#HANDLE#bob", reads: 2},
		// ADA: no lock, nobody holds it; the username lock of ada exists.
		{q: "ADA", accounts: []string{"ACCT#a"},
			note: "no username is ADA; found ada: username compares values exactly (--normalize none), so case matters",
			how: []string{"scan for email=ADA or username=ADA: 6 items read, 0 found",
				"lock UNIQ#HANDLE#ada: owner ACCT#a", "scan for username=ada: 6 items read, 1 found"},
			scans: 2, lock: "UNIQ#HANDLE#ada", reads: 2},
	} {
		scans, reads := api.snapshot()["Scan"], api.readsOf(tc.lock)
		f, err := store.Lookup.Find(context.Background(), tc.q, backend.FindOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, a := range f.Accounts {
			ids = append(ids, a.ID)
		}
		if !reflect.DeepEqual(ids, tc.accounts) || len(f.Orphans) != 0 || f.Note != tc.note {
			t.Errorf("find %s: accounts %v, orphans %v, note %q; want %v, none, %q", tc.q, ids, f.Orphans, f.Note, tc.accounts, tc.note)
		}
		if !reflect.DeepEqual(f.How, tc.how) {
			t.Errorf("find %s: how %q, want %q", tc.q, f.How, tc.how)
		}
		scans, reads = api.snapshot()["Scan"]-scans, api.readsOf(tc.lock)-reads
		if scans != tc.scans || reads != tc.reads {
			t.Errorf("find %s: %d scans and %d reads of %s, want %d and %d", tc.q, scans, reads, tc.lock, tc.scans, tc.reads)
		}
	}
}

// TestFindByIndexAndScan: with a GSI of email, a value is looked up there
// for email and by the one scan for username, and holders found either
// way are listed, and read, once.
func TestFindByIndexAndScan(t *testing.T) {
	client, ep := dynamotest.Client(t)
	sc := dynamotest.Rename(t, model.DefaultSchema(model.LayoutSingle))
	sc.Constraints[0].Index = "by-email"
	dynamotest.TableWithIndex(t, client, sc.Table, "by-email", "email", "", types.ProjectionTypeKeysOnly)
	// x holds "same" as both its email and its username, with no locks.
	dynamotest.Put(t, client, sc.Table, acct("ACCT#x", "same", "same"), acct("ACCT#y", "y@x.io", "y"))
	api := &countingAPI{api: client}
	store := dynamo.NewStore(api, ep, sc, clock.System())
	f, err := store.Lookup.Find(context.Background(), "same", backend.FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Accounts) != 1 || f.Accounts[0].ID != "ACCT#x" || f.Note != "" {
		t.Errorf("accounts %+v, note %q; want ACCT#x alone", f.Accounts, f.Note)
	}
	how := []string{"index by-email for email=same: 1 found", "scan for username=same: 2 items read, 1 found"}
	if !reflect.DeepEqual(f.How, how) {
		t.Errorf("how %q, want %q", f.How, how)
	}
	if n := api.snapshot(); n["Scan"] != 1 || n["Query"] != 1 || api.readsOf("ACCT#x") != 1 {
		t.Errorf("%d scans, %d queries and %d reads of ACCT#x, want 1 each", n["Scan"], n["Query"], api.readsOf("ACCT#x"))
	}
}
