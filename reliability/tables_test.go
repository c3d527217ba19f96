package reliability

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// newFigures returns the test's figures, appended to LOCKTABLE_RELIABILITY_OUT
// and logged when the test ends, whether it passed or not.
func newFigures(t *testing.T, declare ...string) *Figures {
	f := &Figures{}
	for _, name := range declare {
		f.Add(name, 0)
	}
	t.Cleanup(func() {
		t.Logf("figures:\n%s", f)
		if err := f.Append(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// env is a fresh set of tables of one layout, the store on them, and the
// SDK client beneath it.
type env struct {
	t      *testing.T
	store  *dynamo.Store
	client *dynamodb.Client
}

func newEnv(t *testing.T, l model.Layout, mods ...func(*model.Schema)) *env {
	t.Helper()
	s := model.DefaultSchema(l)
	for _, m := range mods {
		m(&s)
	}
	store, client := dynamotest.Store(t, s)
	return &env{t: t, store: store, client: client}
}

// lowerFirst normalizes the first constraint to lower case, so that
// different spellings contend for one lock.
func lowerFirst(s *model.Schema) {
	cs := slices.Clone(s.Constraints)
	cs[0].Normalize = model.NormalizeLower
	s.Constraints = cs
}

func (e *env) schema() *model.Schema { return &e.store.Schema }

// id is the account key value for name: ACCT#name, or dev-name where
// records carry no prefix.
func (e *env) id(name string) string {
	if p := e.schema().AccountPrefix; p != "" {
		return p + name
	}
	return "dev-" + name
}

func (e *env) attr(ci int) string { return e.schema().Constraints[ci].Attr }

// attrs is the attributes of an account holding v0 and v1.
func (e *env) attrs(v0, v1 string) map[string]string {
	return map[string]string{e.attr(0): v0, e.attr(1): v1}
}

// signup writes a healthy account through locktable's own signup.
func (e *env) signup(ctx context.Context, id, v0, v1 string) error {
	p, err := e.schema().Signup(id, e.attrs(v0, v1))
	if err != nil {
		return err
	}
	res, err := Send(ctx, e.store.Writer, p)
	if err != nil {
		return err
	}
	if res.Outcome != model.Committed {
		return fmt.Errorf("signup %s: %s %+v", id, res.Outcome, res.Reasons)
	}
	return nil
}

// putLock writes the lock of constraint ci for v (as given) with no guard,
// naming owner unless it is empty: how buggy code leaves orphans.
func (e *env) putLock(ctx context.Context, ci int, v, owner string) error {
	table, key := e.schema().LockKey(ci, v)
	it := model.Item{}
	for k, kv := range key {
		it[k] = model.S(kv)
	}
	if owner != "" {
		it[e.schema().OwnerAttr] = model.S(owner)
	}
	_, err := e.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: dynamo.ItemToSDK(it)})
	return err
}

// putAccount writes an account item alone, with no guard and no locks.
func (e *env) putAccount(ctx context.Context, id string, attrs map[string]string) error {
	it := model.Item{}
	for k, v := range e.schema().AccountKey(id) {
		it[k] = model.S(v)
	}
	for k, v := range attrs {
		it[k] = model.S(v)
	}
	_, err := e.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(e.schema().Table), Item: dynamo.ItemToSDK(it)})
	return err
}

// articleSignup is the article's signup request (signup.json): the
// account and its locks, each put guarded by attribute_not_exists(PK),
// the locks naming no owner, no token, no ALL_OLD.
func (e *env) articleSignup(id string, attrs map[string]string) (model.Plan, *dynamodb.TransactWriteItemsInput, error) {
	p, err := e.schema().Signup(id, attrs)
	if err != nil {
		return p, nil, err
	}
	for _, a := range p.Actions {
		if a.Role == model.RoleTakeLock {
			delete(a.Item, e.schema().OwnerAttr)
		}
	}
	tx, err := e.store.Writer.Prepare(p, backend.NewToken())
	if err != nil {
		return p, nil, err
	}
	in := dynamo.Input(tx)
	in.ClientRequestToken = nil
	for _, ti := range in.TransactItems {
		ti.Put.ReturnValuesOnConditionCheckFailure = ""
	}
	return p, in, nil
}

// snapshot is every item of a schema's tables, read with consistent scans
// once nothing writes.
type snapshot struct {
	s     *model.Schema
	items map[string]model.Item // by ref(table, key)
}

// ref names one item: its table and key.
func ref(table string, key map[string]string) string {
	var b strings.Builder
	b.WriteString(table)
	for _, k := range slices.Sorted(maps.Keys(key)) {
		b.WriteString("\x00" + k + "=" + key[k])
	}
	return b.String()
}

func (e *env) snapshot(ctx context.Context) (snapshot, error) {
	return readAll(ctx, e.client, e.schema())
}

func readAll(ctx context.Context, client dynamo.API, s *model.Schema) (snapshot, error) {
	sn := snapshot{s: s, items: map[string]model.Item{}}
	for _, table := range s.Tables() {
		var start map[string]types.AttributeValue
		for {
			out, err := client.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true), ExclusiveStartKey: start})
			if err != nil {
				return sn, fmt.Errorf("scan %s: %w", table, err)
			}
			for _, av := range out.Items {
				it := dynamo.ItemFromSDK(av)
				sn.items[ref(table, keyOf(s, table, it))] = it
			}
			if start = out.LastEvaluatedKey; len(start) == 0 {
				break
			}
		}
	}
	return sn, nil
}

// keyOf returns the primary key of item it of table.
func keyOf(s *model.Schema, table string, it model.Item) map[string]string {
	names := []string{s.PK}
	if s.SK != "" {
		names = append(names, s.SK)
	}
	if table != s.Table {
		for _, c := range s.Constraints {
			if c.LockTable == table {
				names = []string{c.KeyAttr}
			}
		}
	}
	key := map[string]string{}
	for _, n := range names {
		key[n] = it[n].S
	}
	return key
}

// at returns the item at a key, nil when there is none.
func (sn snapshot) at(table string, key map[string]string) model.Item {
	return sn.items[ref(table, key)]
}

// lock returns the lock of constraint ci for the normalized value v.
func (sn snapshot) lock(ci int, v string) model.Item {
	table, key := sn.s.LockKey(ci, v)
	return sn.at(table, key)
}

// holders returns the accounts that hold normalized value v of
// constraint ci, sorted.
func (sn snapshot) holders(ci int, v string) []string {
	var ids []string
	for _, it := range sn.items {
		if (model.Classifier{Schema: sn.s}).Classify(sn.s.Table, it).Kind != model.EntryAccount {
			continue
		}
		if h, hv := sn.s.Held(ci, it); h == model.HoldsValue && hv == v {
			ids = append(ids, it[sn.s.PK].S)
		}
	}
	slices.Sort(ids)
	return ids
}

// owner returns a lock's owner attribute ("" for none).
func (sn snapshot) owner(lock model.Item) string {
	return lock[sn.s.OwnerAttr].S
}

// applied reports whether the snapshot shows every effect of plan: puts
// there as put, deletes gone, updates' values set.
func (sn snapshot) applied(p model.Plan) (all, none bool) {
	if r := p.Reclaim; r != nil {
		// A reclaim (claim, look again, delete) is done when the lock is
		// gone; a lock left ownerless or still claimed is an orphan not
		// repaired (a claim left is reported so, and a rerun finishes it).
		del := model.Planner{Schema: sn.s}.DeleteClaimed(*r)
		gone := sn.at(del.Table, del.Key) == nil
		return gone, !gone
	}
	all, none = true, true
	for _, a := range p.Actions {
		if a.Kind == model.ActCheck {
			continue
		}
		now := sn.at(a.Table, a.Key)
		if model.Applied(a, now) {
			none = false
		} else {
			all = false
		}
	}
	return all, none
}

// problemKey is what "the same problem" means across two checks: kind,
// constraint and value.
func problemKey(p model.Problem) string {
	return string(p.Kind) + " " + p.Constraint + "=" + p.Value
}
