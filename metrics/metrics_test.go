package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/locktable/locktable/model"
)

// TestReadiness: /readyz says ready only while the stream is followed,
// once the first check counted the problems, and while the follow is
// within the lag allowed; a round that read nothing has caught up.
func TestReadiness(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	w := New(Options{Now: func() time.Time { return now }, ReadUnits: func() float64 { return 0 }, ReadyLag: time.Minute, Table: "t"})
	srv := httptest.NewServer(w.Handler())
	defer srv.Close()
	ready := func() (int, string) {
		resp, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	steps := []struct {
		what string
		do   func()
		code int
		says string
	}{
		{"nothing yet", func() {}, 503, "not followed"},
		{"following, before the check", func() { w.Round(2, false) }, 503, "first check"},
		{"checked", w.Checked, 200, "ready"},
		{"a record 5 min old judged", func() { w.Judged([]model.Change{{At: now.Add(-5 * time.Minute)}}); w.Round(2, true) }, 503, "5m0s behind"},
		{"caught up", func() { w.Round(2, false) }, 200, "ready"},
		{"no shard", func() { w.Round(0, false) }, 503, "no shard"},
		{"stopped", func() { w.Round(1, false); w.Stopped() }, 503, "not followed"},
	}
	for _, s := range steps {
		s.do()
		if code, body := ready(); code != s.code || !strings.Contains(body, s.says) {
			t.Errorf("%s: /readyz %d %q; want %d saying %q", s.what, code, body, s.code, s.says)
		}
	}
}
