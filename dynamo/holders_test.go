package dynamo_test

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestHoldersOfANormalizedValue: a write's holder lookup and find both
// find the accounts holding a lower-cased email in any case, by the one
// scan they share, and neither counts an item that is not an account.
func TestHoldersOfANormalizedValue(t *testing.T) {
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.Constraints = slices.Clone(sc.Constraints)
	sc.Constraints[0].Normalize = model.NormalizeLower
	store, client := dynamotest.Store(t, sc)
	other := model.Item{"PK": model.S("ORDER#1"), "SK": model.S("PROFILE"), "email": model.S("ada@x.io")}
	dynamotest.Put(t, client, store.Schema.Table,
		acct("ACCT#a", "Ada@X.io", "ada"), acct("ACCT#c", "ADA@x.io", "cee"), other,
		acct("ACCT#b", "bob@x.io", "bob"), lock("UNIQ#EMAIL#bob@x.io", "ACCT#b"), lock("UNIQ#HANDLE#bob", "ACCT#b"))
	ctx := context.Background()

	w := backend.Wanted{Constraint: 0, Value: "ada@x.io"}
	found, err := store.Lookup.LookupHolders(ctx, []backend.Wanted{w})
	if err != nil {
		t.Fatal(err)
	}
	if found.Method != "consistent scan of the accounts" || found.ItemsRead != 6 {
		t.Errorf("method %q, %d items read; want the scan, 6", found.Method, found.ItemsRead)
	}
	if h := found.Holders[w]; !reflect.DeepEqual(h, []string{"ACCT#a", "ACCT#c"}) || found.Locked[w] {
		t.Errorf("holders %v, locked %v; want ACCT#a and ACCT#c, no lock", h, found.Locked[w])
	}

	var progress []int64
	f, err := store.Lookup.Find(ctx, "ADA@X.IO", backend.FindOptions{Progress: func(_ string, n int64) { progress = append(progress, n) }})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range f.Accounts {
		ids = append(ids, a.ID)
	}
	if !reflect.DeepEqual(ids, []string{"ACCT#a", "ACCT#c"}) {
		t.Errorf("find: accounts %v, want ACCT#a and ACCT#c", ids)
	}
	if len(progress) == 0 || progress[len(progress)-1] != 6 {
		t.Errorf("find: progress %v, want it to end at the 6 items scanned", progress)
	}
	if how := []string{"scan for email=ADA@X.IO or username=ADA@X.IO: 6 items read, 2 found"}; !reflect.DeepEqual(f.How, how) {
		t.Errorf("find: how %q, want %q", f.How, how)
	}
}

// decodedAPI answers every Scan with items, decoded (it ignores the
// options that ask for the undecoded answer), and every read with nothing.
type decodedAPI struct {
	dynamo.API
	items []model.Item
}

func (f *decodedAPI) Scan(_ context.Context, in *dynamodb.ScanInput, _ ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	out := &dynamodb.ScanOutput{ScannedCount: int32(len(f.items))}
	for _, it := range f.items {
		out.Items = append(out.Items, dynamo.ItemToSDK(it))
	}
	return out, nil
}

func (f *decodedAPI) BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return &dynamodb.BatchGetItemOutput{}, nil
}

// TestLookupHoldersOfADecodedAnswer: a client that answers a scan decoded
// (a fake) is read as the SDK decoded it, not as an empty raw page.
func TestLookupHoldersOfADecodedAnswer(t *testing.T) {
	t.Parallel()
	api := &decodedAPI{items: []model.Item{
		{"PK": model.S("ACCT#a"), "SK": model.S("PROFILE"), "email": model.S("ada@x.io"), "username": model.S("ada")},
	}}
	s := dynamo.NewStore(api, backend.Endpoint{}, model.DefaultSchema(model.LayoutSingle), clock.System())
	s.Segments = 1 // the fake answers every segment alike
	w := backend.Wanted{Constraint: 0, Value: "ada@x.io"}
	found, err := s.Lookup.LookupHolders(context.Background(), []backend.Wanted{w})
	if err != nil {
		t.Fatal(err)
	}
	if h := found.Holders[w]; !reflect.DeepEqual(h, []string{"ACCT#a"}) || found.ItemsRead != 1 {
		t.Errorf("holders %v, %d items read; want ACCT#a, 1", h, found.ItemsRead)
	}
}

// TestFindings: what a lookup found is said value by value, and a value
// is called free only when no other account holds it and no lock exists.
func TestFindings(t *testing.T) {
	t.Parallel()
	sc := model.DefaultSchema(model.LayoutSingle)
	p, err := sc.Signup("ACCT#n", map[string]string{"email": "e@x", "username": "u"})
	if err != nil {
		t.Fatal(err)
	}
	email, user := backend.Wanted{Constraint: 0, Value: "e@x"}, backend.Wanted{Constraint: 1, Value: "u"}
	lookup := func(holders map[backend.Wanted][]string, owners map[backend.Wanted]string) backend.HolderLookup {
		l := backend.HolderLookup{Holders: holders, Locked: map[backend.Wanted]bool{}, Owners: owners}
		for w := range owners {
			l.Locked[w] = true
		}
		return l
	}
	for _, c := range []struct {
		name string
		l    backend.HolderLookup
		want string
	}{
		{"free", lookup(nil, nil), "no other account holds them"},
		{"only the account itself", lookup(map[backend.Wanted][]string{user: {"ACCT#n"}}, nil), "no other account holds them"},
		{"locked and taken", lookup(map[backend.Wanted][]string{email: {"ACCT#o"}, user: {"ACCT#b"}}, map[backend.Wanted]string{email: "ACCT#o"}),
			"email=e@x is locked by ACCT#o (its lock exists): the guard will refuse it; username=u is held by ACCT#b without its lock: refused"},
		{"a foreign lock", lookup(map[backend.Wanted][]string{email: {"ACCT#h"}}, map[backend.Wanted]string{email: "ACCT#o"}),
			"email=e@x is locked by ACCT#o (its lock exists; held by ACCT#h): the guard will refuse it; username=u: no other account holds it"},
		{"ownerless, held", lookup(map[backend.Wanted][]string{user: {"ACCT#h"}}, map[backend.Wanted]string{user: ""}),
			"email=e@x: no other account holds it; username=u is locked, held by ACCT#h (its lock exists and names no owner): the guard will refuse it"},
		{"ownerless orphan", lookup(nil, map[backend.Wanted]string{user: ""}),
			"email=e@x: no other account holds it; username=u is locked (its lock exists, names no owner, and no account holds it): the guard will refuse it"},
	} {
		if got := backend.Findings(&sc, p, c.l); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
