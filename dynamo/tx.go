package dynamo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/locktable/locktable/backend"
	"github.com/locktable/locktable/model"
)

// MaxExpressionBytes is DynamoDB's limit on the length of one expression.
const MaxExpressionBytes = 4096

// request is a backend.Tx's Request as this package sends it.
type request struct {
	in *dynamodb.TransactWriteItemsInput
}

// CLIInput is the request as the AWS CLI reads it (see CLIJSON).
func (r request) CLIInput() ([]byte, error) { return CLIJSON(r.in) }

// Input is the exact TransactWriteItems input of a transaction this
// package prepared (nil for any other).
func Input(tx backend.Tx) *dynamodb.TransactWriteItemsInput {
	r, _ := tx.Request.(request)
	return r.in
}

// avValue lets expression.Value take an SDK attribute value as it is.
type avValue struct{ av types.AttributeValue }

func (v avValue) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) { return v.av, nil }

func condition(c model.Cond) expression.ConditionBuilder {
	name := expression.Name(c.Attr)
	val := expression.Value(avValue{valueToSDK(c.Value)})
	switch c.Kind {
	case model.CondNotExists:
		return expression.AttributeNotExists(name)
	case model.CondAbsentOrDiffers:
		return expression.AttributeNotExists(expression.Name(c.Key)).Or(name.NotEqual(val))
	case model.CondExists:
		return expression.AttributeExists(name)
	case model.CondNotAfter:
		return name.LessThanEqual(val)
	case model.CondFreeOrExpired:
		// A TTL that is not a number (or is no TTL at all) compares
		// false: such a lock is live, as the check judges it.
		return expression.AttributeNotExists(name).Or(expression.Name(c.TTL).LessThanEqual(expression.Value(c.Now)))
	}
	if c.Absent {
		return expression.AttributeNotExists(name)
	}
	return name.Equal(val)
}

// Prepare builds the exact TransactWriteItems input of a plan, with token
// and ALL_OLD on every action, and says each action in words from the
// conditions its request carries. An account guarded on what a person
// was shown (model.Cond.Seen) beyond the 4 KB expression limit is
// guarded on what the pattern requires only, and its slot says so.
//
// A lock's guard that takes an expired lock over (model.CondFreeOrExpired)
// judges TTLs at the second the request is built, now, written into the
// request as :now: the preview says that very second, a resend with the
// same token sends the same input (DynamoDB requires it), and the reasons
// of a cancellation read it back from tx.Plan. A lock that expires after
// now but before the request arrives still refuses it: the safe side.
func (s *Writer) Prepare(plan model.Plan, token string) (backend.Tx, error) {
	in := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(token)}
	tx := backend.Tx{Plan: plan, Token: token, Request: request{in}}
	// The plan sent says what the request carries: its reasons and
	// settling read the conditions from it.
	tx.Plan.Actions = slices.Clone(plan.Actions)
	now := model.Epoch(s.now())
	for i, a := range plan.Actions {
		conds := model.GuardAt(a.Conds, now)
		ti, condBytes, err := s.transactItem(a, conds)
		if unseen := model.Unseen(conds); err == nil && condBytes > MaxExpressionBytes && len(unseen) < len(conds) {
			conds = unseen
			ti, _, err = s.transactItem(a, conds)
		}
		if err != nil {
			return backend.Tx{}, err
		}
		slot := model.Slot{Does: a.Does(&s.Schema)}
		isKey := func(attr string) bool { _, ok := a.Key[attr]; return ok }
		for _, c := range conds {
			slot.Conditions = append(slot.Conditions, c.Sentence(isKey))
		}
		tx.Plan.Actions[i].Conds = conds
		if len(conds) < len(a.Conds) {
			slot.Note = fmt.Sprintf("guarded on the attributes it changes only: every attribute shown would exceed DynamoDB's %d-byte expression limit", MaxExpressionBytes)
		}
		in.TransactItems = append(in.TransactItems, ti)
		tx.Slots = append(tx.Slots, slot)
	}
	return tx, nil
}

// transactItem builds action a's request guarded by conds (ANDed, in
// their order), and returns it with the length of its condition
// expression.
func (s *Writer) transactItem(a model.Action, conds []model.Cond) (types.TransactWriteItem, int, error) {
	b := expression.NewBuilder()
	if len(conds) > 0 {
		c := condition(conds[0])
		for _, more := range conds[1:] {
			c = c.And(condition(more))
		}
		b = b.WithCondition(c)
	}
	if a.Kind == model.ActUpdate {
		var u expression.UpdateBuilder
		for _, name := range model.Item(a.Set).SortedNames() {
			u = u.Set(expression.Name(name), expression.Value(avValue{valueToSDK(a.Set[name])}))
		}
		for _, name := range a.Remove {
			u = u.Remove(expression.Name(name))
		}
		b = b.WithUpdate(u)
	}
	expr, err := b.Build()
	if err != nil {
		return types.TransactWriteItem{}, 0, fmt.Errorf("build %s: %w", a.Purpose(&s.Schema), err)
	}
	table, key := aws.String(a.Table), keyToSDK(a.Key)
	allOld := types.ReturnValuesOnConditionCheckFailureAllOld
	var ti types.TransactWriteItem
	switch a.Kind {
	case model.ActPut:
		ti.Put = &types.Put{TableName: table, Item: ItemToSDK(a.Item), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: allOld}
	case model.ActDelete:
		ti.Delete = &types.Delete{TableName: table, Key: key, ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: allOld}
	case model.ActUpdate:
		ti.Update = &types.Update{TableName: table, Key: key, UpdateExpression: expr.Update(), ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: allOld}
	case model.ActCheck:
		ti.ConditionCheck = &types.ConditionCheck{TableName: table, Key: key, ConditionExpression: expr.Condition(),
			ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values(), ReturnValuesOnConditionCheckFailure: allOld}
	}
	return ti, len(aws.ToString(expr.Condition())), nil
}

// retryable codes cancel a transaction, or refuse a request, for reasons a
// retry with the same token can get past. Each is a definite answer: the
// attempt did not apply.
var retryable = map[string]bool{
	"TransactionConflict":                    true,
	"ThrottlingError":                        true,
	"ProvisionedThroughputExceeded":          true,
	"TransactionInProgressException":         true,
	"ThrottlingException":                    true,
	"ProvisionedThroughputExceededException": true,
	"RequestLimitExceeded":                   true,
}

// maxAttempts bounds the requests one write sends, resends included. The
// SDK's own retryer is off for writes (oneAttempt), so this is the whole
// budget: a write is never multiplied by two retry loops.
const maxAttempts = 6

// oneAttempt turns the SDK's retryer off for one call: locktable retries
// writes itself, knowing what each attempt answered.
func oneAttempt(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }

// verdict is what one attempt's answer says about the write.
type verdict int

const (
	vCommitted verdict = iota
	vCancelled         // a condition failed: definitely not applied
	vRetry             // conflict or throttling: this attempt did not apply
	vMismatch          // the token belongs to another request
	vNotSent           // no byte left the process (no connection, no credentials)
	vStopped           // not sent: stopped before it left (backend.WithStop)
	vRejected          // DynamoDB answered with an error: not applied
	vUnknown           // the request may have reached DynamoDB: unknown
)

// judge reads one attempt's error. Only a definite answer (a parsed error
// response, or a failure before the connection existed) says the write did
// not apply; anything else, including a 2xx whose body cannot be read, a
// 5xx and a cancelled context, leaves it unknown.
func judge(err error) verdict {
	var (
		cancelled *types.TransactionCanceledException
		mismatch  *types.IdempotentParameterMismatchException
		credErr   *CredentialsError
		signErr   *v4.SigningError
		opErr     *net.OpError
		dnsErr    *net.DNSError
		apiErr    smithy.APIError
		respErr   *smithyhttp.ResponseError
		paced     pacedError
	)
	switch {
	case err == nil:
		return vCommitted
	case errors.Is(err, backend.ErrStopped):
		return vStopped
	case errors.As(err, &paced):
		return vNotSent
	case errors.As(err, &cancelled):
		if retryableCancel(cancelled) {
			return vRetry
		}
		return vCancelled
	case errors.As(err, &mismatch):
		return vMismatch
	case errors.As(err, &credErr), errors.As(err, &signErr), errors.As(err, &dnsErr),
		errors.As(err, &opErr) && opErr.Op == "dial":
		return vNotSent
	case errors.As(err, &apiErr) && errors.As(err, &respErr):
		switch status := respErr.HTTPStatusCode(); {
		case status >= 500:
			return vUnknown
		case retryable[apiErr.ErrorCode()]:
			return vRetry
		case status >= 400:
			return vRejected
		}
	}
	return vUnknown
}

// Execute sends tx and reports what happened, never a guess: a condition
// failure is cancelled, slot by slot; conflicts and throttling are retried
// with the same token; an answer that never came (or could not be read) is
// asked again with the same token, a no-op if it had committed, and if no
// answer comes, settled by a consistent read of the keys. When ctx ends
// (Ctrl-C) during a write, it settles with SettleContext(ctx) before
// returning. The intent is recorded in the audit log, and synced, before
// the request is sent; a write whose intent cannot be recorded is not sent.
// An error is returned, with the result, only when the write certainly did
// not apply: refused, not sent, or rejected by DynamoDB.
func (s *Writer) Execute(ctx context.Context, tx backend.Tx) (model.Result, error) {
	if tx.Plan.Reclaim != nil {
		return Reclaim{Schema: &s.Schema, Prepare: s.Prepare, Send: s.transact, Lookup: s.LookupHolders}.Run(ctx, tx)
	}
	return s.transact(ctx, tx)
}

// transact sends one transaction (see Execute).
func (s *Writer) transact(ctx context.Context, tx backend.Tx) (res model.Result, err error) {
	res = model.Result{Operation: tx.Plan.Operation, Keys: tx.Plan.Keys, Token: tx.Token, Reasons: []model.Reason{}}
	w, err := s.sender()
	if err != nil {
		res.Outcome = model.Refused
		s.refused(tx.Plan, err)
		return res, err
	}
	if err := s.journal(ctx, tx); err != nil {
		res.Outcome = model.NotSent
		s.refused(tx.Plan, err)
		return res, err
	}
	if err := s.record(AuditEntry{Event: EventIntent, Operation: res.Operation, Keys: res.Keys, Token: res.Token}); err != nil {
		res.Outcome = model.NotSent
		return res, fmt.Errorf("%w: %v", ErrAudit, err)
	}
	defer func() {
		// The outcome line; when it cannot be written the intent stands,
		// and the result is still reported.
		_ = s.record(s.outcomeEntry(res))
		s.journalOutcome(tx, res)
	}()
	maybeSent := false
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			if !maybeSent {
				res.Outcome = model.NotSent
				return res, fmt.Errorf("interrupted before sending: %w", context.Cause(ctx))
			}
			return s.settle(ctx, tx, res), nil
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		_, err := w.TransactWriteItems(cctx, Input(tx), oneAttempt)
		cancel()
		v := judge(err)
		if v == vUnknown {
			maybeSent = true
		}
		switch {
		case v == vCommitted:
			res.Outcome = model.Committed
			return res, nil
		case v == vCancelled:
			var cancelled *types.TransactionCanceledException
			errors.As(err, &cancelled)
			if maybeSent {
				// An earlier attempt may have applied it, and a backend
				// that ignores tokens (minidyn) then cancels the resend:
				// the keys tell.
				if settled := s.settle(ctx, tx, res); settled.Outcome == model.Committed {
					return settled, nil
				}
			}
			reasons, failed := s.reasons(SettleContext(ctx), tx.Plan, cancelled)
			if note, ok := (model.Classifier{Schema: &s.Schema}).AlreadyRepaired(tx.Plan, failed); ok {
				// Another writer made this very repair first: nothing
				// left to do, which is not a failure.
				res.Outcome, res.Note = model.Skipped, note
				return res, nil
			}
			res.Outcome = model.Cancelled
			res.Reasons = reasons
			return res, nil
		case v == vMismatch:
			res.Outcome = model.Cancelled
			res.Reasons = []model.Reason{{Slot: -1, Code: "IdempotentParameterMismatch", Message: "this token was used for another request in the last 10 minutes"}}
			return res, nil
		case attempt >= maxAttempts:
			if maybeSent {
				return s.settle(ctx, tx, res), nil
			}
			if v == vRetry {
				res.Outcome = model.Cancelled
				res.Reasons = []model.Reason{{Slot: -1, Code: "RetriesExhausted", Message: fmt.Sprintf("still conflicting or throttled after %d attempts: not applied", attempt)}}
				return res, nil
			}
		case v == vRetry, v == vUnknown, v == vNotSent && attempt < 3:
			// Go again with the same token: a no-op if it had committed.
			if sleep(ctx, backoff(attempt)) == nil {
				continue
			}
			continue // interrupted: the top of the loop settles
		}
		// A definite failure (a stop among them: not tried again):
		// nothing was applied by this attempt, and no earlier attempt may
		// have been, unless one was unknown.
		if maybeSent {
			return s.settle(ctx, tx, res), nil
		}
		res.Outcome = failed(v)
		return res, explain(err, "write", s.Schema.Table, s.Endpoint)
	}
}

// failed is the outcome of a write whose last attempt certainly failed
// as v says, no earlier one unknown.
func failed(v verdict) model.Outcome {
	if v == vNotSent || v == vStopped {
		return model.NotSent
	}
	return model.Rejected
}

// settleKey carries the context settling runs under (see
// WithSettleContext).
type settleKey struct{}

// WithSettleContext returns ctx carrying settle, the context a write
// interrupted by ctx's end settles its outcome under. A command cancels ctx
// on the first Ctrl-C and settle on the second, which abandons settling.
func WithSettleContext(ctx, settle context.Context) context.Context {
	return context.WithValue(ctx, settleKey{}, settle)
}

// SettleContext is the context a write interrupted by ctx settles under:
// the one WithSettleContext gave, else ctx without its cancellation.
func SettleContext(ctx context.Context) context.Context {
	if s, ok := ctx.Value(settleKey{}).(context.Context); ok {
		return s
	}
	return context.WithoutCancel(ctx)
}

func retryableCancel(e *types.TransactionCanceledException) bool {
	some := false
	for _, r := range e.CancellationReasons {
		switch code := aws.ToString(r.Code); {
		case code == "" || code == "None":
		case retryable[code]:
			some = true
		default:
			return false // a real condition failure: retrying cannot help
		}
	}
	return some
}

// reasons reads a cancellation slot by slot, in words, and returns each
// failed slot with the item its key held (for model.AlreadyRepaired). A
// failed condition is explained from the ALL_OLD item; where the backend
// returns none (minidyn, or no item there), a consistent read of the key
// stands in for it.
func (s *Writer) reasons(ctx context.Context, plan model.Plan, e *types.TransactionCanceledException) ([]model.Reason, []model.Failure) {
	out := []model.Reason{}
	var failed []model.Failure
	for i, r := range e.CancellationReasons {
		code := aws.ToString(r.Code)
		if code == "" || code == "None" || i >= len(plan.Actions) {
			continue
		}
		a := plan.Actions[i]
		reason := model.Reason{Slot: i, Action: a.Purpose(&s.Schema), Code: code, Message: aws.ToString(r.Message)}
		f := model.Failure{Slot: i, Code: code}
		if code == "ConditionalCheckFailed" {
			if len(r.Item) > 0 {
				f.Now = fromSDK(r.Item)
			} else if err := s.readConsistent(ctx, []model.KeyRef{{Table: a.Table, Key: a.Key}}, func(_ string, it model.Item) { f.Now = it }); err != nil {
				// Unread is not gone: nothing may be concluded from it.
				f.Code = "Unread"
			}
			reason.Message = model.Classifier{Schema: &s.Schema}.Explain(a, f.Now)
		}
		out = append(out, reason)
		failed = append(failed, f)
	}
	if len(out) == 0 {
		out = append(out, model.Reason{Slot: -1, Code: "TransactionCanceled", Message: model.Printable(aws.ToString(e.Message))})
	}
	return out, failed
}

// settle decides an unknown outcome by reading every key the plan writes
// with one consistent TransactGetItems: all effects there means committed,
// none means not committed (cancelled), anything else stays unknown, with
// its token for a later resend.
func (s *Writer) settle(ctx context.Context, tx backend.Tx, res model.Result) model.Result {
	res.Outcome = model.Unknown
	// The caller's context may be the one that ran out: settle on our own.
	sctx, cancel := context.WithTimeout(SettleContext(ctx), callTimeout)
	defer cancel()
	in := &dynamodb.TransactGetItemsInput{}
	var effects []model.Action
	for _, a := range tx.Plan.Actions {
		if a.Kind == model.ActCheck {
			continue
		}
		effects = append(effects, a)
		in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: &types.Get{TableName: aws.String(a.Table), Key: keyToSDK(a.Key)}})
	}
	out, err := s.api.TransactGetItems(sctx, in)
	if err != nil {
		res.Reasons = []model.Reason{{Slot: -1, Code: "Unknown", Message: "no answer, and the keys could not be read to settle it: " + errText(explain(err, "read", s.Schema.Table, s.Endpoint))}}
		return res
	}
	applied := 0
	for i, a := range effects {
		var now model.Item
		if i < len(out.Responses) && len(out.Responses[i].Item) > 0 {
			now = fromSDK(out.Responses[i].Item)
		}
		if model.Applied(a, now) {
			applied++
		}
	}
	switch applied {
	case len(effects):
		res.Outcome = model.Committed
		res.Reasons = []model.Reason{}
	case 0:
		res.Outcome = model.Cancelled
		res.Reasons = []model.Reason{{Slot: -1, Code: "NotCommitted", Message: "no answer came; a consistent read shows none of its writes"}}
	default:
		res.Reasons = []model.Reason{{Slot: -1, Code: "Unknown", Message: fmt.Sprintf("no answer came; %d of %d writes show, which other writers may explain", applied, len(effects))}}
	}
	return res
}

func errText(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// record appends an entry to the audit log, if the store has one.
func (s *Writer) record(e AuditEntry) error {
	if s.Audit == nil {
		return nil
	}
	e.Table = s.Schema.Table
	return s.Audit.Record(e)
}

func (s *Writer) outcomeEntry(res model.Result) AuditEntry {
	e := AuditEntry{Event: EventOutcome, Operation: res.Operation, Keys: res.Keys, Token: res.Token, Outcome: res.Outcome, Codes: []string{}}
	for _, r := range res.Reasons {
		e.Codes = append(e.Codes, r.Code)
	}
	return e
}

// refused records a write refused before any request: read-only, the
// write guard, invalid input, a holder lookup that found the value taken.
func (s *Writer) refused(p model.Plan, why error) {
	_ = s.record(AuditEntry{Event: EventRefused, Operation: p.Operation, Keys: p.Keys, Reason: errText(why)})
}
