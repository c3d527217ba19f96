package dynamo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/dynamo/seed"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// fixture is a fresh set of tables of one layout, with builders for the
// items the pattern keeps there.
type fixture struct {
	t      *testing.T
	store  *dynamo.Store
	client *dynamodb.Client
}

func newFixture(t *testing.T, l model.Layout, mods ...func(*model.Schema)) fixture {
	t.Helper()
	s := model.DefaultSchema(l)
	for _, m := range mods {
		m(&s)
	}
	store, client := dynamotest.Store(t, s)
	return fixture{t: t, store: store, client: client}
}

func lowerFirst(s *model.Schema) {
	cs := slices.Clone(s.Constraints)
	cs[0].Normalize = model.NormalizeLower
	s.Constraints = cs
}

func (f fixture) single() bool { return f.store.Schema.Layout == model.LayoutSingle }

// id is the key value of account n: ACCT#n, or dev-n for records.
func (f fixture) id(n string) string {
	if f.single() {
		return "ACCT#" + n
	}
	return "dev-" + n
}

// attr is the name of constraint ci's attribute.
func (f fixture) attr(ci int) string { return f.store.Schema.Constraints[ci].Attr }

func (f fixture) attrs(v0, v1 string) map[string]string {
	return map[string]string{f.attr(0): v0, f.attr(1): v1}
}

// row is an item and the index of its table in Schema.Tables().
type row struct {
	table int
	item  model.Item
}

func (r row) String() string {
	b, _ := json.Marshal(r.item)
	return fmt.Sprintf("%d %s", r.table, b)
}

// account is the item of account id holding v0 and v1 ("" for none).
func (f fixture) account(id, v0, v1 string) row {
	it := model.Item{}
	for k, v := range f.store.Schema.AccountKey(id) {
		it[k] = model.S(v)
	}
	for ci, v := range []string{v0, v1} {
		if v != "" {
			it[f.attr(ci)] = model.S(v)
		}
	}
	return row{0, it}
}

// lock is the lock item of constraint ci for value v exactly as given,
// naming owner when owner is not empty.
func (f fixture) lock(ci int, v, owner string) row {
	table, key := f.store.Schema.LockKey(ci, v)
	it := model.Item{}
	for k, kv := range key {
		it[k] = model.S(kv)
	}
	if owner != "" {
		it["owner"] = model.S(owner)
	}
	return row{slices.Index(f.store.Schema.Tables(), table), it}
}

// healthy is an account with both its locks, naming it.
func (f fixture) healthy(id, v0, v1 string) []row {
	return []row{f.account(id, v0, v1), f.lock(0, v0, id), f.lock(1, v1, id)}
}

func (f fixture) put(rows ...row) {
	f.t.Helper()
	tables := f.store.Schema.Tables()
	for _, r := range rows {
		dynamotest.Put(f.t, f.client, tables[r.table], r.item)
	}
}

// state reads every item of every table with consistent scans, one line
// per item ("<table index> <DynamoDB JSON>"), sorted.
func (f fixture) state() []string {
	f.t.Helper()
	return tableState(f.t, f.client, f.store.Schema.Tables())
}

func tableState(t *testing.T, client dynamo.API, tables []string) []string {
	t.Helper()
	var lines []string
	for i, table := range tables {
		var start map[string]types.AttributeValue
		for {
			out, err := client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), ExclusiveStartKey: start})
			if err != nil {
				t.Fatalf("scan %s: %v", table, err)
			}
			for _, av := range out.Items {
				lines = append(lines, row{i, dynamo.ItemFromSDK(av)}.String())
			}
			if start = out.LastEvaluatedKey; len(start) == 0 {
				break
			}
		}
	}
	slices.Sort(lines)
	return lines
}

func lines(rows ...[]row) []string {
	var out []string
	for _, rs := range rows {
		for _, r := range rs {
			out = append(out, r.String())
		}
	}
	slices.Sort(out)
	return out
}

func (f fixture) wantState(want ...[]row) {
	f.t.Helper()
	if got, w := f.state(), lines(want...); !slices.Equal(got, w) {
		f.t.Fatalf("table state:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(w, "\n     "))
	}
}

func (f fixture) noProblems() {
	f.t.Helper()
	if r := check(f.t, f.store); len(r.Problems) != 0 {
		b, _ := json.Marshal(r.Problems)
		f.t.Fatalf("problems after the write: %s", b)
	}
}

// wantHealthy reads account id consistently and wants each of its locks
// ok and naming it.
func (f fixture) wantHealthy(id string) {
	f.t.Helper()
	a, found, err := f.store.Pages.Account(context.Background(), id)
	if err != nil || !found {
		f.t.Fatalf("account %s: found %v, err %v", id, found, err)
	}
	for _, l := range a.Locks {
		if l.Status != model.LockOK || l.Owner != id {
			f.t.Fatalf("account %s: lock %d is %s, owner %q", id, l.Constraint, l.Status, l.Owner)
		}
	}
}

// must returns a function that passes a plan through and fails the test
// on a planning error: must(t)(model.Planner{Schema: &s.Schema}.Signup(...)).
func must(t *testing.T) func(model.Plan, error) model.Plan {
	return func(p model.Plan, err error) model.Plan {
		t.Helper()
		if err != nil {
			t.Fatalf("plan: %v", err)
		}
		return p
	}
}

// execute prepares p with a fresh token and executes it.
func execute(t *testing.T, s *dynamo.Store, p model.Plan) model.Result {
	t.Helper()
	tx, err := s.Writer.Prepare(p, backend.NewToken())
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	res, err := s.Writer.Execute(context.Background(), tx)
	if err != nil {
		t.Fatalf("execute %s: %v", p.Operation, err)
	}
	return res
}

func wantCommitted(t *testing.T, res model.Result) {
	t.Helper()
	if res.Outcome != model.Committed || len(res.Reasons) != 0 {
		t.Fatalf("%s %v: outcome %s, reasons %+v; want committed", res.Operation, res.Keys, res.Outcome, res.Reasons)
	}
}

// wantCancelled wants a cancellation with exactly one failed slot.
func wantCancelled(t *testing.T, res model.Result, slot int, action, message string) {
	t.Helper()
	if res.Outcome != model.Cancelled {
		t.Fatalf("outcome %s, reasons %+v; want cancelled", res.Outcome, res.Reasons)
	}
	want := []model.Reason{{Slot: slot, Action: action, Code: "ConditionalCheckFailed", Message: message}}
	if !slices.Equal(res.Reasons, want) {
		t.Fatalf("reasons\n got %+v\nwant %+v", res.Reasons, want)
	}
}

var layouts = []model.Layout{model.LayoutSingle, model.LayoutTables}

// TestTxEachOperationCommits runs signup, rename and delete through
// Prepare and Execute in both layouts, checking the tables after each.
func TestTxEachOperationCommits(t *testing.T) {
	for _, l := range layouts {
		t.Run(string(l), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t, l)
			s := f.store
			a, b := f.id("a1f9c3"), f.id("b2")

			wantCommitted(t, execute(t, s, must(t)(model.Planner{Schema: &s.Schema}.Signup(a, f.attrs("ada@x", "ada")))))
			f.wantState(f.healthy(a, "ada@x", "ada"))
			f.wantHealthy(a)
			f.noProblems()

			// A signup with one value only takes one lock.
			wantCommitted(t, execute(t, s, must(t)(model.Planner{Schema: &s.Schema}.Signup(b, f.attrs("", "bob")))))
			f.wantState(f.healthy(a, "ada@x", "ada"), []row{f.account(b, "", "bob"), f.lock(1, "bob", b)})

			p, err := s.Writer.PlanRename(ctx, a, map[string]string{f.attr(0): "lovelace@x"}, nil, nil)
			wantCommitted(t, execute(t, s, must(t)(p, err)))
			f.wantState(f.healthy(a, "lovelace@x", "ada"), []row{f.account(b, "", "bob"), f.lock(1, "bob", b)})
			f.wantHealthy(a)
			f.noProblems()

			// Both attributes at once, one of them to a value b gives up below.
			p, err = s.Writer.PlanRename(ctx, b, map[string]string{f.attr(0): "bob@x", f.attr(1): ""}, nil, nil)
			wantCommitted(t, execute(t, s, must(t)(p, err)))
			f.wantState(f.healthy(a, "lovelace@x", "ada"), []row{f.account(b, "bob@x", ""), f.lock(0, "bob@x", b)})
			f.noProblems()

			p, err = s.Writer.PlanDelete(ctx, a, nil, nil)
			wantCommitted(t, execute(t, s, must(t)(p, err)))
			f.wantState([]row{f.account(b, "bob@x", ""), f.lock(0, "bob@x", b)})
			f.noProblems()

			p, err = s.Writer.PlanDelete(ctx, b, nil, nil)
			wantCommitted(t, execute(t, s, must(t)(p, err)))
			f.wantState()
		})
	}
}

// TestTxRenameToTheSameLock: under lower, a change of case changes only
// the account; the lock stays as it was.
func TestTxRenameToTheSameLock(t *testing.T) {
	for _, l := range layouts {
		t.Run(string(l), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, l, lowerFirst)
			s := f.store
			a := f.id("a")
			wantCommitted(t, execute(t, s, must(t)(model.Planner{Schema: &s.Schema}.Signup(a, f.attrs("Ada@X.io", "ada")))))
			f.wantState([]row{f.account(a, "Ada@X.io", "ada"), f.lock(0, "ada@x.io", a), f.lock(1, "ada", a)})

			p, err := s.Writer.PlanRename(context.Background(), a, map[string]string{f.attr(0): "ADA@x.IO"}, nil, nil)
			p = must(t)(p, err)
			if len(p.Actions) != 1 || p.Actions[0].Kind != model.ActUpdate {
				t.Fatalf("plan has %d actions; want only the account update", len(p.Actions))
			}
			wantCommitted(t, execute(t, s, p))
			// The account changed; both locks are as they were.
			f.wantState([]row{f.account(a, "ADA@x.IO", "ada"), f.lock(0, "ada@x.io", a), f.lock(1, "ada", a)})
			f.wantHealthy(a)
			f.noProblems()
		})
	}
}

// TestTxRepairsEveryRepairableKind plants orphan (with and without owner),
// missing and foreign locks in both layouts, repairs each from a check,
// and wants a clean table with the right items.
func TestTxRepairsEveryRepairableKind(t *testing.T) {
	for _, l := range layouts {
		t.Run(string(l), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t, l)
			a, b, m, c, gone := f.id("a"), f.id("b"), f.id("m"), f.id("c"), f.id("gone")
			f.put(f.healthy(a, "a@x", "ada")...)
			f.put(
				// orphan with an owner that no longer exists
				f.lock(0, "orphan@x", gone),
				// orphan with an owner that holds another value now
				f.account(b, "b@x", "bob"), f.lock(0, "b@x", b), f.lock(1, "bob", b), f.lock(1, "oldbob", b),
				// orphan without owner
				f.lock(1, "ghost", ""),
				// missing: m's first lock was never written
				f.account(m, "m@x", "mo"), f.lock(1, "mo", m),
				// foreign: c holds c@x, the lock names a
				f.account(c, "c@x", "cy"), f.lock(0, "c@x", a), f.lock(1, "cy", c),
			)
			r := check(t, f.store)
			kinds := map[model.ProblemKind]int{}
			for _, p := range r.Problems {
				kinds[p.Kind]++
			}
			want := map[model.ProblemKind]int{model.OrphanLock: 3, model.MissingLock: 1, model.ForeignLock: 1}
			if !mapsEqual(kinds, want) {
				t.Fatalf("planted problems %v, want %v", kinds, want)
			}
			for _, p := range r.Problems {
				rep, err := f.store.Writer.PlanRepair(ctx, p)
				if err != nil || rep.Skip != "" {
					t.Fatalf("%s %s: err %v, skip %q", p.Kind, p.Value, err, rep.Skip)
				}
				res := execute(t, f.store, rep.Plan)
				if res.Operation != "repair" {
					t.Errorf("operation %q", res.Operation)
				}
				wantCommitted(t, res)
			}
			f.noProblems()
			f.wantState(f.healthy(a, "a@x", "ada"), f.healthy(b, "b@x", "bob"), f.healthy(m, "m@x", "mo"), f.healthy(c, "c@x", "cy"))
			for _, id := range []string{a, b, m, c} {
				f.wantHealthy(id)
			}
		})
	}
}

// TestTxRepairAlreadyDoneByAnotherWriter: two repairs of one missing lock
// at once; the loser was reported cancelled, "taken by" the very account
// it was repairing, and the command exited 3 on a clean table. A repair
// cancelled only because each failed action's effect is there now (the
// lock put, the foreign lock handed, the orphan gone) is skipped, saying
// so; a lock that names someone else still cancels it.
func TestTxRepairAlreadyDoneByAnotherWriter(t *testing.T) {
	for _, l := range layouts {
		t.Run(string(l), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t, l)
			sc := &f.store.Schema
			a, m, c, n, k, gone := f.id("a"), f.id("m"), f.id("c"), f.id("n"), f.id("k"), f.id("gone")
			f.put(f.healthy(a, "a@x", "ada")...)
			f.put(
				f.lock(0, "orphan@x", gone),                   // orphan, its owner gone
				f.account(m, "m@x", "mo"), f.lock(1, "mo", m), // missing
				f.account(c, "c@x", "cy"), f.lock(0, "c@x", a), f.lock(1, "cy", c), // foreign
				f.account(n, "n@x", "ned"), f.lock(1, "ned", n), // missing, to be taken by another
				f.account(k, "k@x", "kay"), f.lock(1, "kay", k), // missing, its holder to change
			)
			plans := map[string]model.Plan{}
			for _, p := range check(t, f.store).Problems {
				rep, err := f.store.Writer.PlanRepair(ctx, p)
				if err != nil || rep.Skip != "" {
					t.Fatalf("%s %s: err %v, skip %q", p.Kind, p.Value, err, rep.Skip)
				}
				plans[p.Value] = rep.Plan
			}
			// Another writer repairs three of them between plan and send.
			f.put(f.lock(0, "m@x", m), f.lock(0, "c@x", c), f.lock(0, "n@x", a))
			// k's lock is put, but k holds another value now: the check of
			// k fails too, and the repair is cancelled.
			f.put(f.lock(0, "k@x", k), f.account(k, "k2@x", "kay"))
			table, key := sc.LockKey(0, "orphan@x")
			keyItem := model.Item{}
			for k, v := range key {
				keyItem[k] = model.S(v)
			}
			if _, err := f.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: dynamo.ItemToSDK(keyItem)}); err != nil {
				t.Fatal(err)
			}
			before := f.state()
			for v, want := range map[string]string{
				"m@x":      plans["m@x"].Actions[0].KeyText(sc) + " now has owner " + m,
				"c@x":      plans["c@x"].Actions[0].KeyText(sc) + " now has owner " + c,
				"orphan@x": plans["orphan@x"].Actions[0].KeyText(sc) + " is gone",
			} {
				res := execute(t, f.store, plans[v])
				if res.Outcome != model.Skipped || len(res.Reasons) != 0 || res.Note != "already repaired: "+want+" (another writer repaired it)" {
					t.Errorf("%s: outcome %s, note %q, reasons %+v; want skipped, already repaired: %s", v, res.Outcome, res.Note, res.Reasons, want)
				}
			}
			// n@x's lock names a, not n: not this repair's effect.
			p := plans["n@x"]
			wantCancelled(t, execute(t, f.store, p), 0, p.Actions[0].Purpose(sc), f.attr(0)+" n@x is taken by "+a)
			if res := execute(t, f.store, plans["k@x"]); res.Outcome != model.Cancelled || len(res.Reasons) != 2 {
				t.Errorf("k@x: outcome %s, reasons %+v; want cancelled, the lock put and the check of %s failed", res.Outcome, res.Reasons, k)
			}
			if got := f.state(); !slices.Equal(got, before) {
				t.Fatalf("the repairs changed the tables:\n%q\n%q", before, got)
			}
		})
	}
}

func TestTxSignupOfATakenValue(t *testing.T) {
	for _, l := range layouts {
		t.Run(string(l), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, l)
			s := f.store
			owner, late := f.id("77aa01"), f.id("88bb02")
			wantCommitted(t, execute(t, s, must(t)(model.Planner{Schema: &s.Schema}.Signup(owner, f.attrs("ada@x", "ada")))))
			before := f.state()
			p := must(t)(model.Planner{Schema: &s.Schema}.Signup(late, f.attrs("ada@x", "other")))
			res := execute(t, s, p)
			wantCancelled(t, res, 1, p.Actions[1].Purpose(&s.Schema), f.attr(0)+" ada@x is taken by "+owner)
			if got := f.state(); !slices.Equal(got, before) {
				t.Fatalf("a cancelled signup changed the tables:\n%q\n%q", before, got)
			}
		})
	}
}

func TestTxRenameOfAnAccountChangedSinceLoaded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, model.LayoutSingle)
	s := f.store
	id := "ACCT#b0b001"
	wantCommitted(t, execute(t, s, must(t)(model.Planner{Schema: &s.Schema}.Signup(id, f.attrs("ada@x", "ada")))))
	view, found, err := s.Pages.Account(ctx, id)
	if err != nil || !found {
		t.Fatalf("load: %v %v", found, err)
	}
	p := must(t)(model.Planner{Schema: &s.Schema}.Rename(view, map[string]string{"email": "new@x"}, nil, nil))
	// Behind our back: someone else changes the email (and its locks).
	f.put(f.account(id, "other@x", "ada"), f.lock(0, "other@x", id))
	before := f.state()
	res := execute(t, s, p)
	wantCancelled(t, res, 0, p.Actions[0].Purpose(&s.Schema), "account ACCT#b0b001 changed since it was loaded: email is now other@x")
	if got := f.state(); !slices.Equal(got, before) {
		t.Fatalf("a cancelled rename changed the tables:\n%q\n%q", before, got)
	}
}

func TestTxDeleteWhenALockBelongsToSomeoneElse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, model.LayoutSingle)
	s := f.store
	id := "ACCT#d0d001"
	wantCommitted(t, execute(t, s, must(t)(model.Planner{Schema: &s.Schema}.Signup(id, f.attrs("dave@x", "dave")))))
	p, err := s.Writer.PlanDelete(ctx, id, nil, nil)
	p = must(t)(p, err)
	f.put(f.lock(1, "dave", "ACCT#e0e001"))
	before := f.state()
	res := execute(t, s, p)
	wantCancelled(t, res, 2, p.Actions[2].Purpose(&s.Schema), "lock UNIQ#HANDLE#dave belongs to ACCT#e0e001")
	if got := f.state(); !slices.Equal(got, before) {
		t.Fatalf("a cancelled delete changed the tables:\n%q\n%q", before, got)
	}
}

// TestTxReplayIsANoOp sends the same Tx (token and input) again after it
// committed: DynamoDB answers success and changes nothing. The same token
// with another input is refused as a mismatch.
func TestTxReplayIsANoOp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, model.LayoutSingle)
	s := f.store
	id := "ACCT#a"
	tx, err := s.Writer.Prepare(must(t)(model.Planner{Schema: &s.Schema}.Signup(id, f.attrs("a@x", "ada"))), backend.NewToken())
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := s.Writer.Execute(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		wantCommitted(t, res)
		if res.Token != aws.ToString(dynamo.Input(tx).ClientRequestToken) {
			t.Fatalf("result token %q, sent %q", res.Token, aws.ToString(dynamo.Input(tx).ClientRequestToken))
		}
		f.wantState(f.healthy(id, "a@x", "ada"))
	}

	// A rename replayed: its condition (email = "a@x") no longer holds,
	// so only the token makes the replay a success.
	p, err := s.Writer.PlanRename(ctx, id, map[string]string{"email": "b@x"}, nil, nil)
	rtx, err2 := s.Writer.Prepare(must(t)(p, err), backend.NewToken())
	if err2 != nil {
		t.Fatal(err2)
	}
	for range 2 {
		res, err := s.Writer.Execute(ctx, rtx)
		if err != nil {
			t.Fatal(err)
		}
		wantCommitted(t, res)
		f.wantState(f.healthy(id, "b@x", "ada"))
	}

	// The same token with another request.
	other, err := s.Writer.Prepare(must(t)(model.Planner{Schema: &s.Schema}.Signup("ACCT#z", f.attrs("z@x", "zed"))), aws.ToString(dynamo.Input(rtx).ClientRequestToken))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Writer.Execute(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != model.Cancelled || len(res.Reasons) != 1 || res.Reasons[0].Code != "IdempotentParameterMismatch" {
		t.Fatalf("reused token: outcome %s, reasons %+v; want cancelled, IdempotentParameterMismatch", res.Outcome, res.Reasons)
	}
	f.wantState(f.healthy(id, "b@x", "ada"))
}

// cliMembers are the API's member names a --cli-input-json document for
// transact-write-items may use, per action kind; the AWS CLI rejects any
// other name, in any other case.
var cliMembers = map[string][]string{
	"Put":            {"TableName", "Item", "ConditionExpression", "ExpressionAttributeNames", "ExpressionAttributeValues", "ReturnValuesOnConditionCheckFailure"},
	"Update":         {"TableName", "Key", "UpdateExpression", "ConditionExpression", "ExpressionAttributeNames", "ExpressionAttributeValues", "ReturnValuesOnConditionCheckFailure"},
	"Delete":         {"TableName", "Key", "ConditionExpression", "ExpressionAttributeNames", "ExpressionAttributeValues", "ReturnValuesOnConditionCheckFailure"},
	"ConditionCheck": {"TableName", "Key", "ConditionExpression", "ExpressionAttributeNames", "ExpressionAttributeValues", "ReturnValuesOnConditionCheckFailure"},
}

// wantCLIDocument checks a document's member names exactly (case
// included), and that every action asks for ALL_OLD.
func wantCLIDocument(t *testing.T, doc []byte) {
	t.Helper()
	if bytes.ContainsRune(doc, '\n') {
		t.Fatalf("document is not one line: %s", doc)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		t.Fatal(err)
	}
	for k := range top {
		if k != "ClientRequestToken" && k != "TransactItems" {
			t.Fatalf("top-level member %q", k)
		}
	}
	var token string
	if err := json.Unmarshal(top["ClientRequestToken"], &token); err != nil || token == "" {
		t.Fatalf("no ClientRequestToken: %s", doc)
	}
	var items []map[string]map[string]json.RawMessage
	if err := json.Unmarshal(top["TransactItems"], &items); err != nil || len(items) == 0 {
		t.Fatalf("TransactItems: %v: %s", err, doc)
	}
	for i, ti := range items {
		if len(ti) != 1 {
			t.Fatalf("item %d has %d members", i, len(ti))
		}
		for kind, members := range ti {
			allowed, ok := cliMembers[kind]
			if !ok {
				t.Fatalf("item %d: kind %q", i, kind)
			}
			for m := range members {
				if !slices.Contains(allowed, m) {
					t.Fatalf("item %d (%s): member %q is not an API member name", i, kind, m)
				}
			}
			if string(members["ReturnValuesOnConditionCheckFailure"]) != `"ALL_OLD"` {
				t.Fatalf("item %d (%s): ReturnValuesOnConditionCheckFailure %s", i, kind, members["ReturnValuesOnConditionCheckFailure"])
			}
		}
	}
}

// TestTxCLIJSONIsWhatIsSent renders each transaction as the --dry-run
// document, parses it back strictly and sends it with the SDK client, as
// the AWS CLI would; the tables end as Execute leaves them.
func TestTxCLIJSONIsWhatIsSent(t *testing.T) {
	for _, l := range layouts {
		t.Run(string(l), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			viaExecute, viaCLI := newFixture(t, l), newFixture(t, l)
			steps := []func(f fixture) (model.Plan, error){
				func(f fixture) (model.Plan, error) {
					return model.Planner{Schema: &f.store.Schema}.Signup(f.id("a"), f.attrs("a@x", "ada"))
				},
				func(f fixture) (model.Plan, error) {
					return model.Planner{Schema: &f.store.Schema}.Signup(f.id("b"), f.attrs("b@x", "bob"))
				},
				func(f fixture) (model.Plan, error) {
					return f.store.Writer.PlanRename(ctx, f.id("a"), map[string]string{f.attr(0): "new@x", f.attr(1): ""}, nil, nil)
				},
				func(f fixture) (model.Plan, error) { return f.store.Writer.PlanDelete(ctx, f.id("b"), nil, nil) },
			}
			for i, step := range steps {
				wantCommitted(t, execute(t, viaExecute.store, must(t)(step(viaExecute))))

				tx, err := viaCLI.store.Writer.Prepare(must(t)(step(viaCLI)), backend.NewToken())
				if err != nil {
					t.Fatal(err)
				}
				doc, err := tx.Request.CLIInput()
				if err != nil {
					t.Fatal(err)
				}
				wantCLIDocument(t, doc)
				in, err := dynamo.ParseCLIJSON(doc)
				if err != nil {
					t.Fatalf("step %d: ParseCLIJSON: %v\n%s", i, err, doc)
				}
				again, err := dynamo.CLIJSON(in)
				if err != nil || !bytes.Equal(again, doc) {
					t.Fatalf("step %d: the parsed input renders differently:\n%s\n%s", i, doc, again)
				}
				if _, err := viaCLI.client.TransactWriteItems(ctx, in); err != nil {
					t.Fatalf("step %d: send the document: %v\n%s", i, err, doc)
				}
				if a, b := viaExecute.state(), viaCLI.state(); !slices.Equal(a, b) {
					t.Fatalf("step %d: tables differ\nExecute: %q\nCLI doc: %q", i, a, b)
				}
			}
			viaCLI.wantState([]row{viaCLI.account(viaCLI.id("a"), "new@x", ""), viaCLI.lock(0, "new@x", viaCLI.id("a"))})
			viaCLI.noProblems()
		})
	}
}

func TestParseCLIJSONIsStrict(t *testing.T) {
	canonical, err := os.ReadFile("testdata/signup.json")
	if err != nil {
		t.Fatal(err)
	}
	in, err := dynamo.ParseCLIJSON(canonical)
	if err != nil {
		t.Fatalf("the article's canonical request: %v", err)
	}
	if len(in.TransactItems) != 3 || in.TransactItems[2].Put == nil || aws.ToString(in.TransactItems[2].Put.TableName) != "accounts" {
		t.Fatalf("canonical request parsed as %+v", in.TransactItems)
	}
	ok := `{"ClientRequestToken":"t","TransactItems":[{"Delete":{"TableName":"x","Key":{"PK":{"S":"a"}},"ConditionExpression":"attribute_exists(PK)"}}]}`
	if _, err := dynamo.ParseCLIJSON([]byte(ok)); err != nil {
		t.Fatalf("valid document: %v", err)
	}
	for name, doc := range map[string]string{
		"unknown top-level member": `{"ClientRequestToken":"t","Items":[]}`,
		"unknown action member":    `{"TransactItems":[{"Delete":{"TableName":"x","Key":{"PK":{"S":"a"}},"Condition":"x"}}]}`,
		"unknown action kind":      `{"TransactItems":[{"Remove":{"TableName":"x","Key":{"PK":{"S":"a"}}}}]}`,
		"two kinds in one item":    `{"TransactItems":[{"Delete":{"TableName":"x","Key":{"PK":{"S":"a"}}},"Put":{"TableName":"x","Item":{"PK":{"S":"a"}}}}]}`,
		"not DynamoDB JSON":        `{"TransactItems":[{"Put":{"TableName":"x","Item":{"PK":"a"}}}]}`,
		"trailing garbage":         ok + `}`,
	} {
		if _, err := dynamo.ParseCLIJSON([]byte(doc)); err == nil {
			t.Errorf("%s: accepted %s", name, doc)
		}
	}
}

// TestTxConcurrentSignupsForOneValue: 20 signups for one email, each its
// own plan, token and account: exactly one commits; every other is
// cancelled with the email named as taken by the winner.
func TestTxConcurrentSignupsForOneValue(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	s := f.store
	const n = 20
	results := make([]model.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			p, err := model.Planner{Schema: &s.Schema}.Signup(fmt.Sprintf("ACCT#c%02d", i), f.attrs("shared@x", fmt.Sprintf("user%02d", i)))
			if err != nil {
				errs[i] = err
				return
			}
			tx, err := s.Writer.Prepare(p, backend.NewToken())
			if err != nil {
				errs[i] = err
				return
			}
			<-start
			results[i], errs[i] = s.Writer.Execute(context.Background(), tx)
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	tokens := map[string]bool{}
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("signup %d: %v", i, errs[i])
		}
		tokens[r.Token] = true
		if r.Outcome == model.Committed {
			if winner >= 0 {
				t.Fatalf("signups %d and %d both committed", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 || len(tokens) != n {
		t.Fatalf("winner %d, %d distinct tokens", winner, len(tokens))
	}
	winnerID := fmt.Sprintf("ACCT#c%02d", winner)
	for i, r := range results {
		if i == winner {
			continue
		}
		if r.Outcome != model.Cancelled || len(r.Reasons) != 1 || r.Reasons[0].Slot != 1 ||
			r.Reasons[0].Message != "email shared@x is taken by "+winnerID {
			t.Errorf("signup %d: outcome %s, reasons %+v; want cancelled: email shared@x is taken by %s", i, r.Outcome, r.Reasons, winnerID)
		}
	}
	f.wantState(f.healthy(winnerID, "shared@x", fmt.Sprintf("user%02d", winner)))
	f.noProblems()
}

// countingAPI counts every call by method, and each key's consistent
// reads by the key's string values (a layout-1 lock is counted under its
// PK, and under LOCK with every other lock).
type countingAPI struct {
	api   dynamo.API
	mu    sync.Mutex
	calls map[string]int
	reads map[string]int
}

func (c *countingAPI) countReads(key map[string]types.AttributeValue) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reads == nil {
		c.reads = map[string]int{}
	}
	for _, av := range key {
		if s, ok := av.(*types.AttributeValueMemberS); ok {
			c.reads[s.Value]++
		}
	}
}

// readsOf returns how many times a key holding the string value has been read.
func (c *countingAPI) readsOf(value string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads[value]
}

func (c *countingAPI) count(m string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[m]++
}

func (c *countingAPI) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.calls {
		out[k] = v
	}
	return out
}

func (c *countingAPI) DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	c.count("DescribeTable")
	return c.api.DescribeTable(ctx, in, o...)
}

func (c *countingAPI) ListTables(ctx context.Context, in *dynamodb.ListTablesInput, o ...func(*dynamodb.Options)) (*dynamodb.ListTablesOutput, error) {
	c.count("ListTables")
	return c.api.ListTables(ctx, in, o...)
}

func (c *countingAPI) CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, o ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	c.count("CreateTable")
	return c.api.CreateTable(ctx, in, o...)
}

func (c *countingAPI) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	c.count("Scan")
	return c.api.Scan(ctx, in, o...)
}

func (c *countingAPI) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.count("Query")
	return c.api.Query(ctx, in, o...)
}

func (c *countingAPI) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	c.count("BatchGetItem")
	for _, ka := range in.RequestItems {
		for _, key := range ka.Keys {
			c.countReads(key)
		}
	}
	return c.api.BatchGetItem(ctx, in, o...)
}

func (c *countingAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c.count("PutItem")
	return c.api.PutItem(ctx, in, o...)
}

func (c *countingAPI) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c.count("UpdateItem")
	return c.api.UpdateItem(ctx, in, o...)
}

func (c *countingAPI) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c.count("DeleteItem")
	return c.api.DeleteItem(ctx, in, o...)
}

func (c *countingAPI) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c.count("TransactWriteItems")
	return c.api.TransactWriteItems(ctx, in, o...)
}

func (c *countingAPI) UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	c.count("UpdateTimeToLive")
	return c.api.UpdateTimeToLive(ctx, in, o...)
}

func (c *countingAPI) DescribeTimeToLive(ctx context.Context, in *dynamodb.DescribeTimeToLiveInput, o ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	c.count("DescribeTimeToLive")
	return c.api.DescribeTimeToLive(ctx, in, o...)
}

func (c *countingAPI) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	c.count("TransactGetItems")
	for _, g := range in.TransactItems {
		c.countReads(g.Get.Key)
	}
	return c.api.TransactGetItems(ctx, in, o...)
}

var mutating = []string{"CreateTable", "PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems"}

// TestReadOnlyStoreSendsNoMutation: a store that may not write sends no
// mutating request for Execute or Seed (ErrReadOnly), while reads work.
func TestReadOnlyStoreSendsNoMutation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, model.LayoutSingle)
	f.put(f.healthy("ACCT#a", "a@x", "ada")...)
	before := f.state()
	counter := &countingAPI{api: f.client}
	ro := dynamo.NewStore(counter, f.store.Endpoint, f.store.Schema, clock.System())
	ro.SetWritable(true)
	ro.SetWritable(false)
	if ro.Writable() {
		t.Fatal("Writable after SetWritable(false)")
	}

	tx, err := ro.Writer.Prepare(must(t)(model.Planner{Schema: &ro.Schema}.Signup("ACCT#b", f.attrs("b@x", "bob"))), backend.NewToken())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.Writer.Execute(ctx, tx); !errors.Is(err, backend.ErrReadOnly) {
		t.Fatalf("Execute: %v, want ErrReadOnly", err)
	}
	if _, err := seed.Run(ctx, ro, seed.Options{Accounts: 3, Anomalies: true}); !errors.Is(err, backend.ErrReadOnly) {
		t.Fatalf("Seed into existing tables: %v, want ErrReadOnly", err)
	}
	missing := ro.Schema
	missing.Table = dynamotest.Name(t, "absent")
	t.Cleanup(func() { dynamotest.DeleteTables(t, f.client, missing.Table) })
	if _, err := seed.Run(ctx, dynamo.NewStore(counter, f.store.Endpoint, missing, clock.System()), seed.Options{Accounts: 1}); !errors.Is(err, backend.ErrReadOnly) {
		t.Fatalf("Seed of a missing table: %v, want ErrReadOnly", err)
	}

	// Reads still work.
	if r, err := ro.Checker.Check(ctx, nil); err != nil || r.Accounts != 1 || len(r.Problems) != 0 {
		t.Fatalf("check: %+v, %v", r, err)
	}
	if _, found, err := ro.Pages.Account(ctx, "ACCT#a"); err != nil || !found {
		t.Fatalf("account: %v, %v", found, err)
	}
	if _, err := ro.Writer.PlanDelete(ctx, "ACCT#a", nil, nil); err != nil {
		t.Fatalf("plan: %v", err)
	}

	calls := counter.snapshot()
	for _, m := range mutating {
		if calls[m] != 0 {
			t.Errorf("%d %s calls from a read-only store", calls[m], m)
		}
	}
	if calls["Scan"] == 0 || calls["BatchGetItem"] == 0 || calls["DescribeTable"] == 0 {
		t.Errorf("reads were not counted: %v", calls)
	}
	if got := f.state(); !slices.Equal(got, before) {
		t.Fatalf("tables changed:\n%q\n%q", before, got)
	}

	// The counter sees writes when they are allowed.
	ro.SetWritable(true)
	wantCommitted(t, execute(t, ro, must(t)(model.Planner{Schema: &ro.Schema}.Signup("ACCT#b", f.attrs("b@x", "bob")))))
	if n := counter.snapshot()["TransactWriteItems"]; n != 1 {
		t.Fatalf("%d TransactWriteItems counted after one writable Execute", n)
	}
}

// dropProxy stands between the SDK and dynoxide and loses
// TransactWriteItems: after forwarding them (the write happens, the answer
// never comes) or before (nothing happens).
type dropProxy struct {
	srv *httptest.Server
	rp  *httputil.ReverseProxy
	// dropAfter: how many TransactWriteItems to forward and then hang up
	// on; -1 for all. dropBefore: hang up on every one unforwarded.
	dropAfter  int
	dropBefore bool
	writes     atomic.Int32 // TransactWriteItems requests seen
	forwarded  atomic.Int32 // of which forwarded
	gets       atomic.Int32 // TransactGetItems requests seen
}

const (
	targetWrite = "DynamoDB_20120810.TransactWriteItems"
	targetGet   = "DynamoDB_20120810.TransactGetItems"
)

func newDropProxy(t *testing.T, dropAfter int, dropBefore bool) *dropProxy {
	t.Helper()
	u, err := url.Parse(dynamotest.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{rp: httputil.NewSingleHostReverseProxy(u), dropAfter: dropAfter, dropBefore: dropBefore}
	p.srv = httptest.NewServer(p)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *dropProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Header.Get("X-Amz-Target") {
	case targetGet:
		p.gets.Add(1)
	case targetWrite:
		n := int(p.writes.Add(1))
		switch {
		case p.dropBefore:
			hangUp(w, r)
			return
		case p.dropAfter < 0 || n <= p.dropAfter:
			rec := httptest.NewRecorder()
			p.rp.ServeHTTP(rec, r) // DynamoDB applies it; the answer is lost
			p.forwarded.Add(1)
			hangUp(w, r)
			return
		}
		p.forwarded.Add(1)
	}
	p.rp.ServeHTTP(w, r)
}

// hangUp closes the client's connection without an answer.
func hangUp(w http.ResponseWriter, r *http.Request) {
	_, _ = bytes.NewBuffer(nil).ReadFrom(r.Body)
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(err)
	}
	conn.Close()
}

// proxyStore is a writable store for f's tables whose client goes through p.
func proxyStore(t *testing.T, f fixture, p *dropProxy) *dynamo.Store {
	t.Helper()
	client, ep, err := dynamo.NewClient(context.Background(), dynamo.ClientOptions{EndpointURL: p.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	s := dynamo.NewStore(client, ep, f.store.Schema, clock.System())
	s.SetWritable(true)
	return s
}

func TestTxLostAnswers(t *testing.T) {
	cases := []struct {
		name       string
		dropAfter  int
		dropBefore bool
		outcome    model.Outcome
		code       string // the one reason's code, if any
		settled    bool   // TransactGetItems must have settled it
	}{
		{name: "first answer lost", dropAfter: 1, outcome: model.Committed},
		{name: "first two answers lost", dropAfter: 2, outcome: model.Committed},
		{name: "every answer lost", dropAfter: -1, outcome: model.Committed, settled: true},
		{name: "every request lost", dropBefore: true, outcome: model.Cancelled, code: "NotCommitted", settled: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, model.LayoutSingle)
			p := newDropProxy(t, c.dropAfter, c.dropBefore)
			s := proxyStore(t, f, p)
			var audit bytes.Buffer
			s.Audit = dynamo.NewAuditLog(&audit, clock.System())
			start := time.Now()
			res := execute(t, s, must(t)(model.Planner{Schema: &s.Schema}.Signup("ACCT#a", f.attrs("a@x", "ada"))))
			elapsed := time.Since(start)
			t.Logf("%s: outcome %s after %v; %d TransactWriteItems (%d forwarded), %d TransactGetItems",
				c.name, res.Outcome, elapsed.Round(time.Millisecond), p.writes.Load(), p.forwarded.Load(), p.gets.Load())
			if res.Outcome != c.outcome {
				t.Fatalf("outcome %s, reasons %+v; want %s", res.Outcome, res.Reasons, c.outcome)
			}
			var codes []string
			for _, r := range res.Reasons {
				codes = append(codes, r.Code)
			}
			if want := []string{c.code}; c.code == "" && len(codes) != 0 || c.code != "" && !slices.Equal(codes, want) {
				t.Fatalf("reasons %+v, want code %q", res.Reasons, c.code)
			}
			if c.dropAfter > 0 && p.writes.Load() <= int32(c.dropAfter) {
				t.Fatalf("%d TransactWriteItems: the lost answers were not retried", p.writes.Load())
			}
			if c.dropBefore && p.forwarded.Load() != 0 {
				t.Fatalf("%d requests forwarded", p.forwarded.Load())
			}
			if c.settled && p.gets.Load() == 0 {
				t.Fatal("no TransactGetItems: the outcome was not settled by reading the keys")
			}
			if elapsed > 20*time.Second {
				t.Errorf("took %v", elapsed)
			}
			if c.outcome == model.Committed {
				f.wantState(f.healthy("ACCT#a", "a@x", "ada")) // exactly once
			} else {
				f.wantState()
			}
			// The audit log has two lines: the intent, then the outcome,
			// each with the token and the keys.
			lines := strings.Split(strings.TrimSpace(audit.String()), "\n")
			if len(lines) != 2 {
				t.Fatalf("audit log %q: want an intent and an outcome line", audit.String())
			}
			for i, want := range []dynamo.AuditEntry{{Event: "intent"}, {Event: "outcome", Outcome: c.outcome}} {
				var line dynamo.AuditEntry
				if err := json.Unmarshal([]byte(lines[i]), &line); err != nil || line.Event != want.Event ||
					line.Outcome != want.Outcome || line.Token != res.Token || len(line.Keys) != 3 {
					t.Fatalf("audit line %d %q: want event %s, outcome %q, token %s, 3 keys", i, lines[i], want.Event, want.Outcome, res.Token)
				}
			}
		})
	}
}

// TestTxLostAnswerOfADelete: the settling read also recognises a delete
// whose every answer was lost.
func TestTxLostAnswerOfADelete(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutTables)
	f.put(f.healthy("dev-a", "m", "RC")...)
	f.put(f.healthy("dev-b", "m2", "RC2")...)
	p := newDropProxy(t, -1, false)
	s := proxyStore(t, f, p)
	plan, err := s.Writer.PlanDelete(context.Background(), "dev-a", nil, nil)
	res := execute(t, s, must(t)(plan, err))
	if res.Outcome != model.Committed || p.gets.Load() == 0 {
		t.Fatalf("outcome %s (%+v), %d TransactGetItems; want committed, settled by a read", res.Outcome, res.Reasons, p.gets.Load())
	}
	f.wantState(f.healthy("dev-b", "m2", "RC2"))
}
