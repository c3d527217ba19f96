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

// lasting is a verdict as the judges that cannot tell an ignored TTL
// from none say it.
func lasting(v string) string {
	if v == "ignored" {
		return "none"
	}
	return v
}

// TestOneTTLVerdict: at each clock, a table holding one lock nobody holds
// for each TTL case, and every place that judges a lock's TTL says of
// each what model says: the check's census (its problems, reservations
// and warnings), the classifier (the lock of an account holding the
// value), find, the holder lookup before a write, the item cache (a lock
// read after the check), the fake's guard and the reason it gives, and
// the SQL export's query (its text always, and run in DuckDB where `make
// duckdb` installed it).
func TestOneTTLVerdict(t *testing.T) {
	clocktest.Each(t, func(t *testing.T, tm time.Time) {
		ctx := context.Background()
		now := model.Epoch(tm)
		sc := model.DefaultSchema(model.LayoutSingle)
		sc.TTLAttr, sc.TTLGiven = "ttl", true
		cases := ttlCases(now)
		b := uitest.New(sc)
		b.Clock = clock.Fixed(tm)
		value := func(i int) string { return fmt.Sprintf("ttl-%d@x", i) }
		locks := map[string]model.Item{}
		for i, c := range cases {
			_, key := sc.LockKey(0, value(i))
			lock := model.KeyItem(key)
			if c.ttl != nil {
				lock[sc.TTLAttr] = *c.ttl
			}
			locks[value(i)] = lock
			b.Put(sc.Table, lock)
		}
		judged := map[string]map[string]string{} // judge -> value -> verdict
		say := func(judge, v, verdict string) {
			if judged[judge] == nil {
				judged[judge] = map[string]string{}
			}
			judged[judge][v] = verdict
		}

		// The census, as a check runs it.
		report, err := b.Check(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range cases {
			say("census", value(i), "ahead") // a reservation: no problem
			for _, w := range report.Warnings {
				if strings.Contains(w, `"UNIQ#EMAIL#`+value(i)+`"`) {
					say("census", value(i), "ignored")
				}
			}
		}
		for _, p := range report.Problems {
			switch p.Kind {
			case model.OrphanLock:
				if judged["census"][p.Value] != "ignored" {
					say("census", p.Value, "none")
				}
			case model.ExpiredLock:
				say("census", p.Value, "expired")
			default:
				t.Errorf("census: %s %s", p.Kind, p.Value)
			}
		}
		ahead := 0
		for _, c := range cases {
			if c.want == "ahead" {
				ahead++
			}
		}
		if report.Reservations != ahead {
			t.Errorf("census: %d reservations, want %d", report.Reservations, ahead)
		}

		// The SQL export's query: model's bound on seconds, rounded up as
		// ReadLease rounds, and Verdict's comparison, with now written in.
		q, err := export.Query(&sc, export.DuckDB, map[string]string{sc.Table: "export_0"}, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"CAST(ceil(CASE WHEN TRY_CAST(json_extract_string(", fmt.Sprintf("'/N') AS DOUBLE) <= %d THEN", model.MaxTTL),
			fmt.Sprintf("coalesce(lock_at <= %d, FALSE) AS expired", now)} {
			if !strings.Contains(q, want) {
				t.Errorf("the query lacks %q:\n%s", want, q)
			}
		}

		// The query run in DuckDB, over an export of the table.
		t.Run("duckdb", func(t *testing.T) {
			duck := duckDBDir(t)
			var table []model.Item
			for i := range cases {
				table = append(table, locks[value(i)])
			}
			_, _, setup := duckExports(t, &sc, map[string][]model.Item{sc.Table: table})
			found := map[string]string{}
			for _, row := range duckDB(t, duck, setup, q) {
				v, _ := row["value"].(string)
				found[v] = fmt.Sprint(row["kind"])
			}
			for i, c := range cases {
				got := map[string]string{"": "ahead", "orphan_lock": "none", "expired_lock": "expired"}[found[value(i)]]
				if want := lasting(c.want); got != want {
					t.Errorf("%s, TTL %s: the query finds %q, so %s, want %s", c.name, ttlText(c.ttl), found[value(i)], got, want)
				}
			}
		})

		// The item cache, by a report that does not list the locks (read
		// after the check), judged at the check's time.
		cache := items.New(&sc)
		after := &model.Report{Now: now}
		cache.SetReport(after, after.Duplicates())
		page, err := b.LocksPage(ctx, backend.Cursor{}, len(cases))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range page.Locks {
			switch _, st := cache.LockStatus(&l); st {
			case model.LockOK:
				say("cache", l.Value, "none")
			case model.LockReserved:
				say("cache", l.Value, "ahead")
			case model.LockExpired:
				say("cache", l.Value, "expired")
			default:
				t.Errorf("cache: %s %s", st, l.Value)
			}
		}

		for i := range cases {
			v := value(i)
			// The classifier: the lock of an account that holds v.
			id := "ACCT#h" + strconv.Itoa(i)
			acct := model.KeyItem(sc.AccountKey(id))
			acct["email"] = model.S(v)
			lockAt := func(k model.KeyRef) (model.Item, bool) {
				it, ok := b.Item(k.Table, k.Key)
				return it, ok
			}
			a := model.Classifier{Schema: &sc}.Judge(acct, lockAt, func(string, int, string) bool { return false }, now)
			switch st := a.Locks[0].Status; st {
			case model.LockOK:
				say("classifier", v, "none")
			case model.LockExpiring: // the account outlives the reserved lock
				say("classifier", v, "ahead")
			case model.LockExpired:
				say("classifier", v, "expired")
			default:
				t.Errorf("classifier: %s %s", st, v)
			}

			// find.
			f, err := b.Find(ctx, v, backend.FindOptions{})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case len(f.Orphans) == 1 && f.Orphans[0].Kind == model.OrphanLock:
				say("find", v, "none")
			case len(f.Orphans) == 1 && f.Orphans[0].Kind == model.ExpiredLock:
				say("find", v, "expired")
			case len(f.Orphans) == 0 && strings.Contains(strings.Join(f.How, "; "), "reserved until"):
				say("find", v, "ahead")
			default:
				t.Errorf("find %s: %+v", v, f)
			}

			// A signup of v: the holder lookup before it is sent, then the
			// fake's guard and the reason it gives.
			p, err := model.Planner{Schema: &sc}.Signup("ACCT#new"+strconv.Itoa(i), map[string]string{"email": v})
			if err != nil {
				t.Fatal(err)
			}
			tx, err := b.Prepare(p, backend.NewToken())
			if err != nil {
				t.Fatal(err)
			}
			lookup, err := b.LookupHolders(ctx, backend.NewValues(tx.Plan))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(backend.Findings(&sc, tx.Plan, lookup), "the guard takes it over") {
				say("holder lookup", v, "expired")
			} else {
				say("holder lookup", v, "not expired")
			}
			res, err := b.Execute(ctx, tx)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case res.Outcome == model.Committed:
				say("guard", v, "expired")
			case res.Outcome == model.Cancelled && len(res.Reasons) == 1 && strings.Contains(res.Reasons[0].Message, " is reserved until "):
				say("guard", v, "ahead")
			case res.Outcome == model.Cancelled && len(res.Reasons) == 1 && strings.Contains(res.Reasons[0].Message, " is taken "):
				say("guard", v, "none")
			default:
				t.Errorf("guard %s: %s %+v", v, res.Outcome, res.Reasons)
			}
		}

		for i, c := range cases {
			v := value(i)
			for judge, want := range map[string]string{
				"census":        c.want,
				"classifier":    lasting(c.want),
				"find":          lasting(c.want),
				"cache":         lasting(c.want),
				"guard":         lasting(c.want),
				"holder lookup": map[bool]string{true: "expired", false: "not expired"}[c.want == "expired"],
			} {
				if got := judged[judge][v]; got != want {
					t.Errorf("%s, TTL %s: the %s says %s, want %s", c.name, ttlText(c.ttl), judge, got, want)
				}
			}
		}
	})
}

func ttlText(v *model.Value) string {
	if v == nil {
		return "absent"
	}
	return v.DynamoJSON()
}
