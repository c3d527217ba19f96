package dynamo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// onlyProblem checks the table and wants exactly one problem, of kind.
func onlyProblem(t *testing.T, f fixture, kind model.ProblemKind) model.Problem {
	t.Helper()
	r := check(t, f.store)
	if len(r.Problems) != 1 || r.Problems[0].Kind != kind {
		t.Fatalf("problems %+v, want one %s", r.Problems, kind)
	}
	return r.Problems[0]
}

// TestRepairOfAnOwnerlessOrphanNeverDeletesALiveLock: between the check
// and the repair's delete, the orphan was deleted and an article-style
// signup (a lock without owner) re-created it for a new account. The
// delete, guarded only by attribute_not_exists(owner), still matched and
// removed the live lock (missing_lock afterwards). The repair claims the
// lock, finds the holder, and gives the lock back.
func TestRepairOfAnOwnerlessOrphanNeverDeletesALiveLock(t *testing.T) {
	for _, l := range layouts {
		t.Run(string(l), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			f := newFixture(t, l)
			z, fresh := f.id("z"), f.id("fresh")
			f.put(f.healthy(z, "z@x", "zed")...)
			f.put(f.lock(0, "aba@x.io", ""))
			p := onlyProblem(t, f, model.OrphanLock)
			rep, err := f.store.Writer.PlanRepair(ctx, p)
			if err != nil || rep.Skip != "" {
				t.Fatalf("plan: %v %q", err, rep.Skip)
			}
			tx, err := f.store.Writer.Prepare(rep.Plan, backend.NewToken())
			if err != nil {
				t.Fatal(err)
			}
			// Meanwhile: the orphan goes, and an article-style signup
			// takes the value with an ownerless lock.
			table, key := f.store.Schema.LockKey(0, "aba@x.io")
			if _, err := f.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: dynamo.ItemToSDK(keyItem(key))}); err != nil {
				t.Fatal(err)
			}
			f.put(f.account(fresh, "aba@x.io", "newbie"), f.lock(0, "aba@x.io", ""), f.lock(1, "newbie", ""))

			res, err := f.store.Writer.Execute(ctx, tx)
			if err != nil {
				t.Fatal(err)
			}
			if res.Outcome != model.Skipped || !strings.Contains(res.Note, fresh) || !strings.Contains(res.Note, "not an orphan") {
				t.Fatalf("outcome %s, note %q, reasons %+v; want skipped, naming the holder %s", res.Outcome, res.Note, res.Reasons, fresh)
			}
			f.wantState(f.healthy(z, "z@x", "zed"), []row{f.account(fresh, "aba@x.io", "newbie"), f.lock(0, "aba@x.io", ""), f.lock(1, "newbie", "")})
			f.noProblems()
		})
	}
}

// keyItem turns a key of strings into an item.
func keyItem(key map[string]string) model.Item {
	it := model.Item{}
	for k, v := range key {
		it[k] = model.S(v)
	}
	return it
}

// TestRepairOfAnOwnerlessOrphanClaimsThenDeletes: with nobody holding the
// value, the repair claims the lock, looks again and deletes it.
func TestRepairOfAnOwnerlessOrphanClaimsThenDeletes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, model.LayoutSingle)
	f.put(f.healthy("ACCT#z", "z@x", "zed")...)
	f.put(f.lock(1, "ghost", ""))
	p := onlyProblem(t, f, model.OrphanLock)
	rep, err := f.store.Writer.PlanRepair(ctx, p)
	if err != nil || rep.Plan.Reclaim == nil {
		t.Fatalf("plan %+v, err %v; want a reclaim", rep.Plan, err)
	}
	claim := rep.Plan.Actions[0]
	if claim.Role != model.RoleClaimLock || !model.IsClaim(claim.Set["owner"].S) {
		t.Fatalf("first action %+v; want the claim", claim)
	}
	res := execute(t, f.store, rep.Plan)
	wantCommitted(t, res)
	if !strings.HasPrefix(res.Note, "claimed the lock, found no holder of username ghost (consistent scan of the accounts, ") {
		t.Errorf("note %q; want what the three steps did", res.Note)
	}
	f.wantState(f.healthy("ACCT#z", "z@x", "zed"))
}

// TestRepairFinishesAnInterruptedClaim: a repair killed after its claim
// leaves a lock owned by locktable:reclaim:<token>. The check reports it
// by the usual rules, and repair finishes it: deleted when nobody holds
// the value, handed to the one holder when someone does.
func TestRepairFinishesAnInterruptedClaim(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, model.LayoutSingle)
	const left = model.ReclaimPrefix + "0123456789abcdef"
	f.put(f.healthy("ACCT#z", "z@x", "zed")...)
	f.put(f.lock(0, "gone@x", left))
	p := onlyProblem(t, f, model.OrphanLock)
	if p.Owner != left {
		t.Fatalf("orphan owner %q, want the claim", p.Owner)
	}
	rep, err := f.store.Writer.PlanRepair(ctx, p)
	if err != nil || rep.Plan.Reclaim == nil || !rep.Plan.Reclaim.Resume {
		t.Fatalf("plan %+v, err %v; want the claim resumed", rep.Plan, err)
	}
	wantCommitted(t, execute(t, f.store, rep.Plan))
	f.wantState(f.healthy("ACCT#z", "z@x", "zed"))

	// The value is held (by an account whose lock the claim took over).
	f.put(f.account("ACCT#h", "h@x", "hal"), f.lock(0, "h@x", left), f.lock(1, "hal", "ACCT#h"))
	p = onlyProblem(t, f, model.ForeignLock)
	rep, err = f.store.Writer.PlanRepair(ctx, p)
	if err != nil || rep.Skip != "" {
		t.Fatalf("plan: %v %q", err, rep.Skip)
	}
	wantCommitted(t, execute(t, f.store, rep.Plan))
	f.noProblems()
	f.wantHealthy("ACCT#h")
}

// TestRepairOfAClaimedOrphanWhoseValueIsHeld: the holder appears only
// after the check (a buggy signup without a lock); step 2 finds it and the
// lock is given back as it was.
func TestRepairOfAClaimedOrphanWhoseValueIsHeld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, model.LayoutTables)
	f.put(f.lock(1, "RC9", ""))
	p := onlyProblem(t, f, model.OrphanLock)
	rep, err := f.store.Writer.PlanRepair(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	f.put(f.account("dev-late", "", "RC9"))
	res := execute(t, f.store, rep.Plan)
	if res.Outcome != model.Skipped || !strings.Contains(res.Note, "dev-late") {
		t.Fatalf("outcome %s note %q; want skipped naming dev-late", res.Outcome, res.Note)
	}
	f.wantState([]row{f.account("dev-late", "", "RC9"), f.lock(1, "RC9", "")})
}

// TestLookupHoldersByIndex: with --index the lookup queries the GSI, says
// so, reads no table scan, and confirms each holder by a consistent read
// (an index entry whose account has moved on is not a holder).
func TestLookupHoldersByIndex(t *testing.T) {
	t.Parallel()
	client, ep := dynamotest.Client(t)
	sc := dynamotest.Rename(t, model.DefaultSchema(model.LayoutSingle))
	sc.Constraints[0].Index = "by-email"
	dynamotest.TableWithIndex(t, client, sc.Table, "by-email", "email", "", types.ProjectionTypeKeysOnly)
	dynamotest.Put(t, client, sc.Table,
		dynamotest.Account("ACCT#b", "bob@x.io", "bob"), dynamotest.Lock("UNIQ#HANDLE#bob", "ACCT#b"))
	hook := &hookAPI{API: client}
	store, err := dynamo.Open(context.Background(), hook, ep, sc, clock.System())
	if err != nil {
		t.Fatal(err)
	}
	email, user := backend.Wanted{Constraint: 0, Value: "bob@x.io"}, backend.Wanted{Constraint: 1, Value: "bob"}
	found, err := store.Lookup.LookupHolders(context.Background(), []backend.Wanted{email, user})
	if err != nil {
		t.Fatal(err)
	}
	if found.Method != "index by-email and consistent scan of the accounts" || hook.queries.Load() != 1 || hook.scans.Load() == 0 {
		t.Errorf("method %q, %d queries, %d scans", found.Method, hook.queries.Load(), hook.scans.Load())
	}
	if h := found.Holders[email]; len(h) != 1 || h[0] != "ACCT#b" || found.Locked[email] {
		t.Errorf("email holders %v locked %v; want ACCT#b, lock missing", h, found.Locked[email])
	}
	if h := found.Holders[user]; len(h) != 1 || !found.Locked[user] {
		t.Errorf("username holders %v locked %v; want ACCT#b, locked", h, found.Locked[user])
	}
	plan := must(t)(store.Schema.Signup("ACCT#n", map[string]string{"email": "bob@x.io", "username": "bob"}))
	taken := backend.TakenValues(plan, found)
	if len(taken) != 1 || taken[0].Slot != 1 || taken[0].Holders[0] != "ACCT#b" {
		t.Errorf("taken %+v; want the email only (the username's lock exists: the put refuses it)", taken)
	}
}
