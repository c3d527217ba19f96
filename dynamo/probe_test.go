package dynamo_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/dynamo"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/model"
)

// TestProbeDynoxide: dynoxide has every feature, in an empty table and in
// one with items, and the probe writes nothing.
func TestProbeDynoxide(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	for _, fill := range []bool{false, true} {
		if fill {
			f.put(f.healthy("ACCT#a", "a@x", "ada")...)
		}
		before := f.state()
		c, err := f.store.Probe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want := backend.Every()
		want.Probed = true
		if c != want || len(c.Missing()) != 0 {
			t.Errorf("items %v: capabilities %+v, want %+v", fill, c, want)
		}
		if after := f.state(); !slices.Equal(after, before) {
			t.Fatalf("the probe changed the table: %v -> %v", before, after)
		}
	}
}

// TestProbeReadOnlySendsNothing: a read-only store is not probed.
func TestProbeReadOnlySendsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, model.LayoutSingle)
	api := &countingAPI{api: f.client}
	s := dynamo.NewStore(api, f.store.Endpoint, f.store.Schema, clock.System())
	c, err := s.Probe(context.Background())
	if err != nil || c.Probed || len(api.snapshot()) != 0 {
		t.Fatalf("capabilities %+v, err %v, calls %v; want nothing asked", c, err, api.snapshot())
	}
}

// noTransactions answers TransactWriteItems as a backend without
// transactions does (dynalite).
type noTransactions struct{ *countingAPI }

func (n noTransactions) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	n.count("TransactWriteItems")
	return nil, &smithy.GenericAPIError{Code: "UnknownOperationException", Message: "TransactWriteItems"}
}

// TestWritesWaitForTheProbeAskedLater: the terminal UI no longer waits
// for the probe before its first rows (ProbeLater), so a write may come
// before the answer. It waits for it: sent once the backend is found to
// have transactions, refused without a request where it has none.
func TestWritesWaitForTheProbeAskedLater(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, transactions := range []bool{true, false} {
		f := newFixture(t, model.LayoutSingle)
		f.put(f.healthy("ACCT#a", "a@x", "ada")...)
		before := f.state()
		counter := &countingAPI{api: f.client}
		var api dynamo.API = counter
		if !transactions {
			api = noTransactions{counter}
		}
		s := dynamo.NewStore(api, f.store.Endpoint, f.store.Schema, clock.System())
		s.SetWritable(true)
		shown := make(chan struct{})
		probe := s.ProbeLater(ctx, func() { <-shown })
		tx, err := s.Writer.Prepare(must(t)(s.Schema.Signup("ACCT#b", f.attrs("b@x", "bob"))), backend.NewToken())
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := s.Writer.Execute(ctx, tx)
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("transactions %v: the write did not wait for the probe (%v)", transactions, err)
		case <-time.After(100 * time.Millisecond):
		}
		if n := counter.snapshot()["TransactWriteItems"]; n != 0 {
			t.Fatalf("transactions %v: %d transactions sent before the probe asked", transactions, n)
		}
		close(shown)
		err = <-done
		c, perr := probe()
		if perr != nil || c.Transactions != transactions {
			t.Fatalf("transactions %v: the probe found %+v, %v", transactions, c, perr)
		}
		switch {
		case transactions && err != nil:
			t.Fatalf("the write after the probe: %v", err)
		case transactions && slices.Equal(f.state(), before):
			t.Fatal("the write after the probe changed nothing")
		case !transactions && !errors.Is(err, backend.ErrReadOnly):
			t.Fatalf("the write on a backend without transactions: %v, want ErrReadOnly", err)
		case !transactions && counter.snapshot()["TransactWriteItems"] != 1:
			t.Fatalf("the write on a backend without transactions was sent: %v", counter.snapshot())
		}
	}
}
