package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fakeDynamo answers every request with a JSON body and a CRC header, and
// counts what reached it per target.
type fakeDynamo struct {
	srv    *httptest.Server
	writes atomic.Int32
	reads  atomic.Int32
}

const fakeBody = `{"ConsumedCapacity":[{"TableName":"accounts","CapacityUnits":6}]}`

func newFakeDynamo(t *testing.T) *fakeDynamo {
	f := &fakeDynamo{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		switch Target(strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")) {
		case TransactWriteItems:
			f.writes.Add(1)
		default:
			f.reads.Add(1)
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amz-Crc32", "12345")
		_, _ = io.WriteString(w, fakeBody)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func newProxy(t *testing.T, upstream string) *FaultProxy {
	t.Helper()
	p, err := NewFaultProxy(upstream)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

type reply struct {
	status int
	header http.Header
	body   []byte
	err    error // from the request or from reading the body
}

// call sends one request for target through p with timeout.
func call(t *testing.T, p *FaultProxy, target Target, timeout time.Duration) reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL()+"/", strings.NewReader(`{"ClientRequestToken":"tok-1","TransactItems":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+string(target))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

func TestFaultProxyInjectsEachFault(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind      FaultKind
		forwarded bool
		check     func(t *testing.T, r reply)
	}{
		{Pass, true, func(t *testing.T, r reply) {
			if r.err != nil || r.status != 200 || string(r.body) != fakeBody || r.header.Get("X-Amz-Crc32") != "12345" {
				t.Fatalf("got %d %q %v, want the upstream answer", r.status, r.body, r.err)
			}
		}},
		{ResetBefore, false, wantConnError},
		{ResetAfter, true, wantConnError},
		{Timeout, true, func(t *testing.T, r reply) {
			if !errors.Is(r.err, context.DeadlineExceeded) {
				t.Fatalf("got %d %q %v, want the client's deadline", r.status, r.body, r.err)
			}
		}},
		{CutBody, true, func(t *testing.T, r reply) {
			if r.status != 200 || !errors.Is(r.err, io.ErrUnexpectedEOF) || !bytes.HasPrefix([]byte(fakeBody), r.body) || len(r.body) >= len(fakeBody) {
				t.Fatalf("got %d %q %v, want 200 and a body cut short", r.status, r.body, r.err)
			}
		}},
		{Garbage2xx, true, func(t *testing.T, r reply) {
			if r.err != nil || r.status != 200 || json.Valid(r.body) || r.header.Get("X-Amz-Crc32") != "" {
				t.Fatalf("got %d %q %v (crc %q), want 200 and a body that is not JSON, without a CRC", r.status, r.body, r.err, r.header.Get("X-Amz-Crc32"))
			}
		}},
		{Truncated, true, func(t *testing.T, r reply) {
			if r.err != nil || r.status != 200 || json.Valid(r.body) || !bytes.HasPrefix([]byte(fakeBody), r.body) || len(r.body) == 0 {
				t.Fatalf("got %d %q %v, want 200 and the first part of the real body", r.status, r.body, r.err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			t.Parallel()
			up := newFakeDynamo(t)
			p := newProxy(t, up.srv.URL)
			// The client waits 2 s, long enough for a loaded machine to
			// answer, and the Timeout fault holds its answer for longer.
			p.Set(Fault{Kind: c.kind, Times: 1, Delay: 5 * time.Second})
			c.check(t, call(t, p, TransactWriteItems, 2*time.Second))
			if got, want := up.writes.Load() == 1, c.forwarded; got != want {
				t.Fatalf("%d writes reached DynamoDB; forwarded should be %v", up.writes.Load(), want)
			}
			ev := p.Events()
			if len(ev) != 1 || ev[0].Fault != c.kind || ev[0].Forwarded != c.forwarded || ev[0].Target != TransactWriteItems || ev[0].Token != "tok-1" {
				t.Fatalf("events %+v", ev)
			}
			wantInjected := int64(1)
			if c.kind == Pass {
				wantInjected = 0
			}
			if p.Injected() != wantInjected {
				t.Fatalf("injected %d, want %d", p.Injected(), wantInjected)
			}
			// Times is 1: the next request passes.
			if r := call(t, p, TransactWriteItems, 5*time.Second); r.err != nil || string(r.body) != fakeBody {
				t.Fatalf("second request: %d %q %v", r.status, r.body, r.err)
			}
		})
	}
}

func wantConnError(t *testing.T, r reply) {
	t.Helper()
	if r.err == nil || errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("got %d %q %v, want a broken connection", r.status, r.body, r.err)
	}
}

func TestFaultProxyLatencyAnswers(t *testing.T) {
	t.Parallel()
	up := newFakeDynamo(t)
	p := newProxy(t, up.srv.URL)
	p.Set(Fault{Kind: Latency, Times: -1, Delay: 300 * time.Millisecond})
	start := time.Now()
	for range 2 {
		if r := call(t, p, TransactWriteItems, 5*time.Second); r.err != nil || string(r.body) != fakeBody {
			t.Fatalf("%d %q %v", r.status, r.body, r.err)
		}
	}
	if d := time.Since(start); d < 600*time.Millisecond {
		t.Fatalf("two requests with 300 ms latency took %v", d)
	}
	if p.Injected() != 2 || up.writes.Load() != 2 {
		t.Fatalf("injected %d, forwarded %d; want 2, 2", p.Injected(), up.writes.Load())
	}
}

// TestFaultProxyTargets: a fault for writes leaves reads alone, and one
// for reads leaves writes alone.
func TestFaultProxyTargets(t *testing.T) {
	t.Parallel()
	up := newFakeDynamo(t)
	p := newProxy(t, up.srv.URL)
	p.Set(Fault{Kind: ResetBefore, Times: -1})
	if r := call(t, p, TransactGetItems, 5*time.Second); r.err != nil {
		t.Fatalf("read under a write fault: %v", r.err)
	}
	wantConnError(t, call(t, p, TransactWriteItems, 5*time.Second))
	p.Set(Fault{Kind: ResetBefore, Times: -1, Targets: []Target{TransactGetItems}})
	wantConnError(t, call(t, p, TransactGetItems, 5*time.Second))
	if r := call(t, p, TransactWriteItems, 5*time.Second); r.err != nil {
		t.Fatalf("write under a read fault: %v", r.err)
	}
	if up.reads.Load() != 1 || up.writes.Load() != 1 {
		t.Fatalf("forwarded %d reads, %d writes; want 1, 1", up.reads.Load(), up.writes.Load())
	}
}

// TestFaultProxyDown: the request that meets Down is not forwarded, new
// connections are refused while it is down, and it answers again after.
func TestFaultProxyDown(t *testing.T) {
	t.Parallel()
	up := newFakeDynamo(t)
	p := newProxy(t, up.srv.URL)
	p.Set(Fault{Kind: Down, Times: 1, Delay: 700 * time.Millisecond})
	wantConnError(t, call(t, p, TransactWriteItems, 5*time.Second))
	if !p.IsDown() {
		t.Fatal("not down after the Down fault")
	}
	_, err := net.DialTimeout("tcp", strings.TrimPrefix(p.URL(), "http://"), time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial while down: %v, want connection refused", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.IsDown() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if r := call(t, p, TransactWriteItems, 5*time.Second); r.err != nil || string(r.body) != fakeBody {
		t.Fatalf("after coming up: %d %q %v", r.status, r.body, r.err)
	}
	if up.writes.Load() != 1 || p.Injected() != 1 {
		t.Fatalf("forwarded %d, injected %d; want 1, 1", up.writes.Load(), p.Injected())
	}
}
