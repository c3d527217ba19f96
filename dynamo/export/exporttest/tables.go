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
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/locktable/locktable/model"
)

// Schemas are the schemas the export tests run on, by layout name:
// layout 1 with a normalized constraint (lower), and layout 2.
func Schemas() map[string]model.Schema {
	one := model.DefaultSchema(model.LayoutSingle)
	one.Constraints[0].Normalize = model.NormalizeLower
	return map[string]model.Schema{"single": one, "tables": model.DefaultSchema(model.LayoutTables)}
}

// Tables returns random contents for every table of s, keyed by table:
// about healthy accounts with their locks, then, for each constraint,
// several cases of every problem kind (missing, orphan with and without
// owner, foreign, duplicate alone and with a missing or foreign lock,
// invalid values of every type, values too long to lock, owners that are
// not strings), values that hold nothing (NULL, "", absent), values that
// differ only in case, text that needs escaping, and items that are
// neither accounts nor locks. Every item is one DynamoDB accepts.
func Tables(rng *rand.Rand, s *model.Schema, healthy int) map[string][]model.Item {
	g := &gen{rng: rng, s: s, out: map[string][]model.Item{}, ids: map[string]bool{}}
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
}

// id returns a fresh account key value.
func (g *gen) id() string {
	for {
		id := fmt.Sprintf("%s%08x", g.s.AccountPrefix, g.rng.Uint32())
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

// value returns a fresh value for constraint ci in normal form.
func (g *gen) value(ci int) string {
	return g.s.Constraints[ci].Normalize.Apply(g.raw())
}

// raw returns a fresh value, not normalized.
func (g *gen) raw() string {
	g.n++
	return fmt.Sprintf("%s-%d@x.io", texts[g.rng.IntN(len(texts))], g.n)
}

func (g *gen) account(id string, vals map[int]model.Value) {
	it := model.Item{g.s.PK: model.S(id)}
	if g.s.SK != "" {
		it[g.s.SK] = model.S(g.s.AccountSK)
	}
	for ci, v := range vals {
		it[g.s.Constraints[ci].Attr] = v
	}
	g.out[g.s.Table] = append(g.out[g.s.Table], it)
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
		g.lockFor(ci, "UPPER-"+g.raw(), "")
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
		a = g.holds(ci, strings.ToUpper(v))
		g.holds(ci, v)
		g.lockFor(ci, c.Normalize.Apply(v), a)
	}
	// invalid_value: every other type, and a value too long to lock.
	for _, bad := range []model.Value{
		model.N("42"), {Kind: model.KindBOOL, Bool: g.rng.IntN(2) == 0}, {Kind: model.KindB, B: []byte{0, 1, 0xfe}},
		{Kind: model.KindSS, Strings: []string{"a", "b"}}, {Kind: model.KindNS, Strings: []string{"1", "2.5"}},
		{Kind: model.KindL, List: []model.Value{model.S("x"), model.N("1")}},
		{Kind: model.KindM, Map: map[string]model.Value{"k": model.S("v"), "a": {Kind: model.KindNULL}}},
		model.S(strings.Repeat("z", model.MaxPartitionKeyBytes+1-len(c.Prefix))),
	} {
		g.account(g.id(), map[int]model.Value{ci: bad})
	}
	// Owners that are not strings.
	g.lockWith(ci, g.value(ci), func(it model.Item) { it[g.s.OwnerAttr] = model.N("7") })
	v = g.value(ci)
	a = g.holds(ci, v)
	g.lockWith(ci, v, func(it model.Item) { it[g.s.OwnerAttr] = model.Null() })
	// No value: NULL, the empty string, absent.
	g.account(g.id(), map[int]model.Value{ci: model.Null()})
	g.account(g.id(), map[int]model.Value{ci: model.S("")})
	g.account(g.id(), nil)
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
