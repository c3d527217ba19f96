package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/locktable/locktable/cli"
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
	Cleanup []struct{ Operation, Outcome string }
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
