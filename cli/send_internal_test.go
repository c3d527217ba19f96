package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/writes"
)

// sendingStore answers Execute with the outcomes it is given, in turn,
// and runs after(n) once the n-th (from 1) has answered. A write command
// sends through Execute only: the rest of writes.Store is not called.
type sendingStore struct {
	writes.Store
	answers []error // nil: committed
	after   func(n int)
	sent    int
}

func (s *sendingStore) Execute(_ context.Context, tx backend.Tx) (model.Result, error) {
	err := s.answers[s.sent]
	s.sent++
	if s.after != nil {
		s.after(s.sent)
	}
	if err != nil {
		return model.Result{}, err
	}
	return model.Result{Operation: tx.Plan.Operation, Keys: tx.Plan.Keys, Outcome: model.Committed, Token: "t"}, nil
}

// TestSendAllStopsBetweenTransactions: an interrupt after the first of
// three transactions sends no more, reports the one sent after what was
// not to be sent, says how many were not, and exits 2 (Main maps it to
// the signal's status); a transaction that fails ends the run, after
// reporting what was sent before it.
func TestSendAllStopsBetweenTransactions(t *testing.T) {
	ready := make([]writes.Write, 3)
	for i, k := range []string{"ACCT#a", "ACCT#b", "ACCT#c"} {
		ready[i] = writes.Write{Tx: backend.Tx{Plan: model.Plan{Operation: "delete", Keys: []string{k}}}}
	}
	skipped := []model.Result{{Operation: "repair", Keys: []string{"UNIQ#x"}, Outcome: model.Skipped, Note: "duplicate_value email=x: not a lock to repair"}}

	t.Run("interrupted", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var stdout, stderr bytes.Buffer
		a := &app{stdout: &stdout, stderr: &stderr}
		st := &sendingStore{answers: make([]error, 3), after: func(int) { cancel() }}
		err := a.sendAll(ctx, writes.Flow{Store: st}, writeOp{name: "delete"}, ready, skipped, false)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != ExitError || st.sent != 1 {
			t.Fatalf("err %v, %d sent; want exit %d after 1", err, st.sent, ExitError)
		}
		if want := "skipped   duplicate_value email=x: not a lock to repair\ncommitted delete ACCT#a (token t)\n"; stdout.String() != want {
			t.Errorf("stdout %q, want %q", stdout.String(), want)
		}
		if want := "locktable: interrupted: 2 of 3 transactions not sent\n"; stderr.String() != want {
			t.Errorf("stderr %q, want %q", stderr.String(), want)
		}
	})
	t.Run("a transaction fails", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		a := &app{stdout: &stdout, stderr: &stderr}
		failed := errors.New("connection refused")
		st := &sendingStore{answers: []error{nil, failed, nil}}
		err := a.sendAll(context.Background(), writes.Flow{Store: st}, writeOp{name: "delete"}, ready, nil, true)
		if !errors.Is(err, failed) || st.sent != 2 {
			t.Fatalf("err %v, %d sent; want the failure after 2", err, st.sent)
		}
		if lines := strings.Split(strings.TrimSpace(stdout.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"keys":["ACCT#a"]`) {
			t.Errorf("stdout %q, want the first write's result as JSON", stdout.String())
		}
		if stderr.Len() != 0 {
			t.Errorf("stderr %q: the failure is the command's error, said once by Main", stderr.String())
		}
	})
}
