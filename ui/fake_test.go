package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
)

// journaled gives store an undo journal of its own, in a directory the
// test removes.
func journaled(t *testing.T, store *dynamo.Store) {
	t.Helper()
	journal, file, err := dynamo.OpenUndoJournal(filepath.Join(t.TempDir(), "audit.log.undo"), clock.System())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	store.Undo = journal
}

// TestFakeAnswersAsTheStore: the in-memory backend the Update tests run on
// answers what the store answers on dynoxide, for the planted table: the
// pages, the check, lookups, repair plans and their actions, a cancelled
// write's reasons and a committed one's effect, the repairs of ownerless
// orphans, and the undo of each write from the journal. Tests on the fake
// stand for tests on the store only while this holds. Only what is random
// is normalized: a claim's or a token's value, never whether it is there.
func TestFakeAnswersAsTheStore(t *testing.T) {
	t.Parallel()
	store, _ := planted(t)
	journaled(t, store)
	f := uitest.New(store.Schema) // the same table name: texts compare equal
	f.Put(store.Schema.Table, plantedItems()...)
	// One clock for both: the views carry the second they were judged at,
	// which two reads a second apart would not share.
	at := time.Now()
	store.Clock, f.Clock = clock.Fixed(at), clock.Fixed(at)
	ctx := context.Background()
	same := func(what string, get func(Roles) any) {
		t.Helper()
		want, got := get(roles(store)), get(roles(f))
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s:\nstore %#v\nfake  %#v", what, want, got)
		}
	}

	same("accounts", func(b Roles) any {
		var all []model.AccountView
		for next := (backend.Cursor{}); !next.Done(); {
			page, err := b.Pages.AccountsPage(ctx, next, 3, false)
			if err != nil {
				t.Fatal(err)
			}
			all, next = append(all, page.Accounts...), page.Next
		}
		return all
	})
	// The first page in two (Open): the accounts without their locks,
	// then judged as a page of them is.
	same("first accounts, then their locks", func(b Roles) any {
		var p FirstPager = uitest.NewFirst(f)
		if pages, ok := b.Pages.(*dynamo.Pages); ok {
			p = pages
		}
		first, err := p.FirstAccounts(ctx, 3)
		if err != nil {
			t.Fatal(err)
		}
		items := make([]model.Item, len(first.Accounts))
		for i, a := range first.Accounts {
			items[i] = a.Item
		}
		judged, err := p.JudgeAccounts(ctx, items)
		if err != nil {
			t.Fatal(err)
		}
		page, err := b.Pages.AccountsPage(ctx, backend.Cursor{}, len(first.Accounts), false)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(judged, page.Accounts) {
			t.Errorf("the first accounts judged:\n%#v\nare not the page's:\n%#v", judged, page.Accounts)
		}
		return first.Accounts[:3] // at least 3: the store reads ahead of the fake
	})
	same("locks", func(b Roles) any {
		page, err := b.Pages.LocksPage(ctx, backend.Cursor{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return page.Locks
	})
	report, err := store.Checker.Check(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	same("check", func(b Roles) any {
		r, err := b.Check.Check(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.ConsumedRCU = 0 // the fake consumes no capacity
		return r
	})
	same("holders of carol", func(b Roles) any {
		ids, err := b.Lookup.(backend.Finder).Holders(ctx, []int{0, 1}, "carol", nil) // what Find builds on
		if err != nil {
			t.Fatal(err)
		}
		return ids
	})
	known := func(ci int, v string) []string {
		if ci == 0 && v == "dup@x.io" {
			return []string{"ACCT#d4", "ACCT#e5"}
		}
		return nil
	}
	for _, q := range []string{"a1", "ACCT#f6", "UNIQ#EMAIL#ada@x.io", "UNIQ#HANDLE#ghost", "ADA", "carol", "carol@x.io", "old@x.io", "dup@x.io", "Nobody"} {
		for _, o := range []backend.FindOptions{{}, {Known: known}} {
			same(fmt.Sprintf("find %s (known %v)", q, o.Known != nil), func(b Roles) any {
				f, err := b.Lookup.Find(ctx, q, o)
				if err != nil {
					t.Fatal(err)
				}
				return f
			})
		}
	}
	wanted := []backend.Wanted{{Constraint: 0, Value: "dup@x.io"}, {Constraint: 1, Value: "bob"}, {Constraint: 1, Value: "nobody"}}
	same("holder lookup", func(b Roles) any {
		l, err := b.Writer.LookupHolders(ctx, wanted)
		if err != nil {
			t.Fatal(err)
		}
		return []any{l.Holders, l.Locked, l.Owners}
	})
	for _, p := range report.Problems {
		same("repair of "+string(p.Kind)+" "+p.Value, func(b Roles) any {
			r, err := b.Writer.PlanRepair(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			unclaim(&r.Plan)
			return r
		})
	}

	// send sends plan p with token; it fails the test when p could not be
	// planned (err) or sent.
	send := func(b Roles, p model.Plan, err error, token string) model.Result {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		tx, err := b.Writer.Prepare(p, token)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Writer.Execute(ctx, tx)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// A rename of ACCT#a1 to bob@x.io is cancelled: the lock is taken.
	write := func(b Roles, changes map[string]string) model.Result {
		p, err := b.Writer.PlanRename(ctx, "ACCT#a1", changes, nil, nil)
		return send(b, p, err, "token-"+changes["email"])
	}
	same("a cancelled rename", func(b Roles) any { return write(b, map[string]string{"email": "bob@x.io"}) })
	same("a committed rename", func(b Roles) any { return write(b, map[string]string{"email": "ada@analytical.engine"}) })
	same("the account after it", func(b Roles) any {
		a, _, err := b.Pages.Account(ctx, "ACCT#a1")
		if err != nil {
			t.Fatal(err)
		}
		return a
	})

	// Undo, from each backend's journal: of the committed rename, of the
	// cancelled one (nothing to undo), of a token never sent; then the
	// undo sent, and the rename's undo planned again (undone already) and
	// the undo's own.
	undo := func(b Roles, token string) any {
		p, err := b.Writer.UndoFrom(ctx, "", token)
		return []any{p, errText(err)}
	}
	same("the undo of the committed rename", func(b Roles) any { return undo(b, "token-ada@analytical.engine") })
	same("the undo of the cancelled rename", func(b Roles) any { return undo(b, "token-bob@x.io") })
	same("the undo of a token never sent", func(b Roles) any { return undo(b, "token-nobody") })
	same("the undo sent", func(b Roles) any {
		p, err := b.Writer.UndoFrom(ctx, "", "token-ada@analytical.engine")
		return send(b, p, err, "token-undo")
	})
	same("the rename's undo, undone already", func(b Roles) any { return undo(b, "token-ada@analytical.engine") })
	same("the undo's undo", func(b Roles) any { return undo(b, "token-undo") })

	// The repairs of the ownerless orphans run their three steps: ghost's
	// lock is deleted, carol's given back (carol holds it). The result's
	// token is the last step's; what each step changed can be undone.
	for _, p := range report.Problems {
		if p.Kind != model.OrphanLock || p.Owner != "" {
			continue
		}
		same("the repair of "+p.Value+" sent, and its undo", func(b Roles) any {
			r, err := b.Writer.PlanRepair(ctx, p)
			if err != nil || r.Plan.Reclaim == nil {
				t.Fatalf("the repair of %s: %v, %+v", p.Value, err, r)
			}
			token := "token-repair-" + p.Value
			res := send(b, r.Plan, nil, token)
			last := res.Token
			if res.Token != "" && res.Token != token {
				res.Token = "a token of its own"
			}
			claimUndo, err := b.Writer.UndoFrom(ctx, "", token)
			unclaim(&claimUndo)
			lastUndo, lerr := b.Writer.UndoFrom(ctx, "", last)
			if last != token {
				lastUndo.Undoes = strings.ReplaceAll(lastUndo.Undoes, last, "TOKEN")
				lastUndo.Note = strings.ReplaceAll(lastUndo.Note, last, "TOKEN")
			}
			unclaim(&lastUndo)
			return []any{res, claimUndo, errText(err), lastUndo, errText(lerr)}
		})
	}
}

// unclaim writes a reclaim's claim, a fresh token each time, as CLAIM
// wherever the plan holds it: the value, not whether it is there.
func unclaim(p *model.Plan) {
	claim := ""
	for _, a := range p.Actions {
		if model.IsClaim(a.Account) {
			claim = a.Account
		}
		for _, c := range a.Conds {
			if model.IsClaim(c.Value.S) {
				claim = c.Value.S
			}
		}
	}
	if p.Reclaim != nil {
		claim = p.Reclaim.Claim
		p.Reclaim.Claim = model.ReclaimPrefix + "CLAIM"
	}
	if claim == "" {
		return
	}
	swap := func(v string) string { return strings.ReplaceAll(v, claim, model.ReclaimPrefix+"CLAIM") }
	p.MustType, p.Note = swap(p.MustType), swap(p.Note)
	for i := range p.Keys {
		p.Keys[i] = swap(p.Keys[i])
	}
	for i := range p.Actions {
		a := &p.Actions[i]
		a.Account = swap(a.Account)
		for k, v := range a.Set {
			v.S = swap(v.S)
			a.Set[k] = v
		}
		for k, v := range a.Item {
			v.S = swap(v.S)
			a.Item[k] = v
		}
		for j := range a.Conds {
			a.Conds[j].Value.S = swap(a.Conds[j].Value.S)
		}
	}
}

// TestFakeJudgesTTLsAsTheStore: on a table with TTLs (dynamotest.TTLItems, its TTL
// attribute enabled on dynoxide) the fake judges the accounts' locks,
// lists the lock items with their TTLs, checks and plans the TTL repairs
// as the store does, both at one clock, at each clock case: the UI tests
// of TTLs on the fake stand for the store.
func TestFakeJudgesTTLsAsTheStore(t *testing.T) {
	t.Parallel()
	clocktest.Each(t, fakeJudgesTTLsAsTheStore)
}

func fakeJudgesTTLsAsTheStore(t *testing.T, now time.Time) {
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.TTLAttr, sc.TTLGiven = "ttl", true
	store, client := dynamotest.Store(t, sc)
	store.Endpoint = testEndpoint
	dynamotest.Put(t, client, store.Schema.Table, dynamotest.TTLItems(now)...)
	f := uitest.New(store.Schema)
	store.Clock, f.Clock = clock.Fixed(now), clock.Fixed(now)
	f.Put(store.Schema.Table, dynamotest.TTLItems(now)...)
	ctx := context.Background()
	same := func(what string, get func(Roles) any) {
		t.Helper()
		if want, got := get(roles(store)), get(roles(f)); !reflect.DeepEqual(want, got) {
			t.Errorf("%s:\nstore %#v\nfake  %#v", what, want, got)
		}
	}
	same("accounts", func(b Roles) any {
		page, err := b.Pages.AccountsPage(ctx, backend.Cursor{}, 100, false)
		if err != nil {
			t.Fatal(err)
		}
		for i := range page.Accounts {
			if a := page.Accounts[i].Now; a != now.Unix() {
				t.Errorf("%s judged at %d, want %d", page.Accounts[i].ID, a, now.Unix())
			}
		}
		return page.Accounts
	})
	same("locks", func(b Roles) any {
		page, err := b.Pages.LocksPage(ctx, backend.Cursor{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		return page.Locks
	})
	var report model.Report
	same("check", func(b Roles) any {
		r, err := b.Check.Check(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.ConsumedRCU, r.Now, report = 0, 0, r
		return r
	})
	if len(report.Problems) != 3 || report.Reservations != 1 {
		t.Fatalf("the check found %d problems and %d reservations, want 3 and 1: %+v", len(report.Problems), report.Reservations, report)
	}
	for _, p := range report.Problems {
		same("repair of "+string(p.Kind)+" "+p.Value, func(b Roles) any {
			r, err := b.Writer.PlanRepair(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			for i := range r.Plan.Actions { // the delete's :now is each backend's
				for j, c := range r.Plan.Actions[i].Conds {
					if c.Kind == model.CondNotAfter {
						r.Plan.Actions[i].Conds[j].Value = model.N("NOW")
					}
				}
			}
			return r
		})
	}
}
