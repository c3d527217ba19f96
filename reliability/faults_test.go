package reliability

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// faultCase is one way the network fails an operation.
type faultCase struct {
	name  string
	fault Fault
	// downFor takes the proxy down for that long just before the send:
	// the connection is refused from the first attempt.
	downFor time.Duration
	// deadline is the caller's deadline; 0 leaves two minutes.
	deadline time.Duration
}

// everyCall is every operation a send may make: the write, the reads
// that settle it, and those of a holder lookup before it.
var everyCall = []Target{TransactWriteItems, TransactGetItems, BatchGetItem, Scan, Query}

var faultCases = []faultCase{
	{name: "none"},
	{name: "reset before forwarding", fault: Fault{Kind: ResetBefore, Times: 1}},
	{name: "reset before forwarding, every write", fault: Fault{Kind: ResetBefore, Times: -1}},
	{name: "reset after forwarding", fault: Fault{Kind: ResetAfter, Times: 1}},
	{name: "reset after forwarding, a whole SDK call", fault: Fault{Kind: ResetAfter, Times: 5}},
	{name: "reset after forwarding, reads too", fault: Fault{Kind: ResetAfter, Times: -1, Targets: everyCall}},
	{name: "timeout: answer held past the deadline", fault: Fault{Kind: Timeout, Times: 1, Delay: 2500 * time.Millisecond}, deadline: time.Second},
	{name: "latency", fault: Fault{Kind: Latency, Times: -1, Delay: 150 * time.Millisecond, Targets: everyCall}},
	{name: "body cut", fault: Fault{Kind: CutBody, Times: 1}},
	{name: "body cut, reads too", fault: Fault{Kind: CutBody, Times: -1, Targets: everyCall}},
	{name: "garbage 2xx (not JSON)", fault: Fault{Kind: Garbage2xx, Times: 1}},
	{name: "garbage 2xx (truncated JSON)", fault: Fault{Kind: Truncated, Times: 1}},
	{name: "proxy down at the write", fault: Fault{Kind: Down, Times: 1, Delay: time.Second}},
	{name: "proxy down before the send", downFor: 1500 * time.Millisecond},
	{name: "proxy down past every retry", fault: Fault{Kind: Down, Times: 1, Delay: 6 * time.Second}},
}

// faultOp is one guarded operation on accounts of its own, planned before
// any fault, and what became of it.
type faultOp struct {
	n     int
	env   *env
	kind  string
	fc    faultCase
	plan  model.Plan
	res   model.Result
	err   error
	seen  []Event
	taken time.Duration
}

// opKinds builds the operations: each writes what it starts from with no
// fault and returns the plan. Those named "taken" are cancelled by a
// blocker that holds the value.
var opKinds = []struct {
	name  string
	build func(ctx context.Context, e *env, n string) (model.Plan, error)
}{
	{"signup", func(ctx context.Context, e *env, n string) (model.Plan, error) {
		return e.schema().Signup(e.id(n), e.attrs(n+"@x", "u-"+n))
	}},
	{"signup of a taken value", func(ctx context.Context, e *env, n string) (model.Plan, error) {
		if err := e.signup(ctx, e.id(n+"-blocker"), n+"@x", "u-"+n+"-blocker"); err != nil {
			return model.Plan{}, err
		}
		return e.schema().Signup(e.id(n), e.attrs(n+"@x", "u-"+n))
	}},
	{"rename", func(ctx context.Context, e *env, n string) (model.Plan, error) {
		if err := e.signup(ctx, e.id(n), n+"@x", "u-"+n); err != nil {
			return model.Plan{}, err
		}
		return e.store.Writer.PlanRename(ctx, e.id(n), map[string]string{e.attr(0): n + "-new@x"}, nil, nil)
	}},
	{"rename to a taken value", func(ctx context.Context, e *env, n string) (model.Plan, error) {
		if err := e.signup(ctx, e.id(n), n+"@x", "u-"+n); err != nil {
			return model.Plan{}, err
		}
		if err := e.signup(ctx, e.id(n+"-blocker"), n+"-new@x", "u-"+n+"-blocker"); err != nil {
			return model.Plan{}, err
		}
		return e.store.Writer.PlanRename(ctx, e.id(n), map[string]string{e.attr(0): n + "-new@x"}, nil, nil)
	}},
	{"delete", func(ctx context.Context, e *env, n string) (model.Plan, error) {
		if err := e.signup(ctx, e.id(n), n+"@x", "u-"+n); err != nil {
			return model.Plan{}, err
		}
		return e.store.Writer.PlanDelete(ctx, e.id(n), nil, nil)
	}},
	{"repair orphan naming an owner", func(ctx context.Context, e *env, n string) (model.Plan, error) {
		if err := e.putLock(ctx, 0, n+"@x", e.id(n+"-gone")); err != nil {
			return model.Plan{}, err
		}
		return e.repair(ctx, e.schema().LockProblem(model.OrphanLock, 0, n+"@x", e.id(n+"-gone")))
	}},
	{"repair ownerless orphan", func(ctx context.Context, e *env, n string) (model.Plan, error) {
		if err := e.putLock(ctx, 0, n+"@x", ""); err != nil {
			return model.Plan{}, err
		}
		return e.repair(ctx, e.schema().LockProblem(model.OrphanLock, 0, n+"@x", ""))
	}},
	{"repair missing lock", func(ctx context.Context, e *env, n string) (model.Plan, error) {
		if err := e.putAccount(ctx, e.id(n), e.attrs(n+"@x", "u-"+n)); err != nil {
			return model.Plan{}, err
		}
		if err := e.putLock(ctx, 1, "u-"+n, e.id(n)); err != nil {
			return model.Plan{}, err
		}
		return e.repair(ctx, e.schema().HolderProblem(model.MissingLock, 0, n+"@x", "", []string{e.id(n)}))
	}},
	{"repair foreign lock", func(ctx context.Context, e *env, n string) (model.Plan, error) {
		if err := e.putAccount(ctx, e.id(n), e.attrs(n+"@x", "u-"+n)); err != nil {
			return model.Plan{}, err
		}
		if err := e.putLock(ctx, 1, "u-"+n, e.id(n)); err != nil {
			return model.Plan{}, err
		}
		if err := e.putLock(ctx, 0, n+"@x", e.id(n+"-former")); err != nil {
			return model.Plan{}, err
		}
		return e.repair(ctx, e.schema().HolderProblem(model.ForeignLock, 0, n+"@x", e.id(n+"-former"), []string{e.id(n)}))
	}},
}

// repair plans the repair of p as `locktable repair` does after its check.
func (e *env) repair(ctx context.Context, p model.Problem) (model.Plan, error) {
	r, err := e.store.Writer.PlanRepair(ctx, p)
	if err == nil && r.Skip != "" {
		err = fmt.Errorf("repair of %s %s left to a person: %s", p.Kind, p.Value, r.Skip)
	}
	return r.Plan, err
}

// TestNetworkFaults sends guarded operations, each on accounts of its
// own, through a proxy that fails the network in one way per operation,
// then compares every reported outcome with what consistent reads of the
// tables show. A commit reported as anything but committed or unknown, a
// commit reported that did not happen, an unknown outcome without its
// token, a refusal after the request left, a retry under another token,
// and a problem the writes created are violations.
func TestNetworkFaults(t *testing.T) {
	t.Parallel()
	total := Scale(100, 1000)
	workers := Scale(8, 16)
	fig := newFigures(t, "operations_run", "faults_injected", "outcomes_compared", "outcomes_unknown",
		"violations_faults_committed_reported_not_committed", "violations_faults_reported_committed_not_committed",
		"violations_faults_unknown_without_token", "violations_faults_refused_after_sending",
		"violations_faults_token_changed", "violations_faults_partial", "violations_faults_problems_created")
	ctx := context.Background()
	envs := []*env{newEnv(t, model.LayoutSingle), newEnv(t, model.LayoutTables)}

	// Build every operation with no fault.
	ops := make([]*faultOp, total)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i := range ops {
		j := i / len(envs)
		c := j % len(faultCases)
		k := (j + j/len(faultCases)) % len(opKinds)
		o := &faultOp{n: i, env: envs[i%len(envs)], kind: opKinds[k].name, fc: faultCases[c]}
		ops[i] = o
		g.Go(func() error {
			var err error
			o.plan, err = opKinds[k].build(gctx, o.env, fmt.Sprintf("op%04d", i))
			if err != nil {
				return fmt.Errorf("operation %d (%s): %w", i, o.kind, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	before := map[*env]map[string]bool{}
	for _, e := range envs {
		before[e] = problemSet(t, e)
	}

	// Send them, each worker through a proxy of its own.
	start := time.Now()
	queue := make(chan *faultOp)
	var wg sync.WaitGroup
	var injected sync.Map
	for w := range workers {
		p, err := NewFaultProxy(dynamotest.Endpoint(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		client, ep, err := dynamo.NewClient(ctx, dynamo.ClientOptions{EndpointURL: p.URL()})
		if err != nil {
			t.Fatal(err)
		}
		stores := map[*env]*dynamo.Store{}
		for _, e := range envs {
			s := dynamo.NewStore(client, ep, e.store.Schema, clock.System())
			s.SetWritable(true)
			stores[e] = s
		}
		wg.Go(func() {
			downs := int64(0)
			for o := range queue {
				for p.IsDown() {
					time.Sleep(20 * time.Millisecond)
				}
				p.Set(o.fc.fault)
				if o.fc.downFor > 0 {
					p.GoDown(o.fc.downFor)
					downs++
				}
				deadline := o.fc.deadline
				if deadline == 0 {
					deadline = 2 * time.Minute
				}
				octx, cancel := context.WithTimeout(ctx, deadline)
				t0 := time.Now()
				o.res, o.err = Send(octx, stores[o.env].Writer, o.plan)
				o.taken = time.Since(t0)
				cancel()
				o.seen = p.Events()
			}
			injected.Store(w, p.Injected()+downs)
		})
	}
	for _, o := range ops {
		queue <- o
	}
	close(queue)
	wg.Wait()
	// Answers held past a deadline may still be on their way; the
	// requests themselves were applied before the hold.
	t.Logf("%d operations through %d proxies in %v", total, workers, time.Since(start).Round(time.Millisecond))
	injected.Range(func(_, v any) bool { fig.Add("faults_injected", v.(int64)); return true })

	compareOutcomes(t, ctx, envs, ops, before, fig)
}

// problemSet is the problems a check reports, by kind, constraint and value.
func problemSet(t *testing.T, e *env) map[string]bool {
	t.Helper()
	r, err := e.store.Checker.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]bool{}
	for _, p := range r.Problems {
		set[problemKey(p)] = true
	}
	return set
}

// compareOutcomes reads the tables and compares each operation's reported
// outcome with them, then the problems with those before.
func compareOutcomes(t *testing.T, ctx context.Context, envs []*env, ops []*faultOp, before map[*env]map[string]bool, fig *Figures) {
	t.Helper()
	snaps := map[*env]snapshot{}
	for _, e := range envs {
		sn, err := e.snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		snaps[e] = sn
	}
	const shown = 3 // examples printed per violation and fault
	examples := map[string]int{}
	violation := func(o *faultOp, name, format string, a ...any) {
		t.Helper()
		fig.Add("violations_faults_"+name, 1)
		key := name + "/" + o.fc.name
		if examples[key]++; examples[key] <= shown {
			t.Errorf("%s, %s (%s), %s: "+format, append([]any{o.fc.name, o.kind, o.env.schema().Layout, o.plan.Keys[0]}, a...)...)
		}
	}
	// matrix[fault][reported -> table] counts, for the log.
	matrix := map[string]map[string]int{}
	for _, o := range ops {
		fig.Add("operations_run", 1)
		fig.Add("outcomes_compared", 1)
		all, none := snaps[o.env].applied(o.plan)
		truth := "committed"
		switch {
		case !all && none:
			truth = "not committed"
		case !all:
			truth = "partly applied"
			violation(o, "partial", "the table shows some of its writes and not others")
		}
		reported := string(o.res.Outcome)
		if o.err != nil {
			reported = "error"
		}
		if matrix[o.fc.name] == nil {
			matrix[o.fc.name] = map[string]int{}
		}
		matrix[o.fc.name][reported+" -> "+truth]++

		sent := slices.ContainsFunc(o.seen, func(e Event) bool { return e.Target == TransactWriteItems })
		switch {
		case (o.err != nil || o.res.Outcome == model.Cancelled) && all:
			violation(o, "committed_reported_not_committed", "reported %s (%v), yet the table shows it committed", reported, describe(o))
		case o.err == nil && o.res.Outcome == model.Committed && !all:
			violation(o, "reported_committed_not_committed", "reported committed, yet the table shows it %s", truth)
		}
		if o.err != nil && sent {
			violation(o, "refused_after_sending", "returned an error (%v) after the request left (%d TransactWriteItems seen)", o.err, countWrites(o.seen))
		}
		if o.res.Outcome == model.Unknown {
			fig.Add("outcomes_unknown", 1)
			if o.res.Token == "" {
				violation(o, "unknown_without_token", "outcome unknown without its token")
			}
		}
		// Every attempt of a transaction carries its one token. A reclaim
		// is two transactions (the claim, then the delete or give-back),
		// and its result carries the last one's.
		tokens := map[string]bool{}
		for _, e := range o.seen {
			if e.Target == TransactWriteItems {
				tokens[e.Token] = true
			}
		}
		steps := 1
		if o.plan.Reclaim != nil {
			steps = 2
		}
		if len(tokens) > steps || len(tokens) > 0 && !tokens[o.res.Token] {
			violation(o, "token_changed", "TransactWriteItems carried tokens %v; the result says %q", slices.Sorted(maps.Keys(tokens)), o.res.Token)
		}
	}
	for _, e := range envs {
		after := problemSet(t, e)
		for _, k := range slices.Sorted(maps.Keys(after)) {
			if !before[e][k] {
				fig.Add("violations_faults_problems_created", 1)
				t.Errorf("%s: the writes created a problem: %s", e.schema().Layout, k)
			}
		}
	}
	var b strings.Builder
	for _, fc := range faultCases {
		fmt.Fprintf(&b, "\n  %-42s", fc.name)
		for _, k := range slices.Sorted(maps.Keys(matrix[fc.name])) {
			fmt.Fprintf(&b, "  %s: %d;", k, matrix[fc.name][k])
		}
	}
	t.Logf("reported -> table, per fault:%s", b.String())
}

func describe(o *faultOp) string {
	if o.err != nil {
		return o.err.Error()
	}
	var codes []string
	for _, r := range o.res.Reasons {
		codes = append(codes, r.Code+": "+r.Message)
	}
	return strings.Join(codes, "; ")
}

func countWrites(evs []Event) int {
	n := 0
	for _, e := range evs {
		if e.Target == TransactWriteItems {
			n++
		}
	}
	return n
}
