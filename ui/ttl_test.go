package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
)

// ttlNow is the time the TTL tests' backend reads and checks at:
// 2025-12-01 14:40 UTC. Every TTL is relative to it, so the goldens hold.
var ttlNow = time.Unix(1_764_600_000, 0)

// fakeTTL is the fake holding dynamotest.TTLItems and extra, whose TTL attribute is
// ttl and whose clock stands at ttlNow.
func fakeTTL(extra ...model.Item) *uitest.Backend {
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.Table, sc.TTLAttr, sc.TTLGiven = tablePlaceholder, "ttl", true
	b := uitest.New(sc)
	b.Clock = clock.Fixed(ttlNow)
	b.Put(sc.Table, append(dynamotest.TTLItems(ttlNow), extra...)...)
	return b
}

// wantRow asserts that a line of the screen has every one of words, in
// this order (by fields: the spaces between columns do not count).
func (d *driver) wantRow(words ...string) {
	d.t.Helper()
	for _, l := range d.lines() {
		if strings.Contains(fields(strings.TrimPrefix(l, "▸ ")), strings.Join(words, " ")) {
			return
		}
	}
	d.t.Errorf("no row says %q:\n%s", strings.Join(words, " "), d.screen())
}

// TestTTLCasesAt80x24: each TTL case shows its mark and its time at 80x24
// (issue 20): in the accounts view an expired lock held by its account,
// a reserved lock its account outlives (expiring) and one its account
// expires before (reserved), beside the clean locks; in the locks view
// the live reservation (reserved, not orphan) and the expired lock nobody
// holds; in the problems view both expired locks and the expiring one,
// with what they mean as far as the row has room; the header counts them
// and the reservation.
func TestTTLCasesAt80x24(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeTTL())}, 80, 24)
	d.ready()
	d.golden("ttl_accounts_80x24")
	if h := d.lines()[1]; !strings.Contains(h, "expired 2 · expiring 1") || !strings.Contains(h, "reserved 1") || !strings.Contains(h, "2 Locks  3 Problems") {
		t.Errorf("the header does not count the expired, expiring and reserved locks: %q", h)
	}
	d.wantRow("ACCT#ada", "email=ada@x", "username=ada", "problem")
	d.wantRow("└ UNIQ#EMAIL#ada@x", "owner ACCT#ada", "expired 3 h ago", "expired")
	d.wantRow("└ UNIQ#EMAIL#bob@x", "owner ACCT#bob", "reserved 1 h more", "expiring")
	d.wantRow("└ UNIQ#EMAIL#trial@x", "owner ACCT#trial", "reserved 1 h more", "reserved")
	d.wantRow("└ UNIQ#EMAIL#clean@x", "owner ACCT#clean", "ok")
	d.wantRow("└ UNIQ#HANDLE#carol", "owner ACCT#carol", "ok") // a TTL DynamoDB ignores is none

	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	d.settle()
	d.golden("ttl_locks_80x24")
	d.wantRow("UNIQ#EMAIL#pending@x", "email", "no owner", "reserved 12 min more", "reserved")
	d.wantRow("UNIQ#EMAIL#gone@x", "email", "owner ACCT#gone", "expired 3 h ago", "expired")
	d.wantRow("UNIQ#EMAIL#ada@x", "email", "owner ACCT#ada", "expired 3 h ago", "expired")
	d.wantRow("UNIQ#EMAIL#bob@x", "email", "owner ACCT#bob", "reserved 1 h more", "expiring")
	d.wantRow("UNIQ#EMAIL#clean@x", "email", "owner ACCT#clean", "ok")

	d.press("3")
	d.golden("ttl_problems_80x24")
	d.wantRow("expired_lock (2)")
	d.wantRow("UNIQ#EMAIL#ada@x", "email", "held by ACCT#ada", "expired 3 h ago", "expired")
	d.wantRow("UNIQ#EMAIL#gone@x", "email", "owner ACCT#gone", "expired 3 h ago", "expired")
	d.wantRow("expiring_lock (1)")
	d.wantRow("UNIQ#EMAIL#bob@x", "email", "held by ACCT#bob", "reserved 1 h more", "expiring")
	if s := fields(d.screen()); !strings.Contains(s, `warning: `+tablePlaceholder+` {"PK":"UNIQ#HANDLE#carol","SK":"LOCK"}: ttl is {"S":"tomorrow"}, not a number`) {
		t.Errorf("the problems view does not warn of the TTL that is a string:\n%s", d.screen())
	}
}

// TestTTLSaysWhatItMeans: where the row has room, the problems view says
// what an expired or expiring lock means in the report's words; the
// detail of an account's lock says it whatever the width.
func TestTTLSaysWhatItMeans(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeTTL())}, 200, 30)
	d.ready()
	for row, why := range map[string]string{
		"└ UNIQ#EMAIL#ada@x":   "why: expired_lock: expired 3 h ago; DynamoDB deletes it eventually, until then it blocks email ada@x",
		"└ UNIQ#EMAIL#bob@x":   "why: expiring_lock: reserved 1 h more; when it goes, email bob@x is unprotected: ACCT#bob does not expire with it",
		"└ UNIQ#EMAIL#trial@x": "ok: ACCT#trial holds email = trial@x and this lock protects it, reserved 1 h more; ACCT#trial expires no later",
	} {
		d.press("g")
		d.selectRow(row)
		d.press("enter")
		waitScreen(d, "the lock's detail", "lock UNIQ#EMAIL#")
		if s := fields(d.screen()); !strings.Contains(s, why) {
			t.Errorf("the detail of %s does not say %q:\n%s", row, why, d.screen())
		}
		d.press("esc")
	}
	d.press("3")
	d.wantRow("UNIQ#EMAIL#gone@x", "email", "owner ACCT#gone", "expired 3 h ago; DynamoDB deletes it eventually, until then it blocks email gone@x", "expired")
	d.wantRow("UNIQ#EMAIL#bob@x", "email", "owner ACCT#bob", "held by ACCT#bob", "reserved 1 h more; when it goes, email bob@x is unprotected", "expiring")
}

// TestFixExpiredLocks: f on an expired or expiring lock reaches its
// repair wherever the lock is shown, and the help line offers it: the
// expired lock nobody holds, from the locks view and the problems view,
// is deleted while still expired, and the locks view reads it again (it
// kept the lock as it was, judged ok by the next check, though the write
// names no account to read it with); the one its account holds, from the
// account's lock row, is kept for good, and the row says ok. An expired
// lock naming an account that does not hold the value is a person's to
// decide, and the dialog says why.
func TestFixExpiredLocks(t *testing.T) {
	t.Parallel()
	foreign := lock("UNIQ#EMAIL#zed@x", "ACCT#other")
	foreign["ttl"] = model.N(strconv.FormatInt(ttlNow.Add(-time.Hour).Unix(), 10))
	store := fakeTTL(acct("ACCT#zed", "zed@x", "zed"), foreign, lock("UNIQ#HANDLE#zed", "ACCT#zed"))
	d := newDriver(t, Options{Roles: roles(store)}, 120, 40)
	d.ready()
	offered := func(where string) {
		t.Helper()
		if !strings.Contains(d.footer(), "f fix") {
			t.Errorf("the help line does not offer f on %s: %q", where, d.footer())
		}
	}

	d.press("3")
	d.selectRow("UNIQ#EMAIL#zed@x")
	offered("an expired lock naming another account")
	d.press("f")
	waitScreen(d, "why not", "the lock names ACCT#other, who does not hold the value: a person decides who keeps it")
	d.press("esc")

	d.press("2")
	d.until("the locks", func(m *Model) bool { return m.views.locks.Paging().Done() && !m.views.locks.Loading() })
	d.settle()
	d.selectRow("UNIQ#EMAIL#gone@x")
	offered("an expired lock in the locks view")
	d.press("f")
	waitScreen(d, "the repair's preview", "delete expired lock UNIQ#EMAIL#gone@x")
	d.press("esc")

	d.press("3", "g")
	d.selectRow("UNIQ#EMAIL#gone@x")
	d.press("f")
	waitScreen(d, "the repair's preview", "delete expired lock UNIQ#EMAIL#gone@x")
	if s := fields(d.screen()); !strings.Contains(s, "only if its ttl is not after "+strconv.FormatInt(ttlNow.Unix(), 10)) {
		t.Errorf("the preview does not say the lock must still be expired:\n%s", d.screen())
	}
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
	if _, found := store.Item(tablePlaceholder, lockKey("UNIQ#EMAIL#gone@x")); found {
		t.Error("the expired lock is still in the table")
	}
	d.press("enter", "2")
	d.wantRow("UNIQ#EMAIL#gone@x", "email", "owner ACCT#gone", "gone") // read again: it names no account

	d.press("1", "g")
	d.selectRow("└ UNIQ#EMAIL#ada@x")
	offered("an account's expired lock")
	d.press("f")
	waitScreen(d, "the repair's preview", "keep lock UNIQ#EMAIL#ada@x for good, for ACCT#ada")
	d.press("enter")
	waitScreen(d, "the result", "COMMITTED")
	d.press("enter")
	d.until("the row reloaded", func(m *Model) bool {
		return strings.Contains(fields(d.screen()), "└ UNIQ#EMAIL#ada@x owner ACCT#ada ok")
	})
	if it, _ := store.Item(tablePlaceholder, lockKey("UNIQ#EMAIL#ada@x")); it["owner"].S != "ACCT#ada" || len(it) != 3 {
		t.Errorf("ada's lock is not PK, SK and its owner alone (its TTL removed): %v", it)
	}
}

// slowTTL is the emulator answering DescribeTimeToLive late, as a remote
// endpoint may: a first page read meanwhile is judged without the TTL.
type slowTTL struct{ dynamo.API }

func (s slowTTL) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	time.Sleep(200 * time.Millisecond)
	return s.API.DescribeTimeToLive(ctx, in, opts...)
}

// TestOpenJudgesTheFirstPageByTheTTL: the first page, read by Open beside
// the tables' description, was judged by the schema as it stood before
// DescribeTimeToLive named the TTL attribute (and read while Verify set
// it): an expired lock showed ok until a reload. The TTL is asked first.
func TestOpenJudgesTheFirstPageByTheTTL(t *testing.T) {
	t.Parallel()
	clocktest.Each(t, openJudgesTheFirstPageByTheTTL)
}

func openJudgesTheFirstPageByTheTTL(t *testing.T, now time.Time) {
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.TTLAttr, sc.TTLGiven = "ttl", true
	creator, client := dynamotest.Store(t, sc) // TTL enabled on the table
	dynamotest.Put(t, client, creator.Schema.Table, dynamotest.TTLItems(now)...)
	bare := creator.Schema
	bare.TTLAttr, bare.TTLGiven = "", false
	store := dynamo.NewStore(slowTTL{client}, creator.Endpoint, bare, clock.Fixed(now))
	opened, err := Open(context.Background(), store, store.Pages, OpenOptions{Constraints: len(bare.Constraints)})
	if err != nil {
		t.Fatal(err)
	}
	judged, err := opened.FirstLocks() // the first page's accounts, their locks read
	if err != nil {
		t.Fatal(err)
	}
	if store.Schema.TTLAttr != "ttl" {
		t.Fatalf("the TTL attribute is %q, want ttl (DescribeTimeToLive)", store.Schema.TTLAttr)
	}
	for _, a := range judged {
		if a.ID == "ACCT#ada" {
			if l := a.Locks[0]; l.Status != model.LockExpired || l.ExpiresAt == 0 {
				t.Errorf("ada's email lock in the first page: %s, expires at %d; want expired", l.Status, l.ExpiresAt)
			}
			return
		}
	}
	t.Fatalf("no ACCT#ada in the first page: %+v", judged)
}

// TestJumpToAnExpiredLockNobodyHolds: enter on an expired lock nobody
// holds, in the problems view, pinned nothing and said its rows were gone
// (it names an owner who does not exist); it pins the lock, marked with
// its time, whose detail says why and on which f offers the repair.
func TestJumpToAnExpiredLockNobodyHolds(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeTTL())}, 80, 24)
	d.ready()
	d.press("3")
	d.selectRow("UNIQ#EMAIL#gone@x")
	d.press("enter")
	d.until("the pinned group", func(m *Model) bool { return m.views.shown == viewAccounts && m.views.accounts.Pinned() })
	d.settle()
	if strings.Contains(d.screen(), "these rows are gone") {
		t.Fatalf("the expired lock's rows are said gone:\n%s", d.screen())
	}
	if !strings.HasPrefix(d.selected(), "▸ UNIQ#EMAIL#gone@x") {
		t.Fatalf("selected %q, want the expired lock", d.selected())
	}
	d.wantRow("UNIQ#EMAIL#gone@x", "owner ACCT#gone", "expired 3 h ago", "expired")
	d.press("enter")
	waitScreen(d, "the lock's detail", `"ttl": {"N":`)
	if s := fields(d.screen()); !strings.Contains(s, "why: expired_lock: expired 3 h ago; DynamoDB deletes it eventually, until then it blocks email gone@x") {
		t.Errorf("the detail does not say why:\n%s", d.screen())
	}
	d.press("esc", "e")
	if s := d.lines()[len(d.lines())-2]; !strings.Contains(s, "this is an expired lock nobody holds (f fixes it)") {
		t.Errorf("e on the expired lock: the status says %q", s)
	}
	d.press("f")
	waitScreen(d, "the repair's preview", "delete expired lock UNIQ#EMAIL#gone@x")
}

// TestMoreRowSaysTheGroupsNoun (issue 27, 9): the heading "locks nobody
// holds (8)" stood over "… 3 more orphan locks": the more row names the
// group as its heading does.
func TestMoreRowSaysTheGroupsNoun(t *testing.T) {
	t.Parallel()
	var extra []model.Item
	for i := range 5 {
		extra = append(extra, lock(fmt.Sprintf("UNIQ#EMAIL#o%d@x", i), fmt.Sprintf("ACCT#gone%d", i)))
	}
	d := newDriver(t, Options{Roles: roles(fakeTTL(extra...))}, 120, 40)
	d.ready()
	d.until("the orphans on top", func(m *Model) bool { return strings.Contains(d.screen(), "locks nobody holds (") })
	if s := d.screen(); !strings.Contains(s, "… 1 more lock nobody holds: enter or 3") || strings.Contains(s, "more orphan lock") {
		t.Fatalf("the more row does not name the group as its heading does:\n%s", s)
	}
}
