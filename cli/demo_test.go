package cli_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/dynamo/mistake"
	"github.com/locktable/locktable/model"
)

// checkProblems runs check --json and returns its problems.
func (w writeEnv) checkProblems() []model.Problem {
	w.t.Helper()
	r := w.run("check", "--json")
	var report struct{ Problems []model.Problem }
	if (r.code != cli.ExitOK && r.code != cli.ExitProblems) || json.Unmarshal([]byte(r.stdout), &report) != nil {
		w.t.Fatalf("check: exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	return report.Problems
}

func TestDemoBreakShowsExactlyItsProblem(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	// Something healthy and a problem already there, which must stay the
	// only other one.
	w.write(cli.ExitOK, "signup", "--set", "email=ok@x.io", "--set", "username=ok", "--id", "ACCT#ok")
	w.run("demo", "break", "delete-leak")
	seen := w.checkProblems()
	for _, k := range mistake.Kinds {
		r := w.run("demo", "break", k.Name, "--json")
		var replay mistake.Replay
		if r.code != cli.ExitOK || json.Unmarshal([]byte(r.stdout), &replay) != nil {
			t.Fatalf("demo break %s: exit %d, %s %s", k.Name, r.code, r.stdout, r.stderr)
		}
		if len(replay.Sent) == 0 || len(replay.Guarded) == 0 || replay.Problem != k.Problem {
			t.Errorf("demo break %s: %s", k.Name, r.stdout)
		}
		now := w.checkProblems()
		var added []model.Problem
		for _, p := range now {
			if !slices.ContainsFunc(seen, func(q model.Problem) bool {
				return q.Kind == p.Kind && q.Constraint == p.Constraint && q.Value == p.Value
			}) {
				added = append(added, p)
			}
		}
		if len(added) == 0 || len(added) != len(replay.Found) {
			t.Fatalf("demo break %s: check shows %d new problems %+v, the replay found %+v", k.Name, len(added), added, replay.Found)
		}
		for _, p := range added {
			if p.Kind != k.Problem {
				t.Errorf("demo break %s: check shows a new %s (%s=%s), want only %s", k.Name, p.Kind, p.Constraint, p.Value, k.Problem)
			}
		}
		seen = now
	}
}

func TestDemoBreakRefusesARemoteTable(t *testing.T) {
	t.Parallel()
	w := newWriteEnv(t)
	for _, args := range [][]string{
		{"demo", "break", "rename-leak", "--endpoint-url", "http://203.0.113.7:8000", "--write", "--audit-log", w.audit},
		{"demo", "break", "rename-leak", "--endpoint-url", w.ep, "--read-only", "--audit-log", w.audit},
	} {
		wantError(t, run(t, args...), cli.ExitError)
	}
	wantError(t, run(t, "demo", "break", "rename-leak", "--endpoint-url", "http://203.0.113.7:8000", "--write", "--audit-log", w.audit),
		cli.ExitError, "only on --demo or a loopback endpoint")
	wantError(t, w.run("demo", "break", "typo"), cli.ExitError, "missing-lock, gsi-duplicate")
	w.wantOnlyRefusals(3)
}
