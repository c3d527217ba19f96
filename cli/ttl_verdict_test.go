package cli_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo/export"
	"github.com/locktable/locktable/dynamo/export/exporttest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/clock/clocktest"
	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/items"
)

// ttlCase is a lock whose TTL attribute holds ttl (nil: none), and what
// its TTL says at now: "none", "ignored" (DynamoDB ignores it, so the
// lock lasts as without one), "ahead" or "expired".
type ttlCase struct {
	name string
	ttl  *model.Value
	want string
}

func ttlCases(now int64) []ttlCase {
	n := func(s string) *model.Value { v := model.N(s); return &v }
	at := func(sec int64) *model.Value { return n(strconv.FormatInt(sec, 10)) }
	text := model.S(strconv.FormatInt(now-3600, 10))
	null := model.Value{Kind: model.KindNULL}
	return []ttlCase{
		{"no TTL", nil, "none"},
		{"NULL", &null, "none"},
		{"an hour past", at(now - 3600), "expired"},
		{"exactly now", at(now), "expired"},
		{"12 min ahead", at(now + 720), "ahead"},
		{"half a second past", n(fmt.Sprintf("%d.5", now-1)), "expired"}, // 100.5 is not after 101
		{"half a second ahead", n(fmt.Sprintf("%d.5", now)), "ahead"},    // 100.5 is after 100
		{"zero", at(0), "expired"},
		{"milliseconds", at((now - 3600) * 1000), "ignored"}, // above 10^11: DynamoDB reads seconds, so never
		{"a string", &text, "ignored"},
	}
}

// verdictWords are model's verdicts as the cases say them.
var verdictWords = map[model.TTLVerdict]string{model.TTLNone: "none", model.TTLIgnored: "ignored", model.TTLAhead: "ahead", model.TTLExpired: "expired"}

// lasting is a verdict as the judges that cannot tell an ignored TTL
// from none say it.
func lasting(v string) string {
	if v == "ignored" {
		return "none"
	}
	return v
}

// verdictTable is the fake's table holding one lock nobody holds for each TTL
// case, of value value(i), at a fixed clock.
type verdictTable struct {
	sc    model.Schema
	now   int64
	cases []ttlCase
	b     *uitest.Backend
	locks []model.Item // as put, before any write
}

func newVerdictTable(layout model.Layout, tm time.Time) *verdictTable {
	sc := exporttest.WithTTL(model.DefaultSchema(layout))
	t := &verdictTable{sc: sc, now: model.Epoch(tm), cases: ttlCases(model.Epoch(tm)), b: uitest.New(sc)}
	t.b.Clock = clock.Fixed(tm)
	for i, c := range t.cases {
		table, key := sc.LockKey(0, t.value(i))
		lock := model.KeyItem(key)
		if c.ttl != nil {
			lock[sc.LockTTLAttr(0)] = *c.ttl
		}
		t.locks = append(t.locks, lock)
		t.b.Put(table, lock)
	}
	return t
}

func (t *verdictTable) value(i int) string { return fmt.Sprintf("ttl-%d@x", i) }

// verdicts are what judge says of each case's lock, by its value.
type verdicts map[string]string

// model is model's own verdict at now.
func (t *verdictTable) model() verdicts {
	out := verdicts{}
	for i, lock := range t.locks {
		out[t.value(i)] = verdictWords[model.ReadLease(lock, t.sc.LockTTLAttr(0)).Verdict(t.now)]
	}
	return out
}

// census is what a check says: an orphan lock (ignored where it warns of
// the item), an expired lock, or a reservation (no problem, counted).
func (t *verdictTable) census(tt *testing.T) verdicts {
	report, err := t.b.Check(context.Background(), nil)
	if err != nil {
		tt.Fatal(err)
	}
	out := verdicts{}
	reserved := 0
	for i := range t.cases {
		out[t.value(i)] = "ahead"
	}
	for _, p := range report.Problems {
		switch p.Kind {
		case model.OrphanLock:
			out[p.Value] = "none"
		case model.ExpiredLock:
			out[p.Value] = "expired"
		default:
			tt.Errorf("census: %s %s", p.Kind, p.Value)
		}
	}
	for v, said := range out {
		for _, w := range report.Warnings {
			if strings.Contains(w, v+`"`) && said == "none" {
				out[v] = "ignored"
			}
		}
		if said == "ahead" {
			reserved++
		}
	}
	if report.Reservations != reserved {
		tt.Errorf("census: %d reservations, %d locks with no problem", report.Reservations, reserved)
	}
	return out
}

// classifier is the status of the lock of an account that holds its
// value (and outlives it: no TTL).
func (t *verdictTable) classifier() verdicts {
	lockAt := func(k model.KeyRef) (model.Item, bool) { return t.b.Item(k.Table, k.Key) }
	words := map[model.LockStatus]string{model.LockOK: "none", model.LockExpiring: "ahead", model.LockExpired: "expired"}
	out := verdicts{}
	for i := range t.cases {
		acct := model.KeyItem(t.sc.AccountKey(t.sc.AccountPrefix + "h" + strconv.Itoa(i)))
		acct[t.sc.Constraints[0].Attr] = model.S(t.value(i))
		a := model.Classifier{Schema: &t.sc}.Judge(acct, lockAt, func(string, int, string) bool { return false }, t.now)
		out[t.value(i)] = words[a.Locks[0].Status]
	}
	return out
}

// find is what a search for the value finds: an orphan, an expired lock,
// or a reservation it names.
func (t *verdictTable) find(tt *testing.T) verdicts {
	out := verdicts{}
	for i := range t.cases {
		f, err := t.b.Find(context.Background(), t.value(i), backend.FindOptions{})
		if err != nil {
			tt.Fatal(err)
		}
		switch {
		case len(f.Orphans) == 1 && f.Orphans[0].Kind == model.OrphanLock:
			out[t.value(i)] = "none"
		case len(f.Orphans) == 1 && f.Orphans[0].Kind == model.ExpiredLock:
			out[t.value(i)] = "expired"
		case len(f.Orphans) == 0 && strings.Contains(strings.Join(f.How, "; "), "reserved until"):
			out[t.value(i)] = "ahead"
		}
	}
	return out
}

// cache is the item cache's status of each lock as a page of locks read
// it after a check that did not list it, judged at the check's time.
func (t *verdictTable) cache(tt *testing.T) verdicts {
	c := items.New(&t.sc)
	report := &model.Report{Now: t.now}
	c.SetReport(report, report.Duplicates())
	page, err := t.b.LocksPage(context.Background(), backend.Cursor{}, len(t.cases))
	if err != nil {
		tt.Fatal(err)
	}
	words := map[model.LockStatus]string{model.LockOK: "none", model.LockReserved: "ahead", model.LockExpired: "expired"}
	out := verdicts{}
	for _, l := range page.Locks {
		_, st := c.LockStatus(&l)
		out[l.Value] = words[st]
	}
	return out
}

// signups sends a signup of each value, and returns what the holder
// lookup before it says (expired: the guard takes the lock over) and
// what the fake's guard does, with the reason it gives.
func (t *verdictTable) signups(tt *testing.T) (lookup, guard verdicts) {
	ctx := context.Background()
	lookup, guard = verdicts{}, verdicts{}
	for i := range t.cases {
		v := t.value(i)
		p, err := model.Planner{Schema: &t.sc}.Signup(t.sc.AccountPrefix+"new"+strconv.Itoa(i), map[string]string{t.sc.Constraints[0].Attr: v})
		if err != nil {
			tt.Fatal(err)
		}
		tx, err := t.b.Prepare(p, backend.NewToken())
		if err != nil {
			tt.Fatal(err)
		}
		found, err := t.b.LookupHolders(ctx, backend.NewValues(tx.Plan))
		if err != nil {
			tt.Fatal(err)
		}
		lookup[v] = "not expired"
		if strings.Contains(backend.Findings(&t.sc, tx.Plan, found), "the guard takes it over") {
			lookup[v] = "expired"
		}
		res, err := t.b.Execute(ctx, tx)
		if err != nil {
			tt.Fatal(err)
		}
		switch {
		case res.Outcome == model.Committed:
			guard[v] = "expired"
		case res.Outcome == model.Cancelled && len(res.Reasons) == 1 && strings.Contains(res.Reasons[0].Message, " is reserved until "):
			guard[v] = "ahead"
		case res.Outcome == model.Cancelled && len(res.Reasons) == 1 && strings.Contains(res.Reasons[0].Message, " is taken "):
			guard[v] = "none"
		default:
			tt.Errorf("guard %s: %s %+v", v, res.Outcome, res.Reasons)
		}
	}
	return lookup, guard
}

// query is the SQL export's query at now, over views export_0... of the
// schema's tables, in order.
func (t *verdictTable) query(tt *testing.T) string {
	relations := map[string]string{}
	for i, table := range t.sc.Tables() {
		relations[table] = fmt.Sprintf("export_%d", i)
	}
	q, err := export.Query(&t.sc, export.DuckDB, relations, t.now)
	if err != nil {
		tt.Fatal(err)
	}
	return q
}

// duckDB is what the query finds run in DuckDB over an export of the
// table: an orphan, an expired lock, or nothing (a reservation).
func (t *verdictTable) duckDB(tt *testing.T, duck string) verdicts {
	tables := map[string][]model.Item{}
	for i := range t.cases {
		table, _ := t.sc.LockKey(0, t.value(i))
		tables[table] = append(tables[table], t.locks[i])
	}
	_, _, setup := duckExports(tt, &t.sc, tables)
	kinds := map[string]string{}
	for _, row := range duckDB(tt, duck, setup, t.query(tt)) {
		v, _ := row["value"].(string)
		kinds[v] = fmt.Sprint(row["kind"])
	}
	words := map[string]string{"": "ahead", "orphan_lock": "none", "expired_lock": "expired"}
	out := verdicts{}
	for i := range t.cases {
		out[t.value(i)] = words[kinds[t.value(i)]]
	}
	return out
}

// TestOneTTLVerdict: at each clock, in both layouts, a table holding one
// lock nobody holds for each TTL case, and every place that judges a
// lock's TTL says of each what model says: the check's census (its
// problems, reservations and warnings), the classifier (the lock of an
// account holding the value), find, the holder lookup before a write, the
// item cache (a lock read after the check), the fake's guard and the
// reason it gives, and the SQL export's query: its text holds model's
// bound and comparison, and run in DuckDB (where `make duckdb` installed
// it) it finds what the census finds.
func TestOneTTLVerdict(t *testing.T) {
	clocktest.Each(t, func(t *testing.T, tm time.Time) {
		for _, layout := range []model.Layout{model.LayoutSingle, model.LayoutTables} {
			t.Run(string(layout), func(t *testing.T) {
				tab := newVerdictTable(layout, tm)
				q := tab.query(t)
				for _, want := range []string{"CAST(ceil(CASE WHEN TRY_CAST(json_extract_string(", fmt.Sprintf("'/N') AS DOUBLE) <= %d THEN", model.MaxTTL),
					fmt.Sprintf("coalesce(lock_at <= %d, FALSE) AS expired", tab.now)} {
					if !strings.Contains(q, want) {
						t.Errorf("the query lacks %q:\n%s", want, q)
					}
				}
				t.Run("duckdb", func(t *testing.T) {
					judged := tab.duckDB(t, duckDBDir(t))
					for i, c := range tab.cases {
						if got, want := judged[tab.value(i)], lasting(c.want); got != want {
							t.Errorf("%s, TTL %s: the query says %s, want %s", c.name, ttlText(c.ttl), got, want)
						}
					}
				})
				type judge struct {
					name  string
					said  verdicts
					heard func(string) string // the case's verdict as this judge can say it
				}
				same := func(v string) string { return v }
				judges := []judge{
					{"model", tab.model(), same},
					{"census", tab.census(t), same},
					{"classifier", tab.classifier(), lasting},
					{"find", tab.find(t), lasting},
					{"cache", tab.cache(t), lasting},
				}
				lookup, guard := tab.signups(t) // last: they write
				judges = append(judges, judge{"guard", guard, lasting},
					judge{"holder lookup", lookup, func(v string) string { return map[bool]string{true: "expired", false: "not expired"}[v == "expired"] }})
				for _, j := range judges {
					for i, c := range tab.cases {
						if got, want := j.said[tab.value(i)], j.heard(c.want); got != want {
							t.Errorf("%s, TTL %s: the %s says %q, want %s", c.name, ttlText(c.ttl), j.name, got, want)
						}
					}
				}
			})
		}
	})
}

func ttlText(v *model.Value) string {
	if v == nil {
		return "absent"
	}
	return v.DynamoJSON()
}
