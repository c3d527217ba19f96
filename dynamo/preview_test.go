package dynamo_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/dynamo/export/exporttest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/model"
)

// condTerms read each ANDed term of a ConditionExpression as the expression
// builder writes it, with its names and values resolved.
var condTerms = []struct {
	re   *regexp.Regexp
	cond func(m []string, names map[string]string, values map[string]types.AttributeValue) model.Cond
}{
	{regexp.MustCompile(`^attribute_not_exists \((#\w+)\)$`), func(m []string, n map[string]string, _ map[string]types.AttributeValue) model.Cond {
		return model.Cond{Kind: model.CondNotExists, Attr: n[m[1]]}
	}},
	{regexp.MustCompile(`^attribute_exists \((#\w+)\)$`), func(m []string, n map[string]string, _ map[string]types.AttributeValue) model.Cond {
		return model.Cond{Kind: model.CondExists, Attr: n[m[1]]}
	}},
	{regexp.MustCompile(`^(#\w+) = (:\w+)$`), func(m []string, n map[string]string, v map[string]types.AttributeValue) model.Cond {
		return model.Cond{Kind: model.CondEquals, Attr: n[m[1]], Value: value(v[m[2]])}
	}},
	{regexp.MustCompile(`^(#\w+) <= (:\w+)$`), func(m []string, n map[string]string, v map[string]types.AttributeValue) model.Cond {
		return model.Cond{Kind: model.CondNotAfter, Attr: n[m[1]], Value: value(v[m[2]])}
	}},
	{regexp.MustCompile(`^\(attribute_not_exists \((#\w+)\)\) OR \((#\w+) <> (:\w+)\)$`), func(m []string, n map[string]string, v map[string]types.AttributeValue) model.Cond {
		return model.Cond{Kind: model.CondAbsentOrDiffers, Key: n[m[1]], Attr: n[m[2]], Value: value(v[m[3]])}
	}},
	{freeOrExpired, func(m []string, n map[string]string, v map[string]types.AttributeValue) model.Cond {
		now, _ := strconv.ParseInt(value(v[m[3]]).S, 10, 64)
		return model.Cond{Kind: model.CondFreeOrExpired, Attr: n[m[1]], TTL: n[m[2]], Now: now}
	}},
}

// freeOrExpired is the guard of a lock's put on a table with TTL: no lock,
// or an expired one.
var freeOrExpired = regexp.MustCompile(`^\(attribute_not_exists \((#\w+)\)\) OR \((#\w+) <= (:\w+)\)$`)

// value reads one SDK attribute value.
func value(av types.AttributeValue) model.Value {
	return dynamo.ItemFromSDK(map[string]types.AttributeValue{"v": av})["v"]
}

// andTerms splits a condition expression into its AND terms, each
// without its enclosing parentheses. The builder nests a chain to the
// left: ((a) AND (b)) AND (c).
func andTerms(expr string) []string {
	if expr == "" {
		return nil
	}
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(expr); i++ {
		switch expr[i] {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 && strings.HasPrefix(expr[i:], " AND ") {
			parts = append(parts, expr[start:i])
			start = i + len(" AND ")
		}
	}
	parts = append(parts, expr[start:])
	if len(parts) == 1 {
		return parts // one condition: the builder adds no parentheses
	}
	var out []string
	for _, t := range parts {
		out = append(out, andTerms(t[1:len(t)-1])...)
	}
	return out
}

// requestSentences reads one TransactWriteItem as sent and says each
// condition of its ConditionExpression in words, in its order.
func requestSentences(t *testing.T, ti types.TransactWriteItem, isKey func(string) bool) []string {
	t.Helper()
	var expr *string
	var names map[string]string
	var values map[string]types.AttributeValue
	switch {
	case ti.Put != nil:
		expr, names, values = ti.Put.ConditionExpression, ti.Put.ExpressionAttributeNames, ti.Put.ExpressionAttributeValues
	case ti.Update != nil:
		expr, names, values = ti.Update.ConditionExpression, ti.Update.ExpressionAttributeNames, ti.Update.ExpressionAttributeValues
	case ti.Delete != nil:
		expr, names, values = ti.Delete.ConditionExpression, ti.Delete.ExpressionAttributeNames, ti.Delete.ExpressionAttributeValues
	case ti.ConditionCheck != nil:
		expr, names, values = ti.ConditionCheck.ConditionExpression, ti.ConditionCheck.ExpressionAttributeNames, ti.ConditionCheck.ExpressionAttributeValues
	}
	var out []string
	for _, term := range andTerms(deref(expr)) {
		matched := false
		for _, ct := range condTerms {
			if m := ct.re.FindStringSubmatch(term); m != nil {
				out = append(out, ct.cond(m, names, values).Sentence(isKey))
				matched = true
				break
			}
		}
		if !matched {
			t.Fatalf("condition term %q of %q: no sentence reads it", term, deref(expr))
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// wantPreviewIsTheRequest checks that tx's slots say exactly the
// conditions its request carries: one sentence per term of each
// ConditionExpression, in slot and term order, and none more.
func wantPreviewIsTheRequest(t *testing.T, sc *model.Schema, name string, tx backend.Tx) {
	t.Helper()
	if len(tx.Slots) != len(dynamo.Input(tx).TransactItems) {
		t.Fatalf("%s: %d slots for %d actions", name, len(tx.Slots), len(dynamo.Input(tx).TransactItems))
	}
	for i, ti := range dynamo.Input(tx).TransactItems {
		keys := keyNames(sc, tx.Plan.Actions[i].Table)
		got := tx.Slots[i].Conditions
		want := requestSentences(t, ti, func(a string) bool { return slices.Contains(keys, a) })
		if !slices.Equal(got, want) {
			t.Errorf("%s slot %d (%s):\n preview  %q\n request  %q", name, i, tx.Slots[i].Does, got, want)
		}
		if len(want) == 0 {
			t.Errorf("%s slot %d (%s): sent with no condition", name, i, tx.Slots[i].Does)
		}
	}
}

// keyNames are the key attributes of table under schema sc.
func keyNames(sc *model.Schema, table string) []string {
	if table == sc.Table {
		return []string{sc.PK, sc.SK}
	}
	for ci := range sc.Constraints {
		if t, _ := sc.LockKey(ci, "x"); t == table {
			return []string{sc.LockPK(ci)}
		}
	}
	return nil
}

// TestPreviewSaysTheRequestsConditions walks every kind of plan locktable
// sends (signup; rename and delete, headless and from a screen; the
// repair of each repairable kind, an ownerless orphan's three steps;
// undo) in both layouts and on preset-shaped tables, each also with TTL
// attributes on its tables, and matches every ConditionExpression term to
// its sentence in the preview. With TTL, every put of a lock takes an
// expired lock over, judged at the second the request was built, at each
// clocktest clock.
func TestPreviewSaysTheRequestsConditions(t *testing.T) {
	t.Parallel()
	schemas := exporttest.Schemas()
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		// Without TTL no request or sentence carries a time: one clock
		// is enough.
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			previewEveryPlanKind(t, schemas[name], clocktest.Times(t)[0])
		})
		// With TTL attributes, on the account table and on each lock
		// table: the repairs of expired and expiring locks too.
		ttl := schemas[name]
		ttl.Constraints = slices.Clone(ttl.Constraints)
		for _, table := range ttl.Tables() {
			if err := ttl.SetTTLAttr(table, "ttl_"+strings.ReplaceAll(table, "_", "")); err != nil {
				t.Fatal(err)
			}
		}
		ttl.TTLGiven = true
		t.Run(name+"+ttl", func(t *testing.T) {
			t.Parallel()
			clocktest.Each(t, func(t *testing.T, builtAt time.Time) {
				t.Parallel()
				previewEveryPlanKind(t, ttl, builtAt)
			})
		})
	}
}

// wantExpiredTakenOver checks that each put of a lock in tx, where its
// table has a TTL attribute, is guarded by attribute_not_exists(PK) OR
// #ttl <= :now, with the lock table's own attribute and builtAt (when
// the store's clock says the request was built), and that its slot says
// so; elsewhere by attribute_not_exists alone.
func wantExpiredTakenOver(t *testing.T, sc *model.Schema, name string, tx backend.Tx, builtAt time.Time) {
	t.Helper()
	for i, a := range tx.Plan.Actions {
		if a.Kind != model.ActPut || a.Constraint < 0 {
			continue
		}
		put := dynamo.Input(tx).TransactItems[i].Put
		m := freeOrExpired.FindStringSubmatch(deref(put.ConditionExpression))
		if sc.LockTTLAttr(a.Constraint) == "" {
			if m != nil {
				t.Errorf("%s slot %d: %s on a table without TTL", name, i, deref(put.ConditionExpression))
			}
			continue
		}
		if m == nil || put.ExpressionAttributeNames[m[1]] != sc.LockPK(a.Constraint) || put.ExpressionAttributeNames[m[2]] != sc.LockTTLAttr(a.Constraint) ||
			value(put.ExpressionAttributeValues[m[3]]).S != strconv.FormatInt(builtAt.Unix(), 10) {
			t.Errorf("%s slot %d (%s): %s %v %v; want attribute_not_exists(%s) OR %s <= %d", name, i, tx.Slots[i].Does, deref(put.ConditionExpression),
				put.ExpressionAttributeNames, put.ExpressionAttributeValues, sc.LockPK(a.Constraint), sc.LockTTLAttr(a.Constraint), builtAt.Unix())
		}
		want := fmt.Sprintf("only if no item with this key exists, or its %s is not after %d (%s): "+
			"an expired lock still blocks the value until DynamoDB deletes it, so it is taken over",
			sc.LockTTLAttr(a.Constraint), builtAt.Unix(), builtAt.UTC().Format("2006-01-02 15:04:05 UTC"))
		if !slices.Equal(tx.Slots[i].Conditions, []string{want}) {
			t.Errorf("%s slot %d: %q, want %q", name, i, tx.Slots[i].Conditions, want)
		}
	}
}

// previewEveryPlanKind prepares each kind of plan on a fresh copy of s,
// its store's clock at builtAt, and checks each preview against its
// request.
func previewEveryPlanKind(t *testing.T, s model.Schema, builtAt time.Time) {
	ctx := context.Background()
	store, client := dynamotest.Store(t, s)
	sc := &store.Schema
	store.Clock = clock.Fixed(builtAt)
	journal, f, err := dynamo.OpenUndoJournal(filepath.Join(t.TempDir(), "undo.log"), store.Clock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	store.Undo = journal
	id := func(n string) string {
		if sc.AccountSK == model.KeyInID { // ElectroDB's agents share a partition key
			return model.WholeKeyID("$mi6#designation_00", "$agent_1#id_"+n)
		}
		return model.AccountIDs{Schema: sc}.KeyPrefix() + n
	}
	attrs := func(v0, v1 string) map[string]string {
		m := map[string]string{sc.Constraints[0].Attr: v0, sc.Constraints[1].Attr: v1}
		for _, c := range sc.Constraints {
			if c.Scope != "" {
				m[c.Scope] = "org1"
			}
		}
		return m
	}
	prepare := func(name string, p model.Plan, err error) backend.Tx {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		tx, err := store.Writer.Prepare(p, backend.NewToken())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		wantPreviewIsTheRequest(t, sc, name, tx)
		wantExpiredTakenOver(t, sc, name, tx, builtAt)
		return tx
	}
	send := func(name string, p model.Plan, err error) {
		t.Helper()
		res, err := store.Writer.Execute(ctx, prepare(name, p, err))
		if err != nil || res.Outcome != model.Committed {
			t.Fatalf("%s: %s %v %v", name, res.Outcome, res.Reasons, err)
		}
	}

	p, err := model.Planner{Schema: sc}.Signup(id("a1"), attrs("ada@x.io", "ada"))
	send("signup", p, err)
	p, err = model.Planner{Schema: sc}.Signup(id("b2"), attrs("bob@x.io", "bob"))
	send("signup b2", p, err)
	a, _, err := store.Pages.Account(ctx, id("a1"))
	if err != nil {
		t.Fatal(err)
	}
	p, err = store.Writer.PlanRename(ctx, id("a1"), map[string]string{sc.Constraints[0].Attr: "ada2@x.io"}, nil, a.Item)
	prepare("rename from a screen", p, err)
	p, err = store.Writer.PlanDelete(ctx, id("a1"), nil, a.Item)
	prepare("delete from a screen", p, err)
	p, err = store.Writer.PlanDelete(ctx, id("b2"), nil, nil)
	prepare("delete", p, err)
	p, err = store.Writer.PlanRename(ctx, id("a1"), map[string]string{sc.Constraints[0].Attr: "ada3@x.io", sc.Constraints[1].Attr: ""}, nil, nil)
	send("rename", p, err)
	p, err = store.Journal.UndoToken(ctx, "")
	prepare("undo", p, err)

	// One of each repairable problem, and the check that finds them.
	acct := func(n, v0 string) model.Item {
		it := model.KeyItem(sc.AccountKey(id(n)))
		it[sc.Constraints[0].Attr] = model.S(v0)
		for k, v := range attrs(v0, "") {
			if k != sc.Constraints[1].Attr && k != sc.Constraints[0].Attr {
				it[k] = model.S(v)
			}
		}
		if sc.AccountType.Attr != "" {
			it[sc.AccountType.Attr] = model.S(sc.AccountType.Value)
		}
		return it
	}
	lockUntil := func(v, owner string, ttl time.Duration) model.Item {
		_, held := sc.Held(0, acct("x", v))
		table, key := sc.LockKey(0, held)
		it := model.KeyItem(key)
		for _, la := range sc.LockAttrs {
			it[la.Attr] = model.S(la.Value)
		}
		if owner != "" {
			it[sc.OwnerAttr] = model.S(owner)
		}
		if ttl != 0 {
			// Relative to the clock the store judges at, not the wall's.
			it[sc.LockTTLAttr(0)] = model.N(strconv.FormatInt(builtAt.Add(ttl).Unix(), 10))
		}
		dynamotest.Put(t, client, table, it)
		return it
	}
	lock := func(v, owner string) model.Item { return lockUntil(v, owner, 0) }
	dynamotest.Put(t, client, sc.Table, acct("m1", "missing@x.io"), acct("f1", "foreign@x.io"))
	lock("foreign@x.io", id("gone"))
	lock("orphan@x.io", id("gone2"))
	lock("ownerless@x.io", "")
	repairable := []model.ProblemKind{model.MissingLock, model.ForeignLock, model.OrphanLock}
	if sc.HasTTL() {
		dynamotest.Put(t, client, sc.Table, acct("e1", "expheld@x.io"), acct("r1", "reserved@x.io"))
		lockUntil("expheld@x.io", id("e1"), -3*time.Hour)
		lockUntil("expired@x.io", id("gone3"), -3*time.Hour)
		lockUntil("reserved@x.io", id("r1"), time.Hour)
		repairable = append(repairable, model.ExpiredLock, model.ExpiringLock)
	}
	report, err := store.Checker.Check(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[model.ProblemKind]bool{}
	for _, pr := range report.Problems {
		r, err := store.Writer.PlanRepair(ctx, pr)
		if err != nil || r.Skip != "" {
			continue
		}
		kinds[pr.Kind] = true
		tx := prepare("repair "+string(pr.Kind)+" "+pr.Value, r.Plan, nil)
		if rc := tx.Plan.Reclaim; rc != nil {
			// Steps 2 and 3 are prepared as Execute prepares them.
			prepare("reclaim: delete", model.Plan{Operation: "repair", Actions: []model.Action{model.Planner{Schema: sc}.DeleteClaimed(*rc)}}, nil)
			prepare("reclaim: give back", model.Plan{Operation: "repair", Actions: []model.Action{model.Planner{Schema: sc}.GiveBack(*rc)}}, nil)
		}
	}
	for _, k := range repairable {
		if !kinds[k] {
			t.Errorf("no %s repair was planned: problems %v", k, report.Problems)
		}
	}
}

// TestPreviewPastTheExpressionLimit: a rename from a screen guards the
// account on every unique attribute shown; with 300 of them the
// expression would pass DynamoDB's 4 KB limit, so the request guards the
// changed one only, and the preview says so.
func TestPreviewPastTheExpressionLimit(t *testing.T) {
	t.Parallel()
	sc := model.DefaultSchema(model.LayoutSingle)
	sc.Constraints = nil
	seen := model.Item{"PK": model.S("ACCT#a1"), "SK": model.S("PROFILE")}
	for i := range 300 {
		attr := fmt.Sprintf("attr%03d", i)
		sc.Constraints = append(sc.Constraints, model.Constraint{Attr: attr, Prefix: fmt.Sprintf("UNIQ#A%03d#", i)})
		seen[attr] = model.S(fmt.Sprintf("value-%03d", i))
	}
	store := dynamo.NewStore(nil, backend.Endpoint{}, sc, clock.System())
	a := model.Classifier{Schema: &sc}.Judge(seen, func(model.KeyRef) (model.Item, bool) { return nil, false }, func(string, int, string) bool { return false }, 0)
	short, err := model.Planner{Schema: &sc}.Rename(a, map[string]string{"attr007": "new"}, nil, seen)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := store.Writer.Prepare(short, backend.NewToken())
	if err != nil {
		t.Fatal(err)
	}
	upd := dynamo.Input(tx).TransactItems[0].Update
	if n := len(deref(upd.ConditionExpression)); n > dynamo.MaxExpressionBytes {
		t.Fatalf("condition expression of %d bytes sent", n)
	}
	if got := tx.Slots[0].Conditions; !slices.Equal(got, []string{`only if its attr007 is "value-007"`}) {
		t.Errorf("conditions %q, want the changed attribute's alone", got)
	}
	if !strings.Contains(tx.Slots[0].Note, "4096-byte expression limit") {
		t.Errorf("the slot does not say why: %q", tx.Slots[0].Note)
	}
	wantPreviewIsTheRequest(t, &store.Schema, "rename of 300", tx)
}
