package dynamo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/dynamo/seed"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// signup is the canonical request's shape, read from testdata.
type signup struct {
	TransactItems []struct {
		Put struct {
			TableName           string
			Item                model.Item
			ConditionExpression string
		}
	}
}

func readSignup(t *testing.T) signup {
	t.Helper()
	data, err := os.ReadFile("testdata/signup.json")
	if err != nil {
		t.Fatal(err)
	}
	var s signup
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// sendSignup sends the canonical signup as it is, only retargeted at table.
func sendSignup(t *testing.T, client dynamo.API, table string) {
	t.Helper()
	in := &dynamodb.TransactWriteItemsInput{}
	for _, ti := range readSignup(t).TransactItems {
		in.TransactItems = append(in.TransactItems, types.TransactWriteItem{Put: &types.Put{
			TableName:           aws.String(table),
			Item:                dynamo.ItemToSDK(ti.Put.Item),
			ConditionExpression: aws.String(ti.Put.ConditionExpression),
		}})
	}
	if _, err := client.TransactWriteItems(context.Background(), in); err != nil {
		t.Fatalf("canonical signup: %v", err)
	}
}

func TestTestdataSignupIsTheSharedOne(t *testing.T) {
	shared, err := os.ReadFile("../../shared/signup.json")
	if err != nil {
		t.Skip("../shared is not beside this checkout")
	}
	ours, err := os.ReadFile("testdata/signup.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared, ours) {
		t.Fatal("dynamo/testdata/signup.json differs from ../shared/signup.json: copy it again")
	}
}

func check(t *testing.T, s *dynamo.Store) model.Report {
	t.Helper()
	r, err := s.Checker.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCanonicalSignupHasNoProblems(t *testing.T) {
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	sendSignup(t, client, store.Schema.Table)
	r := check(t, store)
	if len(r.Problems) != 0 || r.Accounts != 1 || r.Locks != 2 || r.ScannedItems != 3 {
		t.Fatalf("report = %+v, want 1 account, 2 locks, no problems", r)
	}
}

// The items of layout-1 test tables.
var (
	acct = dynamotest.Account
	lock = dynamotest.Lock
)

// TestCheckClassifiesEveryKind plants one case of every rule of PATTERN.md
// and compares the whole JSON report.
func TestCheckClassifiesEveryKind(t *testing.T) {
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	store.PageSize = 3 // many short pages
	num := acct("ACCT#g", "", "g")
	num["email"] = model.N("5")
	nullEmail := acct("ACCT#f", "", "")
	nullEmail["email"] = model.Null()
	nullEmail["username"] = model.S("")
	badOwner := lock("UNIQ#HANDLE#h", "")
	badOwner["owner"] = model.N("1")
	dynamotest.Put(t, client, store.Schema.Table,
		acct("ACCT#a", "a@x.io", "a"), lock("UNIQ#EMAIL#a@x.io", "ACCT#a"), lock("UNIQ#HANDLE#a", "ACCT#a"),
		// b: email locked without owner (fine), username lock missing.
		acct("ACCT#b", "b@x.io", "b"), lock("UNIQ#EMAIL#b@x.io", ""),
		// a lock b left behind when it renamed; a lock nobody ever held.
		lock("UNIQ#EMAIL#old@x.io", "ACCT#b"), lock("UNIQ#HANDLE#ghost", ""),
		// c holds c@x.io but the lock names a.
		acct("ACCT#c", "c@x.io", "c"), lock("UNIQ#EMAIL#c@x.io", "ACCT#a"), lock("UNIQ#HANDLE#c", "ACCT#c"),
		// d and e share an email; the lock names d, a holder: only duplicate.
		acct("ACCT#d", "dup@x.io", "d"), acct("ACCT#e", "dup@x.io", "e"), lock("UNIQ#EMAIL#dup@x.io", "ACCT#d"),
		lock("UNIQ#HANDLE#d", "ACCT#d"), lock("UNIQ#HANDLE#e", "ACCT#e"),
		nullEmail, num, lock("UNIQ#HANDLE#g", "ACCT#g"),
		acct("ACCT#h", "", "h"), badOwner,
		model.Item{"PK": model.S("CONFIG"), "SK": model.S("X")},
	)
	r := check(t, store)
	if r.ConsumedRCU <= 0 {
		t.Errorf("consumed_rcu %v: dynoxide reports the capacity of every read", r.ConsumedRCU)
	}
	r.ConsumedRCU = 0 // it depends on paging; the rest must not
	got, _ := json.Marshal(r)
	want := `{"table":"` + store.Schema.Table + `","scanned_items":21,"accounts":8,"locks":12,"reservations":0,"problems":[` +
		`{"kind":"foreign_lock","constraint":"email","value":"c@x.io","lock":{"PK":"UNIQ#EMAIL#c@x.io","SK":"LOCK"},"owner":"ACCT#a","accounts":["ACCT#c"]},` +
		`{"kind":"duplicate_value","constraint":"email","value":"dup@x.io","lock":{"PK":"UNIQ#EMAIL#dup@x.io","SK":"LOCK"},"owner":"ACCT#d","accounts":["ACCT#d","ACCT#e"]},` +
		`{"kind":"orphan_lock","constraint":"email","value":"old@x.io","lock":{"PK":"UNIQ#EMAIL#old@x.io","SK":"LOCK"},"owner":"ACCT#b","accounts":[]},` +
		`{"kind":"invalid_value","constraint":"email","value":"{\"N\":\"5\"}","accounts":["ACCT#g"]},` +
		`{"kind":"missing_lock","constraint":"username","value":"b","accounts":["ACCT#b"]},` +
		`{"kind":"orphan_lock","constraint":"username","value":"ghost","lock":{"PK":"UNIQ#HANDLE#ghost","SK":"LOCK"},"accounts":[]},` +
		`{"kind":"invalid_value","constraint":"username","value":"{\"N\":\"1\"}","lock":{"PK":"UNIQ#HANDLE#h","SK":"LOCK"},"accounts":[]}` +
		`]}`
	if string(got) != want {
		t.Fatalf("report:\n got %s\nwant %s", got, want)
	}
}

func TestCheckClassifiesLayoutTables(t *testing.T) {
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutTables))
	sc := store.Schema
	macs, codes := sc.Constraints[0].LockTable, sc.Constraints[1].LockTable
	dev := func(id, mac, code string) model.Item {
		return model.Item{"id": model.S(id), "mac_address": model.S(mac), "registration_code": model.S(code)}
	}
	dynamotest.Put(t, client, sc.Table,
		dev("d1", "02:01", "RC-1"), dev("d2", "02:02", "RC-2"), dev("d3", "02:01", "RC-3"))
	dynamotest.Put(t, client, macs,
		model.Item{"MacAddress": model.S("02:01"), "owner": model.S("d1")},
		model.Item{"MacAddress": model.S("02:02"), "owner": model.S("d9")},
		model.Item{"MacAddress": model.S("02:99")})
	dynamotest.Put(t, client, codes,
		model.Item{"RegistrationCode": model.S("RC-1"), "owner": model.S("d1")},
		model.Item{"RegistrationCode": model.S("RC-2")})
	r := check(t, store)
	got, _ := json.Marshal(r.Problems)
	want := `[` +
		`{"kind":"duplicate_value","constraint":"mac_address","value":"02:01","lock":{"MacAddress":"02:01"},"lock_table":"` + macs + `","owner":"d1","accounts":["d1","d3"]},` +
		`{"kind":"foreign_lock","constraint":"mac_address","value":"02:02","lock":{"MacAddress":"02:02"},"lock_table":"` + macs + `","owner":"d9","accounts":["d2"]},` +
		`{"kind":"orphan_lock","constraint":"mac_address","value":"02:99","lock":{"MacAddress":"02:99"},"lock_table":"` + macs + `","accounts":[]},` +
		`{"kind":"missing_lock","constraint":"registration_code","value":"RC-3","accounts":["d3"]}` +
		`]`
	if string(got) != want || r.Accounts != 3 || r.Locks != 5 || r.ScannedItems != 8 {
		t.Fatalf("problems:\n got %s\nwant %s\n(accounts %d, locks %d, scanned %d)", got, want, r.Accounts, r.Locks, r.ScannedItems)
	}
}

// hookAPI runs a function after a chosen Scan page: a concurrent writer
// between two pages of the check's scan. It also counts calls.
type hookAPI struct {
	dynamo.API
	once      sync.Once
	afterPage int
	hook      func()
	scans     atomic.Int32
	queries   atomic.Int32
}

func (h *hookAPI) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	out, err := h.API.Scan(ctx, in, opts...)
	if n := h.scans.Add(1); h.hook != nil && int(n) == h.afterPage {
		h.once.Do(h.hook)
	}
	return out, err
}

func (h *hookAPI) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	h.queries.Add(1)
	return h.API.Query(ctx, in, opts...)
}

// TestSignupBetweenPagesIsNotReported commits in-pattern signups while the
// check is between scan pages, so that the scan sees a lock without its
// account (accounts sort first in dynoxide's key order) or, with the
// accounts sorting last, an account without its lock. Confirmation must
// dismiss all of them.
func TestSignupBetweenPagesIsNotReported(t *testing.T) {
	for _, tc := range []struct {
		name, accountPrefix string
		withOwner           bool
	}{
		{"lock seen, account missed, owner named", "ACCT#", true},
		{"lock seen, account missed, no owner", "ACCT#", false},
		{"account seen, lock missed", "USER#", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := model.DefaultSchema(model.LayoutSingle)
			sc.AccountPrefix = tc.accountPrefix
			base, client := dynamotest.Store(t, sc)
			p := tc.accountPrefix
			dynamotest.Put(t, client, base.Schema.Table,
				acct(p+"m1", "m1@x.io", "m1"), lock("UNIQ#EMAIL#m1@x.io", p+"m1"), lock("UNIQ#HANDLE#m1", p+"m1"),
				acct(p+"m2", "m2@x.io", "m2"), lock("UNIQ#EMAIL#m2@x.io", p+"m2"), lock("UNIQ#HANDLE#m2", p+"m2"))
			hook := &hookAPI{API: client, afterPage: 1}
			owner := ""
			if tc.withOwner {
				owner = p + "a0"
			}
			hook.hook = func() {
				// Sorts before every key read so far: the scan has passed it.
				_, err := client.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{
					TransactItems: []types.TransactWriteItem{
						{Put: &types.Put{TableName: aws.String(base.Schema.Table), Item: dynamo.ItemToSDK(acct(p+"a0", "a0@x.io", "a0")), ConditionExpression: aws.String("attribute_not_exists(PK)")}},
						{Put: &types.Put{TableName: aws.String(base.Schema.Table), Item: dynamo.ItemToSDK(lock("UNIQ#EMAIL#a0@x.io", owner)), ConditionExpression: aws.String("attribute_not_exists(PK)")}},
						{Put: &types.Put{TableName: aws.String(base.Schema.Table), Item: dynamo.ItemToSDK(lock("UNIQ#HANDLE#a0", owner)), ConditionExpression: aws.String("attribute_not_exists(PK)")}},
					},
				})
				if err != nil {
					t.Errorf("signup between pages: %v", err)
				}
			}
			store := dynamo.NewStore(hook, base.Endpoint, base.Schema, clock.System())
			store.Segments, store.PageSize = 1, 2
			r := check(t, store)
			// The scan read some but not all of the new items: it saw a
			// torn signup, which only confirmation can dismiss.
			if r.ScannedItems == 6 || r.ScannedItems == 9 {
				t.Fatalf("scanned %d items: the signup was not torn across pages", r.ScannedItems)
			}
			if len(r.Problems) != 0 {
				t.Fatalf("a committed in-pattern signup was reported: %+v", r.Problems)
			}
		})
	}
}

// seedCounts is what AnomaliesPerKind(n) = 3 plants with two constraints:
// 3 signups without locks (2 missing each); orphans from a leaky rename
// (1), a leaky delete (2) and an ownerless leaky delete (2); 3 foreign; 3
// duplicate.
var seedCounts = map[model.ProblemKind]int{
	model.MissingLock: 6, model.OrphanLock: 5, model.ForeignLock: 3,
	model.DuplicateValue: 3,
}

func TestSeedPlantsEveryKindInBothLayouts(t *testing.T) {
	for _, layout := range []model.Layout{model.LayoutSingle, model.LayoutTables} {
		t.Run(string(layout), func(t *testing.T) {
			store, _ := dynamotest.Store(t, model.DefaultSchema(layout))
			opts := seed.Options{Accounts: 30, Anomalies: true}
			if _, err := seed.Run(context.Background(), store, opts); err != nil {
				t.Fatal(err)
			}
			first := check(t, store)
			if got := first.Counts(); !mapsEqual(got, seedCounts) {
				t.Fatalf("counts = %v, want %v", got, seedCounts)
			}
			// Deterministic: seeding again changes nothing.
			if _, err := seed.Run(context.Background(), store, opts); err != nil {
				t.Fatal(err)
			}
			again := check(t, store)
			a, _ := json.Marshal(first)
			b, _ := json.Marshal(again)
			if !bytes.Equal(a, b) {
				t.Fatalf("second seed changed the table:\n%s\n%s", a, b)
			}
		})
	}
}

func mapsEqual(a, b map[model.ProblemKind]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestCheckIsTheSameForAnyPagingAndSegments reads one seeded table with
// pages of one item (every filtered rescan page is short or empty) up to
// 1 MB pages, in one to five segments.
func TestCheckIsTheSameForAnyPagingAndSegments(t *testing.T) {
	store, _ := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	if _, err := seed.Run(context.Background(), store, seed.Options{Accounts: 20, Anomalies: true}); err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, c := range []struct{ segments, page int }{{1, 0}, {1, 1}, {3, 7}, {5, 1}, {2, 1000}} {
		store.Segments, store.PageSize = c.segments, int32(c.page)
		r := check(t, store)
		r.ConsumedRCU = 0 // more pages, more rounding up: the rest must not differ
		got, _ := json.Marshal(r)
		if want == nil {
			want = got
			continue
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("segments %d, page %d:\n got %s\nwant %s", c.segments, c.page, got, want)
		}
	}
}

// TestOwnerlessOrphanConfirmedByIndex configures a GSI of email: an
// ownerless orphan is confirmed with a Query instead of a second scan.
func TestOwnerlessOrphanConfirmedByIndex(t *testing.T) {
	client, ep := dynamotest.Client(t)
	sc := dynamotest.Rename(t, model.DefaultSchema(model.LayoutSingle))
	sc.Constraints[0].Index = "by-email"
	dynamotest.TableWithIndex(t, client, sc.Table, "by-email", "email", "", types.ProjectionTypeKeysOnly)
	dynamotest.Put(t, client, sc.Table,
		acct("ACCT#a", "a@x.io", "a"), lock("UNIQ#EMAIL#a@x.io", ""), lock("UNIQ#HANDLE#a", "ACCT#a"),
		lock("UNIQ#EMAIL#gone@x.io", ""))
	hook := &hookAPI{API: client}
	store, err := dynamo.Open(context.Background(), hook, ep, sc, clock.System())
	if err != nil {
		t.Fatal(err)
	}
	store.Segments = 1
	hook.scans.Store(0) // Open's read probe
	r := check(t, store)
	if len(r.Problems) != 1 || r.Problems[0].Kind != model.OrphanLock || r.Problems[0].Value != "gone@x.io" {
		t.Fatalf("problems = %+v, want one orphan_lock gone@x.io", r.Problems)
	}
	if hook.scans.Load() != 1 || hook.queries.Load() != 1 {
		t.Fatalf("%d scans and %d queries: want the main scan and one index query, no rescan", hook.scans.Load(), hook.queries.Load())
	}
}

func TestOpenRefusesWrongKeys(t *testing.T) {
	store, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutTables))
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.Table = store.Schema.Table // keyed by id, not PK/SK
	_, err := dynamo.Open(context.Background(), client, store.Endpoint, sc, clock.System())
	if err == nil || !strings.Contains(err.Error(), "has key id (HASH, S)") || !strings.Contains(err.Error(), "expects PK (HASH, S), SK (RANGE, S)") {
		t.Fatalf("err = %v, want one naming the actual key id and the expected PK/SK", err)
	}
}

// rescanHook counts what the second scan for ownerless orphans (the only
// consistent scan of a check) returned, and runs before once, before it.
type rescanHook struct {
	dynamo.API
	once     sync.Once
	before   func()
	returned atomic.Int32
	examined atomic.Int32
}

func (h *rescanHook) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if !aws.ToBool(in.ConsistentRead) {
		return h.API.Scan(ctx, in, opts...)
	}
	h.once.Do(h.before)
	out, err := h.API.Scan(ctx, in, opts...)
	if err == nil {
		h.returned.Add(out.Count)
		h.examined.Add(out.ScannedCount)
	}
	return out, err
}

// TestRescanReturnsOnlyHolders plants ownerless orphans of both
// constraints among healthy accounts; between the two scans an account
// takes one of the orphan values, out of the pattern. The second scan
// must bring back that account alone (its filter names the orphan
// values), which settles that value, and must bring back every account
// when the constraint normalizes (a filter cannot compare "Gone@X.io"
// with "gone@x.io").
func TestRescanReturnsOnlyHolders(t *testing.T) {
	for _, tc := range []struct {
		name      string
		normalize model.Normalization
		email     string // what the late account stores
		returned  int32
	}{
		{"filtered by value", model.NormalizeNone, "gone@x.io", 1},
		{"normalized: every account", model.NormalizeLower, "Gone@X.io", 21},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := model.DefaultSchema(model.LayoutSingle)
			sc.Constraints[0].Normalize = tc.normalize
			base, client := dynamotest.Store(t, sc)
			for i := range 20 {
				id, v := fmt.Sprintf("ACCT#%02d", i), fmt.Sprintf("u%02d", i)
				dynamotest.Put(t, client, base.Schema.Table,
					acct(id, v+"@x.io", v), lock("UNIQ#EMAIL#"+v+"@x.io", id), lock("UNIQ#HANDLE#"+v, id))
			}
			dynamotest.Put(t, client, base.Schema.Table, lock("UNIQ#EMAIL#gone@x.io", ""), lock("UNIQ#HANDLE#gone", ""))
			hook := &rescanHook{API: client, before: func() {
				dynamotest.Put(t, client, base.Schema.Table, acct("ACCT#late", tc.email, ""))
			}}
			store := dynamo.NewStore(hook, base.Endpoint, base.Schema, clock.System())
			r := check(t, store)
			if len(r.Problems) != 1 || r.Problems[0].Kind != model.OrphanLock || r.Problems[0].Value != "gone" {
				t.Fatalf("problems = %+v, want the username orphan alone (the email one has a holder now)", r.Problems)
			}
			if got := hook.returned.Load(); got != tc.returned {
				t.Fatalf("the rescan returned %d items, want %d", got, tc.returned)
			}
			if got := hook.examined.Load(); got < 63 {
				t.Fatalf("the rescan examined %d items: it did not read the table", got)
			}
		})
	}
}

// sizeHook reports every table's items as size bytes each on average, and
// records whether the main scan (not consistent) projected its items.
type sizeHook struct {
	dynamo.API
	size      int64
	projected atomic.Int32
	whole     atomic.Int32
}

func (h *sizeHook) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	out, err := h.API.DescribeTable(ctx, in, opts...)
	if err == nil {
		out.Table.TableSizeBytes = aws.Int64(aws.ToInt64(out.Table.ItemCount) * h.size)
	}
	return out, err
}

func (h *sizeHook) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	// Counted: the main scan's pages (not the rescan's consistent ones,
	// nor the one-item scans of the read probe).
	if !aws.ToBool(in.ConsistentRead) && aws.ToInt32(in.Limit) != 1 {
		if in.ProjectionExpression != nil {
			h.projected.Add(1)
		} else {
			h.whole.Add(1)
		}
	}
	return h.API.Scan(ctx, in, opts...)
}

// TestCheckProjectsOnlyLargeItems: the main scan projects the items onto
// the attributes it reads only when DescribeTable says they hold more (an
// average past 256 bytes), and finds the same either way.
func TestCheckProjectsOnlyLargeItems(t *testing.T) {
	base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	if _, err := seed.Run(context.Background(), base, seed.Options{Accounts: 20, Anomalies: true}); err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, c := range []struct {
		size      int64
		projected bool
	}{{0, false}, {100, false}, {1000, true}} {
		hook := &sizeHook{API: client, size: c.size}
		store, err := dynamo.Open(context.Background(), hook, base.Endpoint, base.Schema, clock.System())
		if err != nil {
			t.Fatal(err)
		}
		r := check(t, store)
		if got := hook.projected.Load() > 0; got != c.projected || hook.projected.Load()*hook.whole.Load() != 0 {
			t.Fatalf("items of %d bytes: %d pages projected, %d whole; want projected %v", c.size, hook.projected.Load(), hook.whole.Load(), c.projected)
		}
		r.ConsumedRCU = 0
		got, _ := json.Marshal(r)
		if want == nil {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Fatalf("items of %d bytes:\n got %s\nwant %s", c.size, got, want)
		}
	}
}

// failedRescan fails the second scan for ownerless orphans (the only
// consistent scan of a check) and holds the consistent reads of the
// other candidates until the check gives up on them.
type failedRescan struct{ dynamo.API }

func (f failedRescan) Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	if aws.ToBool(in.ConsistentRead) {
		return nil, errors.New("the rescan's own failure")
	}
	return f.API.Scan(ctx, in, opts...)
}

func (f failedRescan) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	for _, ka := range in.RequestItems {
		for _, k := range ka.Keys {
			if pk, ok := k["PK"].(*types.AttributeValueMemberS); ok && pk.Value == "ACCT#a1" {
				<-ctx.Done() // the missing lock's confirmation
				return nil, ctx.Err()
			}
		}
	}
	return f.API.BatchGetItem(ctx, in, opts...)
}

// TestConfirmSaysWhatFailed: when the lookup of ownerless orphans fails,
// the confirmation of the other candidates is cancelled; the check then
// says the lookup's failure, not "context canceled".
func TestConfirmSaysWhatFailed(t *testing.T) {
	t.Parallel()
	base, client := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	dynamotest.Put(t, client, base.Schema.Table, acct("ACCT#a1", "ada@x.io", ""), lock("UNIQ#EMAIL#gone@x.io", ""))
	store := dynamo.NewStore(failedRescan{client}, base.Endpoint, base.Schema, clock.System())
	_, err := store.Checker.Check(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "the rescan's own failure") {
		t.Fatalf("check: %v, want the rescan's own failure", err)
	}
}
