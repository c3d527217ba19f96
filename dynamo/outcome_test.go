package dynamo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// faultProxy stands between the SDK and dynoxide and answers each
// TransactWriteItems as its fault function says; every other request is
// forwarded untouched.
type faultProxy struct {
	srv    *httptest.Server
	rp     *httputil.ReverseProxy
	fault  func(n int, w http.ResponseWriter, r *http.Request, forward func() *httptest.ResponseRecorder)
	writes atomic.Int32
}

func newFaultProxy(t *testing.T, fault func(n int, w http.ResponseWriter, r *http.Request, forward func() *httptest.ResponseRecorder)) *faultProxy {
	t.Helper()
	u, err := url.Parse(dynamotest.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{rp: httputil.NewSingleHostReverseProxy(u), fault: fault}
	p.srv = httptest.NewServer(p)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Amz-Target") != targetWrite {
		p.rp.ServeHTTP(w, r)
		return
	}
	n := int(p.writes.Add(1))
	body, _ := readAll(r)
	forward := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r2 := r.Clone(context.WithoutCancel(r.Context()))
		r2.Body = readCloser(body)
		p.rp.ServeHTTP(rec, r2)
		return rec
	}
	r.Body = readCloser(body)
	p.fault(n, w, r, forward)
}

func readAll(r *http.Request) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r.Body)
	return b.Bytes(), err
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

func readCloser(b []byte) nopCloser { return nopCloser{bytes.NewReader(b)} }

// storeVia is a writable store for f's tables whose client talks to url,
// with an audit log in memory.
func storeVia(t *testing.T, f fixture, url string) (*dynamo.Store, *bytes.Buffer) {
	t.Helper()
	client, ep, err := dynamo.NewClient(context.Background(), dynamo.ClientOptions{EndpointURL: url})
	if err != nil {
		t.Fatal(err)
	}
	s := dynamo.NewStore(client, ep, f.store.Schema, clock.System())
	s.SetWritable(true)
	var audit bytes.Buffer
	s.Audit = dynamo.NewAuditLog(&audit, clock.System())
	return s, &audit
}

// auditEntries decodes an audit log, one entry per line.
func auditEntries(t *testing.T, log string) []dynamo.AuditEntry {
	t.Helper()
	var out []dynamo.AuditEntry
	for _, l := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		if l == "" {
			continue
		}
		var e dynamo.AuditEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

// TestOutcomeOfAnUnreadableAnswer: DynamoDB applied the write, and the
// 200 that says so is garbage or cut short. It was reported refused (exit
// 2, audit "refused") while the account was in the table; it is committed.
func TestOutcomeOfAnUnreadableAnswer(t *testing.T) {
	for name, body := range map[string]func(real []byte) []byte{
		"not JSON":   func([]byte) []byte { return []byte("<html>502 Bad Gateway</html>") },
		"cut short":  func(real []byte) []byte { return real[:len(real)/2] },
		"empty body": func([]byte) []byte { return nil },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, model.LayoutSingle)
			p := newFaultProxy(t, func(n int, w http.ResponseWriter, r *http.Request, forward func() *httptest.ResponseRecorder) {
				rec := forward()
				if n > 1 {
					w.WriteHeader(rec.Code)
					_, _ = w.Write(rec.Body.Bytes())
					return
				}
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				w.WriteHeader(http.StatusOK)
				_, _ = w.Write(body([]byte(`{"ConsumedCapacity":[],"ItemCollectionMetrics":{}}`)))
			})
			s, audit := storeVia(t, f, p.srv.URL)
			res := execute(t, s, must(t)(s.Schema.Signup("ACCT#a", f.attrs("a@x", "ada"))))
			if res.Outcome != model.Committed {
				t.Fatalf("outcome %s, reasons %+v; want committed", res.Outcome, res.Reasons)
			}
			f.wantState(f.healthy("ACCT#a", "a@x", "ada"))
			entries := auditEntries(t, audit.String())
			if len(entries) != 2 || entries[1].Outcome != model.Committed {
				t.Fatalf("audit %q", audit.String())
			}
		})
	}
}

// TestOutcomeOfAnErrorPage: a write answered by a proxy's HTML 5xx page
// may have reached DynamoDB, so it is unknown until settled, never
// rejected on the strength of a page that is not DynamoDB's answer:
// applied behind the page, it is committed; never applied, it is not
// committed, by a read of its keys.
func TestOutcomeOfAnErrorPage(t *testing.T) {
	for name, applied := range map[string]bool{"applied": true, "not applied": false} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, model.LayoutSingle)
			p := newFaultProxy(t, func(n int, w http.ResponseWriter, r *http.Request, forward func() *httptest.ResponseRecorder) {
				if applied && n > 1 {
					rec := forward()
					w.WriteHeader(rec.Code)
					_, _ = w.Write(rec.Body.Bytes())
					return
				}
				if applied {
					forward()
				}
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusBadGateway)
				_, _ = w.Write([]byte("<html><body><h1>502 Bad Gateway</h1></body></html>"))
			})
			s, audit := storeVia(t, f, p.srv.URL)
			res := execute(t, s, must(t)(s.Schema.Signup("ACCT#a", f.attrs("a@x", "ada"))))
			entries := auditEntries(t, audit.String())
			if applied {
				wantCommitted(t, res)
				f.wantState(f.healthy("ACCT#a", "a@x", "ada"))
				if len(entries) != 2 || entries[1].Outcome != model.Committed {
					t.Fatalf("audit %q", audit.String())
				}
				return
			}
			if res.Outcome != model.Cancelled || len(res.Reasons) != 1 || res.Reasons[0].Code != "NotCommitted" {
				t.Fatalf("outcome %s %+v; want not committed, settled by reading", res.Outcome, res.Reasons)
			}
			f.wantState()
			if len(entries) != 2 || entries[1].Outcome != model.Cancelled {
				t.Fatalf("audit %q", audit.String())
			}
		})
	}
}

// TestOutcomeOfAnInterruptedWrite: Ctrl-C while the write is in flight,
// after DynamoDB applied it. It was "context canceled", exit 2, audit
// "refused", with the row committed; the write settles first.
func TestOutcomeOfAnInterruptedWrite(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	p := newFaultProxy(t, func(n int, w http.ResponseWriter, r *http.Request, forward func() *httptest.ResponseRecorder) {
		forward()
		interrupt() // the user presses Ctrl-C while the answer is on its way
		<-r.Context().Done()
	})
	s, audit := storeVia(t, f, p.srv.URL)
	tx, err := s.Writer.Prepare(must(t)(s.Schema.Signup("ACCT#a", f.attrs("a@x", "ada"))), backend.NewToken())
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Writer.Execute(ctx, tx)
	if err != nil || res.Outcome != model.Committed {
		t.Fatalf("outcome %s, err %v; want committed, settled after the interrupt", res.Outcome, err)
	}
	if got := p.writes.Load(); got != 1 {
		t.Errorf("%d TransactWriteItems: an interrupted write is settled by reading, not sent again", got)
	}
	f.wantState(f.healthy("ACCT#a", "a@x", "ada"))
	if e := auditEntries(t, audit.String()); len(e) != 2 || e[1].Outcome != model.Committed {
		t.Fatalf("audit %q", audit.String())
	}
}

// TestOutcomeWhenNothingWasSent: the endpoint refuses connections. The
// write was "unknown" after ~35 attempts; nothing left the process, so it
// is not sent, an error, and the audit says so.
func TestOutcomeWhenNothingWasSent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	s, audit := storeVia(t, f, dead)
	tx, err := s.Writer.Prepare(must(t)(s.Schema.Signup("ACCT#a", f.attrs("a@x", "ada"))), backend.NewToken())
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Writer.Execute(context.Background(), tx)
	if err == nil || res.Outcome != model.NotSent || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("outcome %s, err %v; want not_sent with the reason", res.Outcome, err)
	}
	if e := auditEntries(t, audit.String()); len(e) != 2 || e[1].Outcome != model.NotSent {
		t.Fatalf("audit %q", audit.String())
	}
}

// TestOutcomeAttemptsAreBounded: every attempt answers 500. The SDK's
// retryer and locktable's loop multiplied each other (up to ~35 attempts
// for one write); the write is now sent at most a handful of times, then
// settled by reading the keys.
func TestOutcomeAttemptsAreBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	p := newFaultProxy(t, func(n int, w http.ResponseWriter, r *http.Request, forward func() *httptest.ResponseRecorder) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"boom"}`))
	})
	s, _ := storeVia(t, f, p.srv.URL)
	res := execute(t, s, must(t)(s.Schema.Signup("ACCT#a", f.attrs("a@x", "ada"))))
	if res.Outcome != model.Cancelled || len(res.Reasons) != 1 || res.Reasons[0].Code != "NotCommitted" {
		t.Fatalf("outcome %s %+v; want not committed, settled by reading", res.Outcome, res.Reasons)
	}
	if got := p.writes.Load(); got > 6 {
		t.Fatalf("%d TransactWriteItems for one write; want at most 6", got)
	}
	f.wantState()
}

// TestAuditIntentIsSyncedBeforeTheRequest: a process killed right after
// DynamoDB commits must have left a line naming the write. The request
// arrives only after its intent, with its token, is in the log file.
func TestAuditIntentIsSyncedBeforeTheRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	path := filepath.Join(t.TempDir(), "audit.log")
	var seen atomic.Value
	p := newFaultProxy(t, func(n int, w http.ResponseWriter, r *http.Request, forward func() *httptest.ResponseRecorder) {
		data, _ := os.ReadFile(path)
		seen.Store(string(data))
		rec := forward()
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
	s, _ := storeVia(t, f, p.srv.URL)
	log, file, err := dynamo.OpenAuditLog(path, clock.System())
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	s.Audit = log
	res := execute(t, s, must(t)(s.Schema.Signup("ACCT#a", f.attrs("a@x", "ada"))))
	wantCommitted(t, res)
	before, _ := seen.Load().(string)
	e := auditEntries(t, before)
	if len(e) != 1 || e[0].Event != dynamo.EventIntent || e[0].Token != res.Token || len(e[0].Keys) != 3 {
		t.Fatalf("the log when the request arrived: %q; want the intent with token %s", before, res.Token)
	}
}

// failingWriter is an audit log that cannot be written (a full disk).
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestAuditFailsClosed: with --audit-log /dev/full a write committed and
// nothing was logged. A write whose intent cannot be recorded is not sent.
func TestAuditFailsClosed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	for name, w := range map[string]func(t *testing.T) *dynamo.AuditLog{
		"a writer that fails": func(*testing.T) *dynamo.AuditLog { return dynamo.NewAuditLog(failingWriter{}, clock.System()) },
		"/dev/full": func(t *testing.T) *dynamo.AuditLog {
			log, file, err := dynamo.OpenAuditLog("/dev/full", clock.System())
			if err != nil {
				t.Skipf("no /dev/full: %v", err)
			}
			t.Cleanup(func() { file.Close() })
			return log
		},
	} {
		t.Run(name, func(t *testing.T) {
			api := &countingAPI{api: f.client}
			s := dynamo.NewStore(api, f.store.Endpoint, f.store.Schema, clock.System())
			s.SetWritable(true)
			s.Audit = w(t)
			tx, err := s.Writer.Prepare(must(t)(s.Schema.Signup("ACCT#a", f.attrs("a@x", "ada"))), backend.NewToken())
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.Writer.Execute(context.Background(), tx)
			if !errors.Is(err, dynamo.ErrAudit) || res.Outcome != model.NotSent {
				t.Fatalf("outcome %s, err %v; want not sent for lack of an audit log", res.Outcome, err)
			}
			if n := api.snapshot()["TransactWriteItems"]; n != 0 {
				t.Fatalf("%d TransactWriteItems sent without an audit record", n)
			}
			f.wantState()
		})
	}
}

// TestAuditEscapesEveryHiddenCharacter: keys with bidi overrides,
// zero-width and BOM characters, C1 controls, DEL, NEL and line separators
// were written raw, and a line reader split one record in two. Each record
// is one line of printable ASCII-safe JSON that decodes to the same keys.
func TestAuditEscapesEveryHiddenCharacter(t *testing.T) {
	t.Parallel()
	key := "ACCT#\u202egnp.exe\u200b\ufeff\u0085\u009b\x7f\u2028\u2029x"
	var buf bytes.Buffer
	log := dynamo.NewAuditLog(&buf, clock.System())
	if err := log.Record(dynamo.AuditEntry{Event: dynamo.EventIntent, Operation: "delete", Keys: []string{key}, Token: "t"}); err != nil {
		t.Fatal(err)
	}
	line := buf.String()
	if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") {
		t.Fatalf("record is not one line: %q", line)
	}
	for _, r := range []rune{0x202e, 0x200b, 0xfeff, 0x85, 0x9b, 0x7f, 0x2028, 0x2029} {
		if strings.ContainsRune(line, r) {
			t.Errorf("record holds U+%04X raw: %q", r, line)
		}
	}
	if e := auditEntries(t, line); len(e) != 1 || e[0].Keys[0] != key {
		t.Fatalf("record %q does not decode to the key", line)
	}
}

// TestAuditLogModes: a new log is 0600 in a 0700 directory, and an
// existing 0644 log is tightened to 0600.
func TestAuditLogModes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state", "locktable")
	path := filepath.Join(dir, "audit.log")
	_, f, err := dynamo.OpenAuditLog(path, clock.System())
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("new log mode %v, want 0600", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("new directory mode %v, want 0700", fi.Mode().Perm())
	}
	loose := filepath.Join(t.TempDir(), "old.log")
	if err := os.WriteFile(loose, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(loose, 0o644); err != nil {
		t.Fatal(err)
	}
	_, f, err = dynamo.OpenAuditLog(loose, clock.System())
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(loose); fi.Mode().Perm() != 0o600 {
		t.Errorf("existing 0644 log left at %v, want 0600", fi.Mode().Perm())
	}
}
