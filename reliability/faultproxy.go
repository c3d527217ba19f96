package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// FaultKind is one way the network fails a DynamoDB request.
type FaultKind string

// The faults FaultProxy injects. "Forwarded" means DynamoDB received the
// request and may have applied it.
const (
	Pass        FaultKind = "pass"          // forwarded and answered as it is
	ResetBefore FaultKind = "reset_before"  // connection reset; not forwarded
	ResetAfter  FaultKind = "reset_after"   // forwarded; connection reset instead of the answer
	Timeout     FaultKind = "timeout"       // forwarded; the answer held for Delay (past the client's deadline)
	Latency     FaultKind = "latency"       // held for Delay, then forwarded and answered
	CutBody     FaultKind = "cut_body"      // forwarded; the answer's body cut half-way, then the connection closed
	Garbage2xx  FaultKind = "garbage_2xx"   // forwarded; answered 200 with a body that is not JSON
	Truncated   FaultKind = "truncated_2xx" // forwarded; answered 200 with the first half of the real body
	Down        FaultKind = "proxy_down"    // not forwarded; every connection closed and the port refusing for Delay
)

// Target names a DynamoDB operation as its X-Amz-Target header does,
// without the "DynamoDB_20120810." prefix.
type Target string

// The targets a write and its settling reads use.
const (
	TransactWriteItems Target = "TransactWriteItems"
	TransactGetItems   Target = "TransactGetItems"
	BatchGetItem       Target = "BatchGetItem"
	Scan               Target = "Scan"
	Query              Target = "Query"
)

// Fault says what to do to the next requests for some targets.
type Fault struct {
	Kind FaultKind
	// Times is how many matching requests the fault applies to; below 0,
	// every one.
	Times int
	// Delay is how long Timeout and Latency hold a request, and how long
	// Down keeps the port closed.
	Delay time.Duration
	// Targets are the operations it applies to; none means
	// TransactWriteItems only.
	Targets []Target
}

func (f Fault) matches(t Target) bool {
	if len(f.Targets) == 0 {
		return t == TransactWriteItems
	}
	for _, want := range f.Targets {
		if want == t {
			return true
		}
	}
	return false
}

// Event is one request the proxy saw.
type Event struct {
	Target    Target
	Fault     FaultKind // Pass when untouched
	Forwarded bool      // DynamoDB received it
	Status    int       // DynamoDB's status, when forwarded
	Token     string    // the request's ClientRequestToken, if any
}

// FaultProxy is an HTTP proxy between the SDK and DynamoDB that injects
// one Fault at a time into the requests of chosen operations. It works on
// whole HTTP requests, so that it knows whether a request reached DynamoDB
// before the client was failed, which a byte-stream proxy (toxiproxy)
// cannot tell, and it can answer 200 with a body of its own after the real
// request was applied.
type FaultProxy struct {
	upstream  *url.URL
	transport *http.Transport
	addr      string // host:port, kept across Down

	mu     sync.Mutex
	srv    *http.Server
	fault  Fault
	left   int // requests the fault still applies to; <0 unlimited
	events []Event
	down   bool

	injected atomic.Int64
}

// NewFaultProxy starts a proxy to the DynamoDB endpoint upstream on a free
// loopback port.
func NewFaultProxy(upstream string) (*FaultProxy, error) {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("fault proxy: upstream %q is not a URL", upstream)
	}
	p := &FaultProxy{upstream: u, transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fault proxy: %w", err)
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	return p, nil
}

// URL is the proxy's endpoint, for the SDK.
func (p *FaultProxy) URL() string { return "http://" + p.addr }

func (p *FaultProxy) serve(ln net.Listener) {
	srv := &http.Server{Handler: p, ErrorLog: discardLog}
	p.srv = srv
	go func() { _ = srv.Serve(ln) }()
}

// Close stops the proxy and closes every connection.
func (p *FaultProxy) Close() {
	p.mu.Lock()
	srv := p.srv
	p.srv, p.down = nil, true
	p.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
	p.transport.CloseIdleConnections()
}

// Set makes f the fault for the next matching requests, replacing any
// other, and forgets the events seen so far.
func (p *FaultProxy) Set(f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault, p.left, p.events = f, f.Times, nil
}

// Events returns the requests seen since the last Set.
func (p *FaultProxy) Events() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Event(nil), p.events...)
}

// Injected returns how many faults were injected since the proxy started:
// requests failed, and periods the proxy was down.
func (p *FaultProxy) Injected() int64 { return p.injected.Load() }

// take returns the fault for a request to t, and counts it.
func (p *FaultProxy) take(t Target) FaultKind {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fault.Kind == "" || p.fault.Kind == Pass || p.left == 0 || !p.fault.matches(t) {
		return Pass
	}
	if p.left > 0 {
		p.left--
	}
	p.injected.Add(1)
	return p.fault.Kind
}

func (p *FaultProxy) record(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, e)
}

func (p *FaultProxy) delay() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fault.Delay
}

// GoDown closes every connection and the port for d: clients are refused
// until it reopens on the same address.
func (p *FaultProxy) GoDown(d time.Duration) {
	p.mu.Lock()
	srv := p.srv
	if p.down || srv == nil {
		p.mu.Unlock()
		return
	}
	p.down, p.srv = true, nil
	p.mu.Unlock()
	_ = srv.Close()
	time.AfterFunc(d, p.comeUp)
}

// comeUp reopens the port after GoDown; another process may have taken it
// meanwhile, so it tries for a while.
func (p *FaultProxy) comeUp() {
	for range 100 {
		p.mu.Lock()
		if !p.down {
			p.mu.Unlock()
			return
		}
		ln, err := net.Listen("tcp", p.addr)
		if err == nil {
			p.down = false
			p.serve(ln)
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		time.Sleep(50 * time.Millisecond)
	}
}

// IsDown reports whether the port is closed.
func (p *FaultProxy) IsDown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.down
}

// ServeHTTP forwards r to DynamoDB, failing it as the current fault says.
func (p *FaultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	target := Target(strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810."))
	body, err := io.ReadAll(r.Body)
	if err != nil {
		reset(w)
		return
	}
	kind := p.take(target)
	ev := Event{Target: target, Fault: kind, Token: token(body)}
	switch kind {
	case ResetBefore:
		p.record(ev)
		reset(w)
		return
	case Down:
		p.record(ev)
		p.GoDown(p.delay())
		return
	case Latency:
		sleepCtx(r.Context(), p.delay())
	}
	resp, err := p.forward(r, body)
	if err != nil {
		// DynamoDB did not answer: what the client sees is a gateway error.
		ev.Forwarded = true
		p.record(ev)
		http.Error(w, "fault proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	ev.Forwarded, ev.Status = true, resp.status
	p.record(ev)
	switch kind {
	case ResetAfter:
		reset(w)
		return
	case Timeout:
		// Hold the answer past the client's deadline; it is written
		// if the client is still there, as a slow network would.
		sleepCtx(r.Context(), p.delay())
	case CutBody:
		resp.write(w, resp.body[:len(resp.body)/2], len(resp.body))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // the server closes the connection mid-body
	case Garbage2xx:
		resp.status = http.StatusOK
		resp.header.Del("X-Amz-Crc32")
		resp.body = []byte("<html><body><h1>200 OK</h1>upstream said something</body></html>")
	case Truncated:
		resp.status = http.StatusOK
		resp.header.Del("X-Amz-Crc32")
		resp.body = truncate(resp.body)
	}
	resp.write(w, resp.body, len(resp.body))
}

// token returns the ClientRequestToken of a request body.
func token(body []byte) string {
	var in struct{ ClientRequestToken string }
	_ = json.Unmarshal(body, &in)
	return in.ClientRequestToken
}

// truncate returns the first half of a JSON body, never the whole of it
// and never empty: "{}" becomes "{".
func truncate(b []byte) []byte {
	if len(b) < 2 {
		return []byte("{")
	}
	return b[:len(b)/2]
}

// answer is DynamoDB's answer to a forwarded request, read in full.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) write(w http.ResponseWriter, body []byte, length int) {
	for k, vs := range a.header {
		if k == "Content-Length" || k == "Connection" || k == "Transfer-Encoding" {
			continue
		}
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Length", strconv.Itoa(length))
	w.WriteHeader(a.status)
	_, _ = w.Write(body)
}

func (p *FaultProxy) forward(r *http.Request, body []byte) (answer, error) {
	u := *p.upstream
	u.Path, u.RawQuery = r.URL.Path, r.URL.RawQuery
	// Not r.Context(): a request that reached DynamoDB is finished there
	// whatever the client does meanwhile.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	for k, vs := range r.Header {
		if k == "Connection" {
			continue
		}
		req.Header[k] = vs
	}
	req.Host = r.Host // signed by the client
	resp, err := p.transport.RoundTrip(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	return answer{status: resp.StatusCode, header: resp.Header.Clone(), body: b}, nil
}

// reset closes the client's connection with a TCP reset and no answer.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// discardLog keeps the server's complaints about connections the proxy
// breaks on purpose out of the test output.
var discardLog = log.New(io.Discard, "", 0)
