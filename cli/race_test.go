package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/model"
)

// raceOut is race --json's object.
type raceOut struct {
	Committed int
	Racers    []struct {
		Keys    []string
		Outcome string
		Reasons []struct {
			Slot    int
			Code    string
			Message string
		}
	}
	Cleanup    []struct{ Operation, Outcome string }
	Violations []struct {
		Racer int
		Key   string
		Found []string
	}
}

func decodeRace(t *testing.T, stdout string) raceOut {
	t.Helper()
	var r raceOut
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("race --json: %v: %s", err, stdout)
	}
	return r
}

// TestRaceTheGuardsHold: 20 signups and 6 renames for one value: one
// commits, every other is cancelled with its slot naming the winner, exit
// 0, and the racers are cleaned up: the table is as it was.
func TestRaceTheGuardsHold(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	before := w.snapshot()
	for _, c := range []struct {
		op string
		n  string
	}{{"signup", "20"}, {"rename", "6"}} {
		r := w.run("race", "--set", "email=race@x.io", "--n", c.n, "--op", c.op, "--json")
		if r.code != cli.ExitOK {
			t.Fatalf("%s: exit %d, stderr %q", c.op, r.code, r.stderr)
		}
		out := decodeRace(t, r.stdout)
		if out.Committed != 1 || fmt.Sprint(len(out.Racers)) != c.n {
			t.Fatalf("%s: %d of %d racers committed; want 1 of %s", c.op, out.Committed, len(out.Racers), c.n)
		}
		winner := ""
		for _, rc := range out.Racers {
			if rc.Outcome == "committed" {
				winner = rc.Keys[0]
			}
		}
		for _, rc := range out.Racers {
			if rc.Outcome == "committed" {
				continue
			}
			if rc.Outcome != "cancelled" || len(rc.Reasons) != 1 || rc.Reasons[0].Slot < 0 || rc.Reasons[0].Message != "email race@x.io is taken by "+winner {
				t.Errorf("%s: racer %v: %+v; want cancelled, its slot naming %s", c.op, rc.Keys, rc, winner)
			}
		}
	}
	if got := w.snapshot(); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Fatalf("the racers were not cleaned up:\n%s", strings.Join(got, "\n"))
	}
}

// TestRaceWithoutGuards: a proxy strips every condition from the
// transactions, as a backend or table whose guards do not hold would:
// more than one racer commits, and race says so with exit 1.
func TestRaceWithoutGuards(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	u, err := url.Parse(w.ep)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	// Every condition made always true (the names it uses stay used).
	cond := regexp.MustCompile(`"ConditionExpression":"([^"]*)"`)
	srv := httptest.NewServer(http.HandlerFunc(func(wr http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".TransactWriteItems") {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"Put"`)) {
				body = cond.ReplaceAll(body, []byte(`"ConditionExpression":"($1) OR (attribute_exists (#0))"`))
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		}
		rp.ServeHTTP(wr, r)
	}))
	defer srv.Close()
	r := run(t, "race", "--set", "email=race@x.io", "--n", "8", "--json", "--keep",
		"--endpoint-url", srv.URL, "--table", w.table, "--audit-log", w.audit)
	if out := decodeRace(t, r.stdout); r.code != cli.ExitProblems || out.Committed < 2 {
		t.Fatalf("exit %d, %d committed, stderr %q; want exit 1 and more than one commit", r.code, out.Committed, r.stderr)
	}
}

// TestRaceRenameRefusedValue: a raced value Rename refuses (a control
// character) while each racer's own signup value is fine: race stops with
// a usage error naming it, before any racer is sent, and the accounts it
// had created for the renames are deleted again.
func TestRaceRenameRefusedValue(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	before := w.snapshot()
	r := w.run("race", "--set", "email=bad\x01value", "--n", "3", "--op", "rename")
	wantError(t, r, cli.ExitError, "email", "control character U+0001")
	if got := w.snapshot(); strings.Join(got, "\n") != strings.Join(before, "\n") {
		t.Fatalf("the racers were left in the table:\n%s", strings.Join(got, "\n"))
	}
}

// leakyProxy stands in front of the emulator as a backend whose
// transactions are not isolated (moto's server under load): the first
// racer's transaction goes through alone, and commits; the second's
// account put is written directly before its transaction is forwarded,
// which the emulator then cancels (the first holds the lock). victim is
// that second racer's account.
type leakyProxy struct {
	t      *testing.T
	w      writeEnv
	rp     *httputil.ReverseProxy
	mu     sync.Mutex
	n      int
	first  chan struct{} // closed once the first racer has its answer
	victim string
}

func newLeakyProxy(t *testing.T, w writeEnv) *leakyProxy {
	u, err := url.Parse(w.ep)
	if err != nil {
		t.Fatal(err)
	}
	return &leakyProxy{t: t, w: w, rp: httputil.NewSingleHostReverseProxy(u), first: make(chan struct{})}
}

func (p *leakyProxy) ServeHTTP(wr http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.Header.Get("X-Amz-Target"), ".TransactWriteItems") {
		p.rp.ServeHTTP(wr, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	var in struct {
		TransactItems []struct {
			Put *struct {
				TableName string
				Item      model.Item
			}
		}
	}
	if err := json.Unmarshal(body, &in); err != nil || len(in.TransactItems) == 0 || in.TransactItems[0].Put == nil {
		p.rp.ServeHTTP(wr, r) // not a signup: the write probe, the cleanup
		return
	}
	p.mu.Lock()
	p.n++
	n := p.n
	p.mu.Unlock()
	switch {
	case n == 1:
		p.rp.ServeHTTP(wr, r)
		close(p.first)
		return
	case n == 2:
		<-p.first
		put := in.TransactItems[0].Put
		_, err := p.w.client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(put.TableName), Item: dynamo.ItemToSDK(put.Item)})
		if err != nil {
			p.t.Errorf("put the second racer's account: %v", err)
		}
		p.mu.Lock()
		p.victim = put.Item[p.w.store.Schema.PK].S
		p.mu.Unlock()
	default:
		<-p.first
	}
	p.rp.ServeHTTP(wr, r)
}

// TestRaceCancelledRacerWritten: a racer reported cancelled whose account
// is in the table afterwards is a guard that did not hold: the report
// names it (--json: violations), the verdict says so, exit 1; and the
// cleanup still deletes it.
func TestRaceCancelledRacerWritten(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	before := w.snapshot()
	for _, asJSON := range []bool{true, false} {
		p := newLeakyProxy(t, w)
		srv := httptest.NewServer(p)
		args := []string{"race", "--set", "email=race@x.io", "--n", "4",
			"--endpoint-url", srv.URL, "--table", w.table, "--audit-log", w.audit}
		if asJSON {
			args = append(args, "--json")
		}
		r := run(t, args...)
		srv.Close()
		if p.victim == "" {
			t.Fatal("no racer's account was written beside its transaction")
		}
		if r.code != cli.ExitProblems {
			t.Fatalf("json %v: exit %d, stderr %q, stdout:\n%s\nwant exit 1: a cancelled racer was written", asJSON, r.code, r.stderr, r.stdout)
		}
		if asJSON {
			out := decodeRace(t, r.stdout)
			if out.Committed != 1 || len(out.Violations) != 1 || out.Violations[0].Key != p.victim ||
				fmt.Sprint(out.Violations[0].Found) != "[account "+p.victim+" exists]" {
				t.Fatalf("%d committed, violations %+v; want 1 committed and one violation: %s, its account found", out.Committed, out.Violations, p.victim)
			}
			if rc := out.Racers[out.Violations[0].Racer-1]; rc.Keys[0] != p.victim || rc.Outcome != "cancelled" {
				t.Fatalf("the violation's racer is %+v, want %s, cancelled", rc, p.victim)
			}
		} else if !strings.Contains(r.stdout, p.victim) || !strings.Contains(r.stdout, "account "+p.victim+" exists") ||
			!strings.Contains(r.stdout, "the guards did NOT hold") {
			t.Fatalf("the report does not name %s as written although cancelled:\n%s", p.victim, r.stdout)
		}
		if got := w.snapshot(); strings.Join(got, "\n") != strings.Join(before, "\n") {
			t.Fatalf("the racers were not cleaned up:\n%s", strings.Join(got, "\n"))
		}
	}
}
