package reliability

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/model"
)

// contentionWorkers is how many operations each round sends at once.
const contentionWorkers = 32

// op is one write of a round: a locktable plan sent through Send, or the
// article's own signup request sent as it is.
type op struct {
	role string     // what it is in its contest: "signup", "article", "rename", "owner", "other", "repair"
	plan model.Plan // for an article signup, the plan it was built from (owners stripped)
	raw  *dynamodb.TransactWriteItemsInput

	res    model.Result
	err    error
	rawErr error
}

func (o *op) send(ctx context.Context, e *env) {
	if o.raw != nil {
		_, o.rawErr = e.client.TransactWriteItems(ctx, o.raw)
		return
	}
	o.res, o.err = Send(ctx, e.store.Writer, o.plan)
}

func (o *op) committed() bool {
	if o.raw != nil {
		return o.rawErr == nil
	}
	return o.err == nil && o.res.Outcome == model.Committed
}

func (o *op) cancelled() bool {
	if o.raw != nil {
		var c *types.TransactionCanceledException
		return errors.As(o.rawErr, &c)
	}
	return o.err == nil && o.res.Outcome == model.Cancelled
}

// contest is a set of operations that race for some values of the first
// constraint, and the rule their commits obey.
type contest struct {
	name   string
	values []string // the contested values (normalized)
	ops    []*op
	// commits says what is wrong with the number of commits per role, or
	// "" when it is right.
	commits func(n map[string]int) string
}

func (c *contest) add(o *op) { c.ops = append(c.ops, o) }

func exactly(role string, want int) func(map[string]int) string {
	return func(n map[string]int) string {
		if n[role] != want {
			return fmt.Sprintf("%d %s commits, want exactly %d", n[role], role, want)
		}
		return ""
	}
}

// TestContention races 32 writers per round through locktable's own write
// path against dynoxide: signups for one value (in several spellings, and
// the article's ownerless signup among them), renames of different
// accounts to one value, swaps, 3-cycles, deletes racing renames, and
// repairs racing signups. After each round a consistent read of the tables
// must show exactly the commits the rules allow, each complete, no
// problem, and every cancellation explained slot by slot.
func TestContention(t *testing.T) {
	t.Parallel()
	// Six rounds bounded: each layout meets each kind of orphan owner.
	rounds := Scale(6, 200)
	fig := newFigures(t, "operations_run", "contested_values", "commits", "cancellations",
		"violations_contention_commits", "violations_contention_locks", "violations_contention_incomplete",
		"violations_contention_problems", "violations_contention_reasons", "violations_contention_errors",
		"violations_contention_unknown")
	envs := []*env{newEnv(t, model.LayoutSingle, lowerFirst), newEnv(t, model.LayoutTables)}
	start := time.Now()
	for r := range rounds {
		e := envs[r%len(envs)]
		contests := setupRound(t, e, r)
		runRound(t, e, contests)
		verifyRound(t, e, r, contests, fig)
	}
	t.Logf("%d rounds of %d writers in %v", rounds, contentionWorkers, time.Since(start).Round(time.Millisecond))
}

// setupRound writes what round r's contests start from and plans every
// operation, as the CLI plans before it asks for confirmation: the plans
// are built from the same loaded state, then sent at once.
func setupRound(t *testing.T, e *env, r int) []*contest {
	t.Helper()
	ctx := context.Background()
	s := e.schema()
	tag := roundTag(r)
	val := func(name string) string { return name + "-" + tag + "@x" }
	id := func(name string) string { return e.id(tag + "-" + name) }
	user := func(name string) string { return "u-" + tag + "-" + name }

	// The accounts the contests start from, each healthy.
	type acct struct{ name, v0 string }
	var seed []acct
	for i := range 6 {
		seed = append(seed, acct{fmt.Sprintf("ren%d", i), val(fmt.Sprintf("ren%d", i))})
	}
	seed = append(seed, acct{"swapA", val("swapa")}, acct{"swapB", val("swapb")})
	seed = append(seed, acct{"cycX", val("cycx")}, acct{"cycY", val("cycy")}, acct{"cycZ", val("cycz")})
	seed = append(seed, acct{"del", val("del")})
	for i := range 4 {
		seed = append(seed, acct{fmt.Sprintf("oth%d", i), val(fmt.Sprintf("oth%d", i))})
	}
	// The orphan's value o: its lock names a deleted account, an account
	// that now holds another value, or nobody, by round.
	o := val("orphan")
	orphanOwner := ""
	switch r % 3 {
	case 0:
		orphanOwner = id("gone")
	case 1:
		orphanOwner = id("moved")
		seed = append(seed, acct{"moved", val("moved")})
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, a := range seed {
		g.Go(func() error { return e.signup(gctx, id(a.name), a.v0, user(a.name)) })
	}
	g.Go(func() error { return e.putLock(gctx, 0, o, orphanOwner) })
	if err := g.Wait(); err != nil {
		t.Fatalf("round %d setup: %v", r, err)
	}

	must := func(p model.Plan, err error) model.Plan {
		t.Helper()
		if err != nil {
			t.Fatalf("round %d: plan: %v", r, err)
		}
		return p
	}
	rename := func(name, to string) *op {
		p, err := e.store.Writer.PlanRename(ctx, id(name), map[string]string{e.attr(0): to}, nil, nil)
		return &op{role: "rename", plan: must(p, err)}
	}
	signup := func(name, v0 string) *op {
		return &op{role: "signup", plan: must(s.Signup(id(name), e.attrs(v0, user(name))))}
	}
	article := func(name, v0 string) *op {
		p, in, err := e.articleSignup(id(name), e.attrs(v0, user(name)))
		return &op{role: "article", plan: must(p, err), raw: in}
	}
	norm := func(v string) string { return s.Constraints[0].Normalize.Apply(v) }

	// Signups for one value, spelled differently where the constraint
	// normalizes, and one article signup among them.
	race := &contest{name: "signups for one value", values: []string{norm(val("race"))}}
	race.commits = func(n map[string]int) string {
		if n["signup"]+n["article"] != 1 {
			return fmt.Sprintf("%d signups committed, want exactly 1", n["signup"]+n["article"])
		}
		return ""
	}
	capital := func(v string) string { return strings.ToUpper(v[:1]) + v[1:] }
	spell := []func(string) string{strings.ToUpper, capital, strings.ToLower, func(v string) string { return v }}
	if s.Constraints[0].Normalize == model.NormalizeNone {
		spell = spell[3:]
	}
	for i := range 8 {
		race.add(signup(fmt.Sprintf("race%d", i), spell[i%len(spell)](val("race"))))
	}
	race.add(article("race-article", val("race")))

	renames := &contest{name: "renames to one value", values: []string{norm(val("target"))}, commits: exactly("rename", 1)}
	for i := range 6 {
		renames.add(rename(fmt.Sprintf("ren%d", i), val("target")))
	}

	swap := &contest{name: "swap", values: []string{norm(val("swapa")), norm(val("swapb"))}, commits: exactly("rename", 0)}
	swap.add(rename("swapA", val("swapb")))
	swap.add(rename("swapB", val("swapa")))

	cycle := &contest{name: "3-cycle", values: []string{norm(val("cycx")), norm(val("cycy")), norm(val("cycz"))}, commits: exactly("rename", 0)}
	cycle.add(rename("cycX", val("cycy")))
	cycle.add(rename("cycY", val("cycz")))
	cycle.add(rename("cycZ", val("cycx")))

	// Deletes racing renames: the account is deleted and renamed at once
	// (exactly one wins), while four others rename to its value (at most
	// one wins, and only after the value was released).
	del := &contest{name: "delete racing renames", values: []string{norm(val("del"))}}
	del.commits = func(n map[string]int) string {
		if n["owner"] != 1 || n["other"] > 1 {
			return fmt.Sprintf("%d commits of the delete and rename of the account (want 1), %d of others taking its value (want at most 1)", n["owner"], n["other"])
		}
		return ""
	}
	pd, err := e.store.Writer.PlanDelete(ctx, id("del"), nil, nil)
	del.add(&op{role: "owner", plan: must(pd, err)})
	own := rename("del", val("del-renamed"))
	own.role = "owner"
	del.add(own)
	for i := range 4 {
		taker := rename(fmt.Sprintf("oth%d", i), val("del"))
		taker.role = "other"
		del.add(taker)
	}

	// Repairs racing signups: two repairs of the orphan, each planned by
	// PlanRepair after a check, race two locktable signups and two article
	// signups for its value. Exactly one repair commits; a signup only
	// after it, and at most one.
	rep := &contest{name: "repairs racing signups", values: []string{norm(o)}}
	rep.commits = func(n map[string]int) string {
		if n["repair"] != 1 || n["signup"]+n["article"] > 1 {
			return fmt.Sprintf("%d repairs committed (want 1), %d signups (want at most 1)", n["repair"], n["signup"]+n["article"])
		}
		return ""
	}
	report, err := e.store.Checker.Check(ctx, nil)
	if err != nil {
		t.Fatalf("round %d: check: %v", r, err)
	}
	var orphan *model.Problem
	for _, p := range report.Problems {
		if p.Kind == model.OrphanLock && p.Constraint == e.attr(0) && p.Value == o {
			orphan = &p
		}
	}
	if orphan == nil {
		t.Fatalf("round %d: the check does not report the planted orphan %s (owner %q): %+v", r, o, orphanOwner, report.Problems)
	}
	for range 2 {
		rp, err := e.store.Writer.PlanRepair(ctx, *orphan)
		if err != nil || rp.Skip != "" {
			t.Fatalf("round %d: plan the repair of %s: %v %s", r, o, err, rp.Skip)
		}
		rep.add(&op{role: "repair", plan: rp.Plan})
	}
	rep.add(signup("orph-signup0", o))
	rep.add(signup("orph-signup1", o))
	rep.add(article("orph-article0", o))
	rep.add(article("orph-article1", o))

	contests := []*contest{race, renames, swap, cycle, del, rep}
	n := 0
	for _, c := range contests {
		n += len(c.ops)
	}
	if n != contentionWorkers {
		t.Fatalf("round %d has %d operations, want %d", r, n, contentionWorkers)
	}
	return contests
}

// runRound sends every operation at once, one goroutine each.
func runRound(t *testing.T, e *env, contests []*contest) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, c := range contests {
		for _, o := range c.ops {
			wg.Go(func() {
				<-start
				o.send(ctx, e)
			})
		}
	}
	close(start)
	wg.Wait()
}

// verifyRound reads the tables consistently and counts what the rules of
// each contest forbid.
func verifyRound(t *testing.T, e *env, r int, contests []*contest, fig *Figures) {
	t.Helper()
	ctx := context.Background()
	s := e.schema()
	sn, err := e.snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	violation := func(kind, format string, a ...any) {
		t.Helper()
		fig.Add("violations_contention_"+kind, 1)
		t.Errorf("round %d (%s): "+format, append([]any{r, s.Layout}, a...)...)
	}
	tag := roundTag(r)
	for _, c := range contests {
		n := map[string]int{}
		var committedPlans []model.Plan
		for _, o := range c.ops {
			fig.Add("operations_run", 1)
			switch {
			case o.committed():
				n[o.role]++
				fig.Add("commits", 1)
				committedPlans = append(committedPlans, o.plan)
			case o.cancelled():
				fig.Add("cancellations", 1)
			case o.raw == nil && o.err == nil && o.res.Outcome == model.Skipped:
				fig.Add("skipped", 1)
			case o.raw != nil:
				violation("errors", "%s: article signup %v: %v", c.name, o.plan.Keys, o.rawErr)
			case o.err != nil:
				violation("errors", "%s: %s %v: %v", c.name, o.plan.Operation, o.plan.Keys, o.err)
			case o.res.Outcome == model.Unknown:
				violation("unknown", "%s: %s %v: outcome unknown with no fault injected: %+v", c.name, o.plan.Operation, o.plan.Keys, o.res.Reasons)
			}
			if o.raw == nil && o.cancelled() {
				if msg := explained(s, o, tag); msg != "" {
					violation("reasons", "%s: %s %v cancelled: %s", c.name, o.plan.Operation, o.plan.Keys, msg)
				}
			}
		}
		if msg := c.commits(n); msg != "" {
			violation("commits", "%s: %s", c.name, msg)
		}
		// Each contested value: at most one holder, and a lock exactly when
		// it has one, naming it (or nobody, after an article signup).
		for _, v := range c.values {
			fig.Add("contested_values", 1)
			holders := sn.holders(0, v)
			lock := sn.lock(0, v)
			switch {
			case len(holders) > 1:
				violation("locks", "%s: %s is held by %v", c.name, v, holders)
			case len(holders) == 1 && lock == nil:
				violation("locks", "%s: %s is held by %s, and its lock is missing", c.name, v, holders[0])
			case len(holders) == 1 && sn.owner(lock) != "" && sn.owner(lock) != holders[0]:
				violation("locks", "%s: %s is held by %s, and its lock names %s", c.name, v, holders[0], sn.owner(lock))
			case len(holders) == 0 && lock != nil:
				violation("locks", "%s: %s is held by nobody, and its lock (owner %q) is there", c.name, v, sn.owner(lock))
			}
		}
		for _, msg := range incomplete(sn, committedPlans) {
			violation("incomplete", "%s: %s", c.name, msg)
		}
	}
	report, err := e.store.Checker.Check(ctx, nil)
	if err != nil {
		t.Fatalf("round %d: check: %v", r, err)
	}
	for _, p := range report.Problems {
		if ofRound(p.Value, tag) || ofRound(p.Owner, tag) || slices.ContainsFunc(p.Accounts, func(a string) bool { return ofRound(a, tag) }) {
			violation("problems", "check reports %s %s=%s (accounts %v, owner %q)", p.Kind, p.Constraint, p.Value, p.Accounts, p.Owner)
		}
	}
}

// incomplete lists the effects of committed plans that the snapshot does
// not show. A key that several committed plans wrote shows the last: a
// lock released by one plan and taken by another shows the take, and two
// commits that take one lock are themselves wrong.
func incomplete(sn snapshot, plans []model.Plan) []string {
	type write struct {
		plan model.Plan
		act  model.Action
	}
	byKey := map[string][]write{}
	var keys []string
	for _, p := range plans {
		for _, a := range p.Actions {
			if a.Kind == model.ActCheck {
				continue
			}
			k := ref(a.Table, a.Key)
			if _, ok := byKey[k]; !ok {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], write{p, a})
		}
	}
	var out []string
	for _, k := range keys {
		ws := byKey[k]
		var puts []write
		for _, w := range ws {
			if w.act.Kind == model.ActPut {
				puts = append(puts, w)
			}
		}
		switch {
		case len(puts) > 1:
			out = append(out, fmt.Sprintf("%d committed plans put %s: %v and %v", len(puts), puts[0].act.KeyText(sn.s), puts[0].plan.Keys, puts[1].plan.Keys))
		case len(puts) == 1:
			out = append(out, notApplied(sn, puts[0].plan, puts[0].act)...)
		default:
			// Commits that release or change one item twice break the
			// rules of their contest, counted there; here each must show.
			for _, w := range ws {
				out = append(out, notApplied(sn, w.plan, w.act)...)
			}
		}
	}
	return out
}

// roundTag marks every account id (ACCT#r007-name) and value
// (name-r007@x) of round r.
func roundTag(r int) string { return fmt.Sprintf("r%03d", r) }

// ofRound reports whether an account id or value carries tag.
func ofRound(s, tag string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, tag+"-") || strings.Contains(s, "-"+tag+"@")
}

// notApplied says that action a of committed plan p does not show, if so.
func notApplied(sn snapshot, p model.Plan, a model.Action) []string {
	if p.Reclaim != nil {
		// A committed reclaim deleted the lock it claimed.
		a = model.Planner{Schema: sn.s}.DeleteClaimed(*p.Reclaim)
	}
	now := sn.at(a.Table, a.Key)
	if model.Applied(a, now) {
		return nil
	}
	b, _ := now.MarshalJSON()
	return []string{fmt.Sprintf("committed %s %v: %s, yet the table holds %s", p.Operation, p.Keys, a.Purpose(sn.s), b)}
}

// explained says what is wrong with the reasons of a cancelled operation,
// or "" when each names its slot and says in words which value or account
// stood in the way. tag marks the accounts of the round: a holder named
// must be one of them.
func explained(s *model.Schema, o *op, tag string) string {
	if len(o.res.Reasons) == 0 {
		return "no reasons"
	}
	for _, rs := range o.res.Reasons {
		if rs.Slot < 0 || rs.Slot >= len(o.plan.Actions) {
			return fmt.Sprintf("reason %+v has no slot of the plan", rs)
		}
		a := o.plan.Actions[rs.Slot]
		if rs.Code == "" {
			return fmt.Sprintf("slot %d: no code, message %q", rs.Slot, rs.Message)
		}
		if rs.Action != a.Purpose(s) {
			return fmt.Sprintf("slot %d names action %q, the plan's is %q", rs.Slot, rs.Action, a.Purpose(s))
		}
		subject := model.Printable(a.KeyText(s))
		if a.Role == model.RoleTakeLock {
			attr := s.Constraints[a.Constraint].Attr
			prefix := attr + " " + model.Printable(a.Value) + " is taken "
			holder, ok := strings.CutPrefix(rs.Message, prefix+"by ")
			switch {
			case rs.Message == prefix+"(its lock names no owner)",
				strings.HasPrefix(rs.Message, prefix+"(its lock is an orphan locktable is repairing: "+model.ReclaimPrefix):
			case ok && ofRound(holder, tag):
			default:
				return fmt.Sprintf("slot %d: %q does not name %s and a holder of the round", rs.Slot, rs.Message, a.Value)
			}
			continue
		}
		if !strings.Contains(rs.Message, subject) || strings.HasSuffix(rs.Message, "its condition failed") {
			return fmt.Sprintf("slot %d: %q does not say what happened to %s", rs.Slot, rs.Message, subject)
		}
	}
	return ""
}

// TestExplained: a cancellation passes only with a slot of the plan, the
// plan's action, a code, and words naming the value and a holder of the
// round (a holder lookup's refusal among them).
func TestExplained(t *testing.T) {
	t.Parallel()
	s := model.DefaultSchema(model.LayoutSingle)
	p, err := s.Signup("ACCT#r001-a", map[string]string{"email": "race-r001@x", "username": "u-a"})
	if err != nil {
		t.Fatal(err)
	}
	take, account := p.Actions[1].Purpose(&s), p.Actions[0].Purpose(&s)
	tag := roundTag(1)
	for _, c := range []struct {
		reasons []model.Reason
		ok      bool
	}{
		{[]model.Reason{{Slot: 1, Action: take, Code: "ConditionalCheckFailed", Message: "email race-r001@x is taken by ACCT#r001-b"}}, true},
		{[]model.Reason{{Slot: 1, Action: take, Code: "ConditionalCheckFailed", Message: "email race-r001@x is taken (its lock names no owner)"}}, true},
		{[]model.Reason{{Slot: 0, Action: account, Code: "ConditionalCheckFailed", Message: "account ACCT#r001-a already exists"}}, true},
		{[]model.Reason{{Slot: 1, Action: take, Code: "HeldWithoutLock", Message: "email race-r001@x is taken by ACCT#r001-b, whose lock is missing"}}, true},
		{[]model.Reason{{Slot: 1, Action: take, Message: "email race-r001@x is taken by ACCT#r001-b"}}, false},
		{nil, false},
		{[]model.Reason{{Slot: -1, Code: "TransactionCanceled", Message: "cancelled"}}, false},
		{[]model.Reason{{Slot: 1, Action: take, Code: "TransactionConflict", Message: "conflict"}}, false},
		{[]model.Reason{{Slot: 1, Action: account, Code: "ConditionalCheckFailed", Message: "email race-r001@x is taken by ACCT#r001-b"}}, false},
		{[]model.Reason{{Slot: 1, Action: take, Code: "ConditionalCheckFailed", Message: "email race-r001@x is taken by ACCT#r002-b"}}, false},
		{[]model.Reason{{Slot: 1, Action: take, Code: "ConditionalCheckFailed", Message: take + ": its condition failed"}}, false},
		{[]model.Reason{{Slot: 0, Action: account, Code: "ConditionalCheckFailed", Message: model.Printable(account) + ": its condition failed"}}, false},
	} {
		msg := explained(&s, &op{plan: p, res: model.Result{Outcome: model.Cancelled, Reasons: c.reasons}}, tag)
		if (msg == "") != c.ok {
			t.Errorf("reasons %+v: %q; want ok %v", c.reasons, msg, c.ok)
		}
	}
}
