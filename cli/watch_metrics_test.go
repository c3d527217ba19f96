package cli_test

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/locktable/locktable/dynamo/dynamotest"
)

// TestWatchMetrics (issue 40, 2): watch --metrics-addr serves metrics that
// a Prometheus text-format parser reads. Once the stream settles, the
// problems gauge equals check's counts, those there before the watch
// began (its first check) as well as those the writes made since; a
// problem resolved reads 0. /healthz answers at once, /readyz once the
// first check is in.
func TestWatchMetrics(t *testing.T) {
	dynamotest.Endpoint(t)
	t.Parallel()
	store, client, flags := watchedTable(t)
	table := store.Schema.Table
	// Before the watch: an orphan lock, and an account without its locks.
	dynamotest.Put(t, client, table, dynamotest.Lock("UNIQ#EMAIL#old@x.io", "ACCT#gone"), dynamotest.Account("ACCT#bare", "bare@x.io", "bare"))
	w := startWatch(t, append([]string{"--json", "--metrics-addr", "127.0.0.1:0"}, flags...)...)
	base := metricsAt(t, w.said)
	if code, body := get(t, base+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz: %d %s", code, body)
	}
	waitFor(t, "/readyz to say ready", func() (bool, string) {
		code, body := get(t, base+"/readyz")
		return code == http.StatusOK, fmt.Sprintf("%d %s", code, body)
	})

	// Since: a signup whose account is deleted, leaving two orphans; the
	// bare account's email lock put, resolving its missing lock.
	signup(t, flags, "ACCT#ada", "ada@x.io", "ada")
	deleteRaw(t, client, table, "ACCT#ada")
	dynamotest.Put(t, client, table, dynamotest.Lock("UNIQ#EMAIL#bare@x.io", "ACCT#bare"))
	want := map[string]float64{"orphan_lock": 3, "missing_lock": 1}
	if got := checkCounts(t, flags); !maps.Equal(got, want) {
		t.Fatalf("check counts %v; the test wants %v", got, want)
	}
	var fams map[string]*familyView
	waitFor(t, "the problems gauge to equal check's counts", func() (bool, string) {
		fams = scrape(t, base)
		got := fams["locktable_problems"].byLabel("kind")
		return maps.Equal(nonZero(got), want), fmt.Sprintf("%v", got)
	})
	if got := fams["locktable_problems"].byLabel("table"); len(got) != 1 || got[table] != 4 {
		t.Errorf("problems by table %v; want the 4 under %s", got, table)
	}
	if got := fams["locktable_problems"].byLabel("kind")["missing_lock"]; got != 1 {
		t.Errorf("missing_lock %v: the bare account's email lock resolved one of two", got)
	}
	reported := fams["locktable_problems_reported_total"].byLabel("event")
	if reported["appeared"] != 2 || reported["resolved"] != 1 {
		t.Errorf("reported %v; want 2 appeared (ada's locks) and 1 resolved (bare's email)", reported)
	}
	for name, least := range map[string]float64{"locktable_changes_judged_total": 5, "locktable_shards": 1, "locktable_read_units_total": 1} {
		if got := fams[name].total(); got < least {
			t.Errorf("%s %v; want at least %v", name, got, least)
		}
	}
	if _, ok := fams["locktable_stream_lag_seconds"]; !ok {
		t.Error("no locktable_stream_lag_seconds")
	}
}

// TestWatchLogFormatJSON (issue 40, 2): with --log-format json, what
// watch says on stderr is one log/slog JSON record a line; stdout is the
// same as ever.
func TestWatchLogFormatJSON(t *testing.T) {
	dynamotest.Endpoint(t)
	t.Parallel()
	_, client, flags := watchedTable(t)
	w := startWatch(t, append([]string{"--log-format", "json", "--metrics-addr", "127.0.0.1:0"}, flags...)...)
	for _, line := range w.said {
		var record struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(line), &record); err != nil || record.Level == "" || record.Msg == "" {
			t.Errorf("stderr line %q is not a slog JSON record (%v)", line, err)
		}
	}
	if len(w.said) == 0 || !strings.Contains(w.said[0], `"addr":"127.0.0.1:`) {
		t.Errorf("stderr before watching: %q; want the metrics' address as a record", w.said)
	}
	signup(t, flags, "ACCT#ada", "ada@x.io", "ada")
	deleteRaw(t, client, flags[3], "ACCT#ada")
	if line := w.next(); !strings.HasPrefix(line, "appeared orphan_lock") {
		t.Errorf("stdout %q; want the line for a person, as without --log-format", line)
	}
}

// metricsAt is the base URL of the metrics watch said it serves.
func metricsAt(t *testing.T, said []string) string {
	t.Helper()
	at := regexp.MustCompile(`serving metrics at (http://[^/ ]+)/metrics`)
	for _, line := range said {
		if m := at.FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	t.Fatalf("watch did not say where it serves metrics: %q", said)
	return ""
}

// get fetches url and returns its status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// waitFor waits up to 30 s (a bound on a stalled follow, not a speed
// asserted) until ok says so, then fails with what it last said.
func waitFor(t *testing.T, what string, ok func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		done, said := ok()
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s: %s", what, said)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkCounts is locktable check's count of each kind of problem.
func checkCounts(t *testing.T, flags []string) map[string]float64 {
	t.Helper()
	r := run(t, append([]string{"check", "--json"}, flags...)...)
	var report struct {
		Problems []struct{ Kind string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatalf("check --json: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	n := map[string]float64{}
	for _, p := range report.Problems {
		n[p.Kind]++
	}
	return n
}

// familyView is a metric family as parsed from the text format.
type familyView struct{ samples []model.Sample }

// byLabel sums the family's samples by the value of one label.
func (f *familyView) byLabel(name string) map[string]float64 {
	n := map[string]float64{}
	if f != nil {
		for _, s := range f.samples {
			n[string(s.Metric[model.LabelName(name)])] += float64(s.Value)
		}
	}
	return n
}

// total sums the family's samples.
func (f *familyView) total() float64 {
	n := 0.0
	if f != nil {
		for _, s := range f.samples {
			n += float64(s.Value)
		}
	}
	return n
}

// scrape reads /metrics with Prometheus's own text-format parser.
func scrape(t *testing.T, base string) map[string]*familyView {
	t.Helper()
	code, body := get(t, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, body)
	}
	out := map[string]*familyView{}
	for name, f := range fams {
		v := &familyView{}
		for _, m := range f.GetMetric() {
			s := model.Sample{Metric: model.Metric{}}
			for _, l := range m.GetLabel() {
				s.Metric[model.LabelName(l.GetName())] = model.LabelValue(l.GetValue())
			}
			switch {
			case m.GetGauge() != nil:
				s.Value = model.SampleValue(m.GetGauge().GetValue())
			case m.GetCounter() != nil:
				s.Value = model.SampleValue(m.GetCounter().GetValue())
			}
			v.samples = append(v.samples, s)
		}
		out[name] = v
	}
	return out
}

// nonZero is m without its zero entries.
func nonZero(m map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}
