// Package exporttest makes random table contents with every kind of
// problem, for tests that compare two ways of finding them (a scan, an
// export, SQL over the export).
package exporttest

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/locktable/locktable/model"
)

// Schemas are the schemas the export tests run on, by name: layout 1
// with a normalized constraint (lower), layout 2, the shapes OneTable
// and TypeDORM write (accounts told apart by a type attribute, lock sort
// keys _unique# and =PK, OneTable's unique scopes), and the flags that
// describe such tables without a preset (--account-type, =PK, a scope
// in --unique).
func Schemas() map[string]model.Schema {
	one := model.DefaultSchema(model.LayoutSingle)
	one.Constraints[0].Normalize = model.NormalizeLower
	return map[string]model.Schema{
		"single": one, "tables": model.DefaultSchema(model.LayoutTables),
		"onetable": preset("onetable:User", "pk", "sk", "User#", func(s *model.Schema) {
			s.Constraints[1].Normalize = model.NormalizeLower
		}),
		"onetable-scope": preset("onetable:User", "pk", "sk", "User#", func(s *model.Schema) {
			must(model.Preset{Schema: s}.ScopeConstraint(0, "org"))
			must(model.Preset{Schema: s}.ScopeConstraint(1, "team"))
			s.Constraints[1].Normalize = model.NormalizeLower
		}),
		"typedorm": preset("typedorm:user", "PK", "SK", model.SameAsPK, nil),
		// ElectroDB's documented constraints: one partition key prefix
		// for both attributes, told apart by the sort key; email's keys
		// lower-cased (ElectroDB's default), username's as given.
		"electrodb": preset("electrodb:agent", "pk", "sk", model.KeyInID, func(s *model.Schema) {
			p := model.Preset{Schema: s}
			e := model.DefaultConstraintEntity("mi6")
			s.Constraints[0] = p.ElectroUnique("email", e)
			e.Lower = false
			s.Constraints[1] = p.ElectroUnique("username", e)
		}),
		"type-flags": {
			Layout: model.LayoutSingle, Table: "people", PK: "PK", SK: "SK",
			AccountSK: model.SameAsPK, LockSK: model.SameAsPK, OwnerAttr: "owner",
			AccountType: model.Assignment{Attr: "kind", Value: "person"},
			Constraints: []model.Constraint{
				{Attr: "email", Prefix: "UNIQ#", Scope: "tenant", Tail: "#EMAIL#", Normalize: model.NormalizeLower},
				{Attr: "username", Prefix: "HANDLE#", Normalize: model.NormalizeNone},
			},
		},
	}
}

// preset is the schema of a library's table whose accounts have sort key
// accountSK, with the unique attributes email and username under the
// library's prefixes, as dynamo.Store.ResolvePreset reads it from the
// table; adjust changes it further.
func preset(name, pk, sk, accountSK string, adjust func(*model.Schema)) model.Schema {
	s := model.DefaultSchema(model.LayoutSingle)
	must(model.Preset{Schema: &s}.Apply(name))
	s.Table, s.PK, s.SK, s.AccountSK, s.KeysFromTable = "MyTable", pk, sk, accountSK, false
	for _, attr := range []string{"email", "username"} {
		s.Constraints = append(s.Constraints, model.Constraint{Attr: attr, Prefix: model.Preset{Schema: &s}.Prefix(attr), Normalize: model.NormalizeNone})
	}
	if adjust != nil {
		adjust(&s)
	}
	must(s.Validate())
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// TTLNow is the time the TTL cases of Tables are judged at: tests take
// their exports then (export.Options.ExportTime), so that check --export
// judges at it by default, and give it to sql as --now.
var TTLNow = time.Date(2024, 3, 1, 12, 30, 0, 0, time.UTC)

// WithTTL returns s with TTL attributes: "expires" on the account table
// (the accounts' and the locks' beside them) and, in layout 2, each lock
// table's own, named after its constraint, so that a query reading the
// account table's attribute from a lock table is caught.
func WithTTL(s model.Schema) model.Schema {
	s.Constraints = slices.Clone(s.Constraints)
	s.TTLAttr, s.TTLGiven = "expires", true
	for i, c := range s.Constraints {
		if !c.InAccountTable() {
			s.Constraints[i].TTLAttr = "ttl_" + c.Attr
		}
	}
	must(s.Validate())
	return s
}

// Tables returns random contents for every table of s, keyed by table:
// about healthy accounts with their locks, then, for each constraint,
// several cases of every problem kind (missing, orphan with and without
// owner, foreign, duplicate alone and with a missing or foreign lock,
// invalid values of every type, values too long to lock, owners that are
// not strings), values that hold nothing (NULL, "", absent), values that
// differ only in case, text that needs escaping, and items that are
// neither accounts nor locks. Every item is one DynamoDB accepts. Where
// s has a TTL attribute, each constraint also has every TTL case
// (ttlAnomalies), around TTLNow.
func Tables(rng *rand.Rand, s *model.Schema, healthy int) map[string][]model.Item {
	return TablesAt(rng, s, healthy, TTLNow)
}

// TablesAt is Tables with the TTL cases around now, hours away from it
// (but for a TTL at now itself), so that a check run a few seconds later
// judges them alike.
func TablesAt(rng *rand.Rand, s *model.Schema, healthy int, now time.Time) map[string][]model.Item {
	g := &gen{rng: rng, s: s, out: map[string][]model.Item{}, ids: map[string]bool{}, now: model.Epoch(now)}
	for _, t := range s.Tables() {
		g.out[t] = []model.Item{}
	}
	for range healthy {
		id := g.id()
		vals := map[int]model.Value{}
		for ci := range s.Constraints {
			vals[ci] = model.S(g.value(ci))
		}
		g.account(id, vals)
		for ci := range s.Constraints {
			g.lockFor(ci, vals[ci].S, g.maybe(id))
		}
	}
	for ci := range s.Constraints {
		for range 2 + rng.IntN(2) {
			g.anomalies(ci)
			if s.HasTTL() {
				g.ttlAnomalies(ci)
			}
		}
	}
	if s.AccountPrefix != "" || s.SK != "" {
		for i := range 3 {
			other := model.Item{s.PK: model.S(fmt.Sprintf("ORDER#%d%x", i, rng.Uint32()))}
			if s.SK != "" {
				other[s.SK] = model.S("LINE#1")
			}
			other["total"] = model.N("12")
			g.out[s.Table] = append(g.out[s.Table], other)
		}
	}
	if s.AccountType.Attr != "" {
		g.typeOthers()
	}
	for t, items := range g.out {
		rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		g.out[t] = items
	}
	return g.out
}

type gen struct {
	rng *rand.Rand
	s   *model.Schema
	out map[string][]model.Item
	ids map[string]bool
	n   int
	now int64 // epoch seconds the TTL cases are around
}

// designations are the partition keys of accounts named by their whole
// key (ElectroDB's agents share them), some holding what the id escapes.
var designations = []string{"$mi6#designation_00", "$mi6#designation_07", "$mi6#designation_a|b", `$mi6#designation_c\d`}

// id returns a fresh account key value: with model.KeyInID, a whole key.
func (g *gen) id() string {
	for {
		id := fmt.Sprintf("%s%08x", g.s.AccountPrefix, g.rng.Uint32())
		if g.s.AccountSK == model.KeyInID {
			id = model.WholeKeyID(designations[g.rng.IntN(len(designations))], fmt.Sprintf("$agent_1#id_%08x", g.rng.Uint32()))
		}
		if !g.ids[id] {
			g.ids[id] = true
			return id
		}
	}
}

// maybe returns owner or, one time in three, "" (a lock without owner,
// as the articles write them).
func (g *gen) maybe(owner string) string {
	if g.rng.IntN(3) == 0 {
		return ""
	}
	return owner
}

// texts are the stems of values: plain, mixed case, and text that needs
// escaping in JSON and SQL.
var texts = []string{
	"ada", "Grace.Hopper", "o'brien", `back\slash`, `"quoted"`, "per%cent_", "slash/tilde~", "line\nbreak",
	"émile", "ÅSA", "日本", "tab\there", "emoji😀", "sep\u2028", "zero\u200bwidth",
}

// value returns a fresh value for constraint ci in normal form, in a
// scope when the constraint has one.
func (g *gen) value(ci int) string {
	return g.scoped(ci, g.s.Constraints[ci].Normalize.Apply(g.raw()))
}

// raw returns a fresh value, not normalized.
func (g *gen) raw() string {
	g.n++
	return fmt.Sprintf("%s-%d@x.io", texts[g.rng.IntN(len(texts))], g.n)
}

// account adds the account id holding vals: a scoped constraint's value
// (scope, tail, value, as scoped makes it) is split into the scope
// attribute and the attribute.
func (g *gen) account(id string, vals map[int]model.Value) {
	g.out[g.s.Table] = append(g.out[g.s.Table], g.accountItem(id, vals))
}

func (g *gen) accountItem(id string, vals map[int]model.Value) model.Item {
	it := model.Item{}
	for k, v := range g.s.AccountKey(id) {
		it[k] = model.S(v)
	}
	if a := g.s.AccountType; a.Attr != "" {
		it[a.Attr] = model.S(a.Value)
	}
	for ci, v := range vals {
		c := g.s.Constraints[ci]
		if scope, rest, ok := strings.Cut(v.S, c.Tail); ok && c.Scope != "" && v.Kind == model.KindS {
			it[c.Scope], v = model.S(scope), model.S(rest)
		}
		it[c.Attr] = v
	}
	return it
}

// scopes are the scopes of scoped values.
var scopes = []string{"acme", "globex", "Initech"}

// scoped returns v in a scope for a scoped constraint (scope, tail, v:
// what the lock key holds after the prefix), v itself otherwise.
func (g *gen) scoped(ci int, v string) string {
	c := g.s.Constraints[ci]
	if c.Scope == "" {
		return v
	}
	return scopes[g.rng.IntN(len(scopes))] + c.Tail + v
}

// tooLong returns a value of constraint ci whose lock key is one byte
// too long.
func (g *gen) tooLong(ci int) string {
	v := g.scoped(ci, "")
	return v + strings.Repeat("z", model.MaxPartitionKeyBytes+1-len(g.s.Constraints[ci].Prefix)-len(v))
}

// typeOthers adds items of the account table that look like accounts,
// values and all, but for their type (another, none, or the right one
// with another sort key), and another model's unique items: counted,
// not judged.
func (g *gen) typeOthers() {
	s := g.s
	if s.SK == "" {
		return
	}
	for i, typ := range []string{"order", "", s.AccountType.Value} {
		vals := map[int]model.Value{}
		for ci := range s.Constraints {
			vals[ci] = model.S(g.value(ci))
		}
		it := g.accountItem(g.id(), vals)
		delete(it, s.AccountType.Attr)
		if typ != "" {
			it[s.AccountType.Attr] = model.S(typ)
		}
		if i == 2 {
			it[s.SK] = model.S("NOT-" + it[s.SK].S)
		}
		g.out[s.Table] = append(g.out[s.Table], it)
	}
	head := model.Preset{Schema: s}.Head()
	if head == "" {
		head = "OTHER#"
	}
	for _, pk := range []string{head + "Order#code#" + g.raw(), "_unique#Order#code#" + g.raw()} {
		it := model.Item{s.PK: model.S(pk), s.SK: model.S(pk)}
		switch s.LockSK {
		case model.SameAsPK:
		case "": // each constraint its own sort key (ElectroDB's)
			it[s.SK] = model.S("$constraint_1#name_code#entity_order")
		default:
			it[s.SK] = model.S(s.LockSK)
		}
		g.out[s.Table] = append(g.out[s.Table], it)
	}
}

// lockFor adds the lock of constraint ci whose raw value is v.
func (g *gen) lockFor(ci int, v, owner string) {
	g.lockWith(ci, v, func(it model.Item) {
		if owner != "" {
			it[g.s.OwnerAttr] = model.S(owner)
		}
	})
}

func (g *gen) lockWith(ci int, v string, set func(model.Item)) {
	table, key := g.s.LockKey(ci, v)
	it := model.Item{}
	for k, x := range key {
		it[k] = model.S(x)
	}
	if table == g.s.Table {
		for _, a := range g.s.LockAttrs {
			it[a.Attr] = model.S(a.Value)
		}
	}
	set(it)
	g.out[table] = append(g.out[table], it)
}

func (g *gen) holds(ci int, v string) string {
	id := g.id()
	g.account(id, map[int]model.Value{ci: model.S(v)})
	return id
}

// anomalies adds one case of every problem of constraint ci, and values
// that are fine though they look odd.
func (g *gen) anomalies(ci int) {
	c := g.s.Constraints[ci]
	// missing_lock
	g.holds(ci, g.value(ci))
	// orphan_lock: naming an account that does not hold it, naming none,
	// naming a claim, and a lock key not in normal form.
	g.lockFor(ci, g.value(ci), g.id())
	g.lockFor(ci, g.value(ci), "")
	g.lockFor(ci, g.value(ci), "locktable:reclaim:"+fmt.Sprint(g.n))
	if c.Normalize != model.NormalizeNone {
		g.lockFor(ci, g.scoped(ci, "UPPER-"+g.raw()), "")
	}
	// foreign_lock: the lock names another account.
	v := g.value(ci)
	g.holds(ci, v)
	g.lockFor(ci, v, g.holds(ci, g.value(ci)))
	// duplicate_value: with the lock of one holder, with no lock, with a
	// lock of someone else.
	v = g.value(ci)
	a := g.holds(ci, v)
	g.holds(ci, v)
	g.lockFor(ci, v, g.maybe(a))
	v = g.value(ci)
	g.holds(ci, v)
	g.holds(ci, v)
	v = g.value(ci)
	g.holds(ci, v)
	g.holds(ci, v)
	g.lockFor(ci, v, g.id())
	// Values that differ only in case: one value under lower or casefold.
	if c.Normalize != model.NormalizeNone {
		v = g.raw()
		scope := g.scoped(ci, "")
		a = g.holds(ci, scope+strings.ToUpper(v))
		g.holds(ci, scope+v)
		g.lockFor(ci, scope+c.Normalize.Apply(v), a)
	}
	// invalid_value: every other type, and a value too long to lock.
	for _, bad := range []model.Value{
		model.N("42"), {Kind: model.KindBOOL, Bool: g.rng.IntN(2) == 0}, {Kind: model.KindB, B: []byte{0, 1, 0xfe}},
		{Kind: model.KindSS, Strings: []string{"a", "b"}}, {Kind: model.KindNS, Strings: []string{"1", "2.5"}},
		{Kind: model.KindL, List: []model.Value{model.S("x"), model.N("1")}},
		{Kind: model.KindM, Map: map[string]model.Value{"k": model.S("v"), "a": {Kind: model.KindNULL}}},
		model.S(g.tooLong(ci)),
	} {
		g.account(g.id(), map[int]model.Value{ci: bad})
	}
	// Owners that are not strings.
	g.lockWith(ci, g.value(ci), func(it model.Item) { it[g.s.OwnerAttr] = model.N("7") })
	v = g.value(ci)
	g.holds(ci, v)
	g.lockWith(ci, v, func(it model.Item) { it[g.s.OwnerAttr] = model.Null() })
	// No value: NULL, the empty string, absent.
	g.account(g.id(), map[int]model.Value{ci: model.Null()})
	g.account(g.id(), map[int]model.Value{ci: model.S("")})
	g.account(g.id(), nil)
	if c.Scope != "" {
		g.scopeAnomalies(ci)
	}
}

// scopeAnomalies adds, for scoped constraint ci, values without a scope
// (no lock expected), one value in two scopes (two values, not a
// duplicate), locked and not, and lock keys with an empty scope or no
// tail (not locks of ci).
func (g *gen) scopeAnomalies(ci int) {
	c := g.s.Constraints[ci]
	for _, scope := range []model.Value{model.S(""), model.N("3"), model.Null()} {
		id := g.id()
		g.account(id, map[int]model.Value{ci: model.S(g.raw())})
		it := g.out[g.s.Table][len(g.out[g.s.Table])-1]
		it[c.Scope] = scope
	}
	g.account(g.id(), map[int]model.Value{ci: model.S(g.raw())}) // no scope attribute
	v := c.Normalize.Apply(g.raw())
	for _, scope := range scopes[:2] {
		g.lockFor(ci, scope+c.Tail+v, g.holds(ci, scope+c.Tail+v))
	}
	v = c.Normalize.Apply(g.raw())
	for _, scope := range scopes[:2] {
		g.holds(ci, scope+c.Tail+v)
	}
	g.lockFor(ci, c.Tail+g.raw(), "")
	g.lockFor(ci, "noscope-"+g.raw(), "")
}

// ttlAnomalies adds, for constraint ci, a lock with a TTL in every case
// PATTERN.md's "Locks with a time to live" tells apart: reservations (no
// problem), expired locks with no holder, held by their owner, by two
// accounts, by another account than their owner (expired_lock, and
// duplicate_value), reserved locks held by an account without a TTL or
// with a later one (expiring_lock, also when the owner is another),
// reserved locks held by an account with an earlier TTL (fine, or
// foreign_lock when another account owns it), and TTLs DynamoDB ignores
// (a string, milliseconds: judged as none) or that are none
// (NULL). A TTL at now has expired; one with a fraction is read up to
// the next second, as DynamoDB's #ttl <= :now compares it.
func (g *gen) ttlAnomalies(ci int) {
	s := g.s
	later := func() int64 { return g.now + 3600*int64(1+g.rng.IntN(72)) }
	earlier := func() int64 { return g.now - 3600*int64(1+g.rng.IntN(72)) }
	n := func(at int64) model.Value { return model.N(strconv.FormatInt(at, 10)) }
	// Reservations: nobody holds the value yet.
	g.lockTTL(ci, g.value(ci), g.maybe(g.id()), n(later()))
	// Expired: no holder; held by its owner (or, ownerless, its holder);
	// at now exactly, or a fraction of a second before it; by two; owned
	// by another than its holder.
	g.lockTTL(ci, g.value(ci), g.maybe(g.id()), n(earlier()))
	v := g.value(ci)
	g.lockTTL(ci, v, g.maybe(g.holds(ci, v)), n(earlier()))
	v = g.value(ci)
	g.lockTTL(ci, v, g.holds(ci, v), n(g.now))
	v = g.value(ci)
	g.lockTTL(ci, v, "", model.N(fmt.Sprintf("%d.75", g.now-1))) // rounded up: now
	v = g.value(ci)
	a := g.holds(ci, v)
	g.holds(ci, v)
	g.lockTTL(ci, v, g.maybe(a), n(earlier()))
	v = g.value(ci)
	g.holds(ci, v)
	g.lockTTL(ci, v, g.id(), n(earlier()))
	// Reserved, held: by an account without a TTL; with a later one (and
	// owned by another); with an earlier one, owned by it or by nobody
	// (fine) or by another (foreign_lock); with a TTL DynamoDB ignores.
	v = g.value(ci)
	g.lockTTL(ci, v, g.maybe(g.holds(ci, v)), n(later()))
	at := later()
	v = g.value(ci)
	g.lockTTL(ci, v, g.maybe(g.holdsTTL(ci, v, n(at+600))), n(at))
	v = g.value(ci)
	g.holdsTTL(ci, v, n(at+1))
	g.lockTTL(ci, v, g.id(), n(at))
	v = g.value(ci)
	g.lockTTL(ci, v, g.maybe(g.holdsTTL(ci, v, n(at-600))), n(at))
	v = g.value(ci)
	g.lockTTL(ci, v, g.maybe(g.holdsTTL(ci, v, n(at))), n(at))
	v = g.value(ci)
	g.holdsTTL(ci, v, n(earlier()))
	g.lockTTL(ci, v, g.id(), n(at))
	v = g.value(ci)
	g.lockTTL(ci, v, g.maybe(g.holdsTTL(ci, v, model.S(strconv.FormatInt(at-600, 10)))), n(at))
	// TTLs that are none: a string, milliseconds, NULL; an
	// orphan without a holder, fine with its owner holding it.
	for _, none := range []model.Value{model.S(strconv.FormatInt(earlier(), 10)), n(later() * 1000), model.Null()} {
		g.lockTTL(ci, g.value(ci), g.maybe(g.id()), none)
		v = g.value(ci)
		g.lockTTL(ci, v, g.maybe(g.holds(ci, v)), none)
	}
	// TTLs long past: 0, below, and one with a fraction of a second
	// (rounded up).
	for _, ttl := range []model.Value{model.N("0"), model.N("-5"), model.N(strconv.FormatInt(at-600, 10) + ".5")} {
		g.lockTTL(ci, g.value(ci), g.maybe(g.id()), ttl)
		v = g.value(ci)
		g.lockTTL(ci, v, g.maybe(g.holds(ci, v)), ttl)
	}
	// Layout 2: a lock table's TTL is its own attribute; the account
	// table's, on a lock there, means nothing.
	if attr := s.LockTTLAttr(ci); attr != s.TTLAttr {
		g.lockWith(ci, g.value(ci), func(it model.Item) { it[s.TTLAttr] = n(earlier()) })
	}
}

// lockTTL adds the lock of constraint ci for raw value v, owned by owner
// (none: ""), its TTL attribute at ttl.
func (g *gen) lockTTL(ci int, v, owner string, ttl model.Value) {
	g.lockWith(ci, v, func(it model.Item) {
		if owner != "" {
			it[g.s.OwnerAttr] = model.S(owner)
		}
		it[g.s.LockTTLAttr(ci)] = ttl
	})
}

// holdsTTL adds an account holding v of constraint ci whose TTL
// attribute is ttl.
func (g *gen) holdsTTL(ci int, v string, ttl model.Value) string {
	id := g.holds(ci, v)
	items := g.out[g.s.Table]
	items[len(items)-1][g.s.TTLAttr] = ttl
	return id
}

// S3 serves an in-process S3 (gofakes3) whose bucket holds every file
// under dir, keyed prefix/<path under dir>, and returns its URL. It stops
// when the test ends.
func S3(t testing.TB, bucket, dir, prefix string) string {
	t.Helper()
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(srv.Close)
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(srv.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	})
	ctx := context.Background()
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		key := path.Join(prefix, filepath.ToSlash(rel))
		_, err = client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return srv.URL
}
