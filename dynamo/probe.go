package dynamo

import (
	"context"
	"errors"
	"reflect"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/internal/startuptrace"
)

// noOperation are the error codes of a backend that does not know an
// operation: one without transactions answers TransactWriteItems so.
var noOperation = map[string]bool{
	"UnknownOperationException": true, "UnknownOperation": true, "NotImplemented": true, "InvalidAction": true,
}

// unknownOperation reports whether err says the backend does not know the
// operation it was sent: one of noOperation's codes, or a 400 whose body
// is not DynamoDB JSON, as minidyn answers the TTL operations it lacks.
func unknownOperation(err error) bool {
	var (
		apiErr    smithy.APIError
		decodeErr *smithy.DeserializationError
		respErr   *smithyhttp.ResponseError
	)
	if errors.As(err, &apiErr) && noOperation[apiErr.ErrorCode()] {
		return true
	}
	return errors.As(err, &decodeErr) && errors.As(err, &respErr) && respErr.HTTPStatusCode() == 400
}

// Probe asks the backend, with transactions that change nothing (a
// ConditionCheck alone), whether it has transactions, honours
// ClientRequestToken and returns ALL_OLD items. Only writable stores on an
// endpoint other than AWS's are probed: it costs three calls, and writes
// nothing. The answer also says what the read probe found (segments,
// comparisons of values of different types), asked beside the write
// questions when no read probe has asked yet.
func (s *Store) Probe(ctx context.Context) (c backend.Capabilities, err error) {
	startuptrace.Mark("probe asked") // after the first rows (ProbeLater)
	defer func() {
		if err == nil {
			startuptrace.Mark("probe answered")
		}
	}()
	c = backend.Every()
	w := s.w // not s.sender(), which waits for this very probe when ProbeLater asks it
	if w == nil || s.Endpoint.URL == "" {
		return c, nil
	}
	c.Probed = true
	var reads sync.WaitGroup
	reads.Go(func() { s.probeReads(ctx) }) // at once with the write questions, not before them
	defer func() { reads.Wait(); c.Segments, c.Comparisons = s.readCapabilities() }()
	sc := &s.Schema
	// A key to point the checks at: any item of the account table, or, in
	// an empty table, a key nobody uses.
	key := map[string]types.AttributeValue{sc.PK: &types.AttributeValueMemberS{Value: "locktable-probe#" + backend.NewToken()}}
	if sc.SK != "" {
		key[sc.SK] = &types.AttributeValueMemberS{Value: "probe"}
	}
	exists := false
	sctx, cancel := context.WithTimeout(ctx, callTimeout)
	out, err := s.api.Scan(sctx, &dynamodb.ScanInput{TableName: aws.String(sc.Table), Limit: aws.Int32(1)})
	cancel()
	if err != nil {
		return c, explain(err, "probe", sc.Table, s.Endpoint)
	}
	if len(out.Items) > 0 {
		exists = true
		key = map[string]types.AttributeValue{}
		for _, name := range sc.KeyAttrs(sc.Table) {
			key[name] = out.Items[0][name]
		}
	}
	// check is a ConditionCheck that holds; extra writes it another way.
	check := func(extra bool, token string) *dynamodb.TransactWriteItemsInput {
		cond := "attribute_exists(#k)"
		if !exists {
			cond = "attribute_not_exists(#k)"
		}
		if extra {
			cond = "(" + cond + ") AND (" + cond + ")" // the same meaning, another request
		}
		return &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(token), TransactItems: []types.TransactWriteItem{{
			ConditionCheck: &types.ConditionCheck{TableName: aws.String(sc.Table), Key: key, ConditionExpression: aws.String(cond),
				ExpressionAttributeNames:            map[string]string{"#k": sc.PK},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld},
		}}}
	}
	call := func(in *dynamodb.TransactWriteItemsInput) error {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		_, err := w.TransactWriteItems(cctx, in, oneAttempt)
		return err
	}
	token := backend.NewToken()
	if err := call(check(false, token)); err != nil {
		if unknownOperation(err) {
			c.Transactions, c.Tokens, c.AllOld = false, false, false
			return c, nil
		}
		return c, explain(err, "probe", sc.Table, s.Endpoint)
	}
	// The two questions left are independent: asked at once (an emulator
	// may take 10 ms a transaction, and the UI waits for the answers).
	var tokenErr, oldErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		var mismatch *types.IdempotentParameterMismatchException
		switch err := call(check(true, token)); {
		case errors.As(err, &mismatch):
		case err == nil:
			c.Tokens = false
		default:
			tokenErr = err
		}
	})
	if exists {
		// A Delete guarded by attribute_not_exists on an item that exists
		// fails and deletes nothing (had the item gone meanwhile, it would
		// delete nothing either), and shows whether the old item comes back.
		wg.Go(func() {
			var cancelled *types.TransactionCanceledException
			del := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(backend.NewToken()), TransactItems: []types.TransactWriteItem{{
				Delete: &types.Delete{TableName: aws.String(sc.Table), Key: key, ConditionExpression: aws.String("attribute_not_exists(#k)"),
					ExpressionAttributeNames:            map[string]string{"#k": sc.PK},
					ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld},
			}}}
			err := call(del)
			if !errors.As(err, &cancelled) {
				oldErr = err
				return
			}
			c.AllOld = len(cancelled.CancellationReasons) > 0 && len(cancelled.CancellationReasons[0].Item) > 0
		})
	}
	wg.Wait()
	if err := errors.Join(tokenErr, oldErr); err != nil {
		return c, explain(err, "probe", sc.Table, s.Endpoint)
	}
	return c, nil
}

// probeAnswer is what a write probe asked in the background found, once
// done is closed (ProbeLater).
type probeAnswer struct {
	done chan struct{}
	c    backend.Capabilities
	err  error
}

// ProbeLater asks Probe's questions in the background, once after
// returns (nil: at once), and returns a wait for the answer: the terminal
// UI's first rows neither wait for the probe nor share the backend with
// it. Meanwhile every write of the store waits for the answer, and is
// refused (backend.ErrReadOnly) when the backend lacks transactions or
// could not be probed. It is called before the store is shared.
func (s *Store) ProbeLater(ctx context.Context, after func()) func() (backend.Capabilities, error) {
	p := &probeAnswer{done: make(chan struct{})}
	s.probing = p
	go func() {
		defer close(p.done)
		if after != nil {
			after()
		}
		p.c, p.err = s.Probe(ctx)
	}()
	return func() (backend.Capabilities, error) {
		<-p.done
		return p.c, p.err
	}
}

// readProbe is what the read probe found (see probeReads).
type readProbe struct {
	sync.Mutex
	asked                 bool
	segments, comparisons bool
}

// ReadCapabilities says whether the backend honours a parallel scan's
// segments and compares values of different types as DynamoDB does: as
// the read probe found, waiting for one in flight (ProbeReadsLater), or
// as DynamoDB does until a probe found otherwise.
func (s *Store) ReadCapabilities() (segments, comparisons bool) { return s.readCapabilities() }

// readCapabilities is ReadCapabilities, for every role.
func (s *core) readCapabilities() (segments, comparisons bool) {
	s.reads.Lock()
	defer s.reads.Unlock()
	if !s.reads.asked {
		return true, true
	}
	return s.reads.segments, s.reads.comparisons
}

// scanSegments is how many segments a parallel scan reads: s.Segments, or
// one where the backend ignores segments (each would read the whole
// table).
func (s *core) scanSegments() int {
	if segments, _ := s.readCapabilities(); !segments {
		return 1
	}
	return s.Segments
}

// probeReads asks a backend other than AWS's, with three one-item scans,
// whether it honours a parallel scan's segments and compares values of
// different types as DynamoDB does (Verify asks, once the tables are
// found). An empty table, or a scan that fails, tells nothing: it is
// asked again at the next Verify, and meanwhile DynamoDB's rules hold.
func (s *Store) probeReads(ctx context.Context) {
	if !s.reads.TryLock() {
		return // asked in the background (ProbeReadsLater): reads wait for it
	}
	defer s.reads.Unlock()
	s.askReads(ctx)
}

// ProbeReadsLater asks the read questions of probeReads in the
// background, once after returns (nil: at once), and returns at once:
// the terminal UI's first rows do not wait for them, nor queue behind
// them (on dynoxide a segment's first page sorts the whole segment: 180
// ms at 100k items), while every read that needs the answer (a check, a
// scan for holders) waits for it, and Verify meanwhile does not ask again.
func (s *Store) ProbeReadsLater(ctx context.Context, after func()) {
	s.reads.Lock()
	go func() {
		defer s.reads.Unlock()
		if after != nil {
			after()
		}
		s.askReads(ctx)
	}()
}

// askReads asks the read questions; s.reads is locked.
func (s *Store) askReads(ctx context.Context) {
	if s.reads.asked || s.Endpoint.URL == "" {
		return
	}
	sc := &s.Schema
	scan := func(in *dynamodb.ScanInput) (map[string]types.AttributeValue, error) {
		in.TableName, in.Limit = aws.String(sc.Table), aws.Int32(1)
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		out, err := s.api.Scan(cctx, in)
		if err != nil || len(out.Items) == 0 {
			return nil, err
		}
		return out.Items[0], nil
	}
	// The three are asked at once.
	var a, b map[string]types.AttributeValue
	var cmpErr error
	var wg sync.WaitGroup
	wg.Go(func() { a, _ = scan(&dynamodb.ScanInput{Segment: aws.Int32(0), TotalSegments: aws.Int32(2)}) })
	wg.Go(func() { b, _ = scan(&dynamodb.ScanInput{Segment: aws.Int32(1), TotalSegments: aws.Int32(2)}) })
	wg.Go(func() {
		// The key is a string: compared with a number it is simply not
		// equal.
		_, cmpErr = scan(&dynamodb.ScanInput{FilterExpression: aws.String("#k = :n"),
			ExpressionAttributeNames:  map[string]string{"#k": sc.PK},
			ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: "0"}}})
	})
	wg.Wait()
	if a == nil && b == nil {
		return // an empty table (or none): nothing to tell by
	}
	s.reads.asked = true
	// Honoured segments are disjoint: the same first item in both is a
	// backend that scanned the whole table twice.
	s.reads.segments = a == nil || b == nil || !reflect.DeepEqual(fromSDK(a), fromSDK(b))
	var apiErr smithy.APIError
	s.reads.comparisons = !errors.As(cmpErr, &apiErr)
}
