package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/locktable/locktable/dynamo/dynamotest"
	"github.com/locktable/locktable/model"
)

// signalProxy forwards to dynoxide and, at the request whose target hook
// names, lets hook act (signal the process, hold the answer).
type signalProxy struct {
	rp   *httputil.ReverseProxy
	proc atomic.Pointer[os.Process]
	done chan struct{} // closed when the process has exited
	hook func(p *signalProxy, target string, w http.ResponseWriter, r *http.Request) bool
}

func (p *signalProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.hook != nil && p.hook(p, strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810."), w, r) {
		return
	}
	p.rp.ServeHTTP(w, r)
}

func (p *signalProxy) signal(s os.Signal) {
	if proc := p.proc.Load(); proc != nil {
		_ = proc.Signal(s)
	}
}

// hold keeps a request unanswered until its client goes or the process
// has exited.
func (p *signalProxy) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-p.done:
	}
}

// isWrite reports whether r is a TransactWriteItems that writes (the
// capability probe's ConditionCheck-only transactions do not).
func isWrite(target string, r *http.Request) bool {
	if target != "TransactWriteItems" {
		return false
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return bytes.Contains(body, []byte(`"Put"`)) || bytes.Contains(body, []byte(`"Delete"`)) || bytes.Contains(body, []byte(`"Update"`))
}

// forward sends r to dynoxide and throws the answer away: DynamoDB has
// applied the request, the client never hears of it.
func (p *signalProxy) forward(r *http.Request) {
	rec := httptest.NewRecorder()
	p.rp.ServeHTTP(rec, r.Clone(context.WithoutCancel(r.Context())))
}

// startThrough runs the binary with args against dynoxide through proxy p.
func startThrough(t *testing.T, p *signalProxy, args ...string) execResult {
	t.Helper()
	u, err := url.Parse(dynamotest.Endpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	p.rp = httputil.NewSingleHostReverseProxy(u)
	p.done = make(chan struct{})
	srv := httptest.NewServer(p)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append(args, "--endpoint-url", srv.URL)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.proc.Store(cmd.Process)
	err = cmd.Wait()
	close(p.done)
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return execResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// interruptTable is a fresh account table with nothing in it.
func interruptTable(t *testing.T) (table, audit string) {
	t.Helper()
	store, _ := dynamotest.Store(t, model.DefaultSchema(model.LayoutSingle))
	return store.Schema.Table, filepath.Join(t.TempDir(), "audit.log")
}

// TestE2ECtrlCDuringAWriteSettles: Ctrl-C while a signup is in flight,
// after DynamoDB applied it. It exited 2 "context canceled" with the audit
// saying refused; the write settles first and the exit is its outcome's.
func TestE2ECtrlCDuringAWriteSettles(t *testing.T) {
	t.Parallel()
	table, audit := interruptTable(t)
	p := &signalProxy{hook: func(p *signalProxy, target string, w http.ResponseWriter, r *http.Request) bool {
		if !isWrite(target, r) {
			return false
		}
		p.forward(r)
		p.signal(os.Interrupt)
		p.hold(r) // the answer never comes
		return true
	}}
	r := startThrough(t, p, "signup", "--set", "email=ada@x.io", "--id", "ACCT#a", "--yes", "--skip-holder-lookup",
		"--table", table, "--audit-log", audit)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "committed signup ACCT#a") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0, committed", r.code, r.stdout, r.stderr)
	}
	data, _ := os.ReadFile(audit)
	if !strings.Contains(string(data), `"event":"intent"`) || !strings.Contains(string(data), `"outcome":"committed"`) {
		t.Fatalf("audit %q", data)
	}
}

// TestE2ESecondCtrlCAbandonsSettling: the settling read hangs too, and a
// second Ctrl-C gives up: exit 4, the token printed.
func TestE2ESecondCtrlCAbandonsSettling(t *testing.T) {
	t.Parallel()
	table, audit := interruptTable(t)
	p := &signalProxy{hook: func(p *signalProxy, target string, w http.ResponseWriter, r *http.Request) bool {
		switch {
		case isWrite(target, r):
			p.forward(r)
			p.signal(os.Interrupt)
		case target == "TransactGetItems":
			p.signal(os.Interrupt)
		default:
			return false
		}
		p.hold(r)
		return true
	}}
	r := startThrough(t, p, "signup", "--set", "email=ada@x.io", "--id", "ACCT#a", "--yes", "--skip-holder-lookup",
		"--table", table, "--audit-log", audit)
	if r.code != 4 || !strings.HasPrefix(r.stdout, "UNKNOWN   signup ACCT#a") || !strings.Contains(r.stdout, "(token ") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 4 and the token", r.code, r.stdout, r.stderr)
	}
}

// TestE2ESigtermOutsideAWrite: SIGTERM during a check ends it with 143 and
// one line, interrupted.
func TestE2ESigtermOutsideAWrite(t *testing.T) {
	t.Parallel()
	table, _ := interruptTable(t)
	var once sync.Once // one SIGTERM, though every segment's Scan arrives
	p := &signalProxy{hook: func(p *signalProxy, target string, w http.ResponseWriter, r *http.Request) bool {
		if target != "Scan" {
			return false
		}
		once.Do(func() { p.signal(syscall.SIGTERM) })
		p.hold(r)
		return true
	}}
	r := startThrough(t, p, "check", "--table", table)
	if r.code != 143 || r.stderr != "locktable: interrupted\n" || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 143, one line", r.code, r.stdout, r.stderr)
	}
}
