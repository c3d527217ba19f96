// Package metrics is what a long-running `locktable watch` tells a
// monitoring system: Prometheus metrics of the problems known and of the
// follow itself, and the health endpoints a supervisor or an orchestrator
// asks (/healthz: the process is up; /readyz: every shard is followed, the
// problems are known, and the follow is not far behind the table).
//
// The watch tells a Watch what happens, from its one goroutine; a scrape
// reads what it was told, from another, under a lock. A nil *Watch (a
// watch without --metrics-addr) is told everything and keeps nothing.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/locktable/locktable/model"
)

// DefaultReadyLag is how far behind the table the follow may be and still
// be ready (--ready-lag).
const DefaultReadyLag = time.Minute

// Options say what a Watch reads for itself and how it judges readiness.
type Options struct {
	// Now is the time of day (the watch's clock).
	Now func() time.Time
	// ReadUnits is the read capacity the watch's reads have consumed so
	// far (dynamo.Store.ConsumedRCU).
	ReadUnits func() float64
	// ReadyLag is the most lag that is ready (DefaultReadyLag when 0).
	ReadyLag time.Duration
	// Table names a problem's table when it names none (the accounts'
	// table: a problem in layout tables names its lock's).
	Table string
}

// Watch holds the metrics of one watch.
type Watch struct {
	o        Options
	reg      *prometheus.Registry
	judged   prometheus.Counter
	reported *prometheus.CounterVec
	errs     *prometheus.CounterVec

	mu        sync.Mutex
	problems  map[problemKey]int
	shards    int
	following bool // the follow has started and has not ended
	known     bool // the problems have been counted once (the first check)
	newest    time.Time
	caughtUp  bool // the last round read nothing new: no lag
}

// problemKey is a problems gauge's labels.
type problemKey struct{ table, kind string }

var problemsDesc = prometheus.NewDesc("locktable_problems", "The problems known now, by table and kind (a check's at the start, then as each write changes them).", []string{"table", "kind"}, nil)

// New returns a Watch that has been told nothing yet.
func New(o Options) *Watch {
	if o.ReadyLag <= 0 {
		o.ReadyLag = DefaultReadyLag
	}
	w := &Watch{o: o, reg: prometheus.NewRegistry(), problems: map[problemKey]int{}}
	w.judged = prometheus.NewCounter(prometheus.CounterOpts{Name: "locktable_changes_judged_total", Help: "The stream records judged."})
	w.reported = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "locktable_problems_reported_total", Help: "The problems reported, by event (appeared, existing, resolved)."}, []string{"event"})
	w.errs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "locktable_errors_total", Help: "The errors met, by kind (check, judge, stream, output, metrics)."}, []string{"kind"})
	w.reg.MustRegister(w.judged, w.reported, w.errs, problemsCollector{w},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "locktable_stream_lag_seconds", Help: "Now minus the creation time of the newest record judged; 0 once a round of reads found nothing new."}, w.lagSeconds),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "locktable_shards", Help: "The stream shards followed now."}, func() float64 {
			w.mu.Lock()
			defer w.mu.Unlock()
			return float64(w.shards)
		}),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "locktable_read_units_total", Help: "The read capacity units consumed (the first check's and the confirming reads)."}, o.ReadUnits),
	)
	return w
}

// Problems counts ps, the problems known now, replacing those counted
// before.
func (w *Watch) Problems(ps []model.Problem) {
	if w == nil {
		return
	}
	counts := map[problemKey]int{}
	for _, p := range ps {
		table := p.LockTable
		if table == "" {
			table = w.o.Table
		}
		counts[problemKey{table, string(p.Kind)}]++
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// A kind that went to nought stays, at 0, rather than vanish: a
	// series that stops is not a series that reads 0.
	for k := range w.problems {
		if _, ok := counts[k]; !ok {
			counts[k] = 0
		}
	}
	w.problems = counts
}

// Checked says the first check has counted the problems that were there
// before the follow began: the gauge is the table's from now on.
func (w *Watch) Checked() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.known = true
}

// Judged counts the records of one batch, judged; the newest of their
// creation times is the lag's mark.
func (w *Watch) Judged(changes []model.Change) {
	if w == nil {
		return
	}
	w.judged.Add(float64(len(changes)))
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range changes {
		if c.At.After(w.newest) {
			w.newest = c.At
		}
	}
	if len(changes) > 0 {
		w.caughtUp = false
	}
}

// Reported counts a problem reported as event.
func (w *Watch) Reported(event string) {
	if w != nil {
		w.reported.WithLabelValues(event).Inc()
	}
}

// Failed counts an error of kind.
func (w *Watch) Failed(kind string) {
	if w != nil {
		w.errs.WithLabelValues(kind).Inc()
	}
}

// Round is told after each round of reads of the stream: how many shards
// are followed, and whether any had records (a round that read nothing
// has caught up with the table: no lag).
func (w *Watch) Round(shards int, busy bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.shards, w.following = shards, true
	if !busy {
		w.caughtUp = true
	}
}

// Stopped says the follow has ended: not ready any more.
func (w *Watch) Stopped() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.following = false
}

// lagSeconds is the lag gauge's value.
func (w *Watch) lagSeconds() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lag().Seconds()
}

// lag is how far behind the table the follow is; w.mu held.
func (w *Watch) lag() time.Duration {
	if w.caughtUp || w.newest.IsZero() {
		return 0
	}
	return max(w.o.Now().Sub(w.newest), 0)
}

// ready says why the watch is not ready ("": it is).
func (w *Watch) ready() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case !w.following:
		return "the stream is not followed"
	case w.shards == 0:
		return "no shard is followed"
	case !w.known:
		return "the first check has not finished"
	case w.lag() > w.o.ReadyLag:
		return fmt.Sprintf("%s behind the table, more than %s", w.lag().Round(time.Second), w.o.ReadyLag)
	}
	return ""
}

// Handler serves /metrics, /healthz and /readyz.
func (w *Watch) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(w.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(rw http.ResponseWriter, _ *http.Request) { fmt.Fprintln(rw, "ok") })
	mux.HandleFunc("/readyz", func(rw http.ResponseWriter, _ *http.Request) {
		if why := w.ready(); why != "" {
			http.Error(rw, "not ready: "+why, http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(rw, "ready")
	})
	return mux
}

// Listen listens on addr (":9090"; port 0 takes a free one) and serves the
// handler until ctx ends. It returns the address listened on, or why it
// could not listen.
func (w *Watch) Listen(ctx context.Context, addr string) (net.Addr, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			w.Failed("metrics")
		}
	}()
	return l.Addr(), nil
}

// problemsCollector collects the problems gauge from what Problems was
// told, a series per table and kind.
type problemsCollector struct{ w *Watch }

func (c problemsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- problemsDesc }

func (c problemsCollector) Collect(ch chan<- prometheus.Metric) {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	for k, n := range c.w.problems {
		ch <- prometheus.MustNewConstMetric(problemsDesc, prometheus.GaugeValue, float64(n), k.table, k.kind)
	}
}
