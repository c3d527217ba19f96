package dynamo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/locktable/locktable/model"
)

// Outcome is how a transaction ended.
type Outcome string

// The outcomes of a write.
const (
	Committed Outcome = "committed"
	Cancelled Outcome = "cancelled" // not committed: a condition failed, or settled as not committed
	Unknown   Outcome = "unknown"   // no answer, and the keys do not settle it
	Skipped   Outcome = "skipped"   // left to a person
	// Refused is only written to the audit log: the request was refused
	// outright (validation, credentials), nothing was written, and the
	// command reports the error.
	Refused Outcome = "refused"
)

// Reason is one slot of a cancelled transaction, in words.
type Reason struct {
	Slot    int    `json:"slot"`
	Action  string `json:"action"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Result is what happened to one planned transaction.
type Result struct {
	Operation string   `json:"operation"`
	Keys      []string `json:"keys"`
	Outcome   Outcome  `json:"outcome"`
	Token     string   `json:"token"`
	Reasons   []Reason `json:"reasons"`
	Note      string   `json:"note,omitempty"`
}

// Tx is a planned transaction ready to send: the plan and the exact input
// that will be sent, token included. Previews render Input, and Execute
// sends the same value.
type Tx struct {
	Plan  model.Plan
	Input *dynamodb.TransactWriteItemsInput
}

// NewToken returns a fresh ClientRequestToken.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
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
	}
	if c.Absent {
		return expression.AttributeNotExists(name)
	}
	return name.Equal(val)
}

// Prepare builds the exact TransactWriteItems input of a plan, with token
// and ALL_OLD on every action.
func (s *Store) Prepare(plan model.Plan, token string) (Tx, error) {
	in := &dynamodb.TransactWriteItemsInput{ClientRequestToken: aws.String(token)}
	for _, a := range plan.Actions {
		b := expression.NewBuilder()
		if len(a.Conds) > 0 {
			c := condition(a.Conds[0])
			for _, more := range a.Conds[1:] {
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
			return Tx{}, fmt.Errorf("build %s: %w", a.Purpose(&s.Schema), err)
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
		in.TransactItems = append(in.TransactItems, ti)
	}
	return Tx{Plan: plan, Input: in}, nil
}

// retryable codes cancel a transaction for reasons a retry with the same
// token can get past.
var retryable = map[string]bool{
	"TransactionConflict":                    true,
	"ThrottlingError":                        true,
	"ProvisionedThroughputExceeded":          true,
	"TransactionInProgressException":         true,
	"ThrottlingException":                    true,
	"ProvisionedThroughputExceededException": true,
	"RequestLimitExceeded":                   true,
	"InternalServerError":                    true,
}

// Retry policy: conflicts and throttling back off and go again; an answer
// that never came is asked again with the same token, which DynamoDB
// honours for ten minutes.
const (
	maxConflictRetries = 6
	maxUnknownRetries  = 3
)

// Execute sends tx, retrying conflicts, throttling and lost answers with
// the same token; an outcome still unknown is settled by reading the keys.
// A committed write is never reported as anything else. Every mutation
// sent is appended to the audit log.
func (s *Store) Execute(ctx context.Context, tx Tx) (res Result, err error) {
	// res is named so that the deferred audit sees what is returned,
	// including an outcome settled by s.settle.
	res = Result{Operation: tx.Plan.Operation, Keys: tx.Plan.Keys, Token: aws.ToString(tx.Input.ClientRequestToken), Reasons: []Reason{}}
	w, err := s.writer()
	if err != nil {
		return res, err
	}
	defer func() { s.audit(res) }()
	conflicts, unknowns := 0, 0
	for {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		_, err := w.TransactWriteItems(cctx, tx.Input)
		cancel()
		if err == nil {
			res.Outcome = Committed
			return res, nil
		}
		var (
			cancelled *types.TransactionCanceledException
			mismatch  *types.IdempotentParameterMismatchException
			apiErr    smithy.APIError
		)
		switch {
		case errors.As(err, &cancelled):
			if retryableCancel(cancelled) && conflicts < maxConflictRetries {
				conflicts++
				if err := sleep(ctx, backoff(conflicts)); err != nil {
					return s.settle(ctx, tx, res)
				}
				continue
			}
			res.Outcome = Cancelled
			res.Reasons = s.reasons(ctx, tx.Plan, cancelled)
			return res, nil
		case errors.As(err, &mismatch):
			res.Outcome = Cancelled
			res.Reasons = []Reason{{Slot: -1, Code: "IdempotentParameterMismatch", Message: "this token was used for another request in the last 10 minutes"}}
			return res, nil
		case errors.As(err, &apiErr) && retryable[apiErr.ErrorCode()] && conflicts < maxConflictRetries:
			conflicts++
			if err := sleep(ctx, backoff(conflicts)); err != nil {
				return s.settle(ctx, tx, res)
			}
			continue
		case lostAnswer(err):
			if unknowns < maxUnknownRetries && ctx.Err() == nil {
				unknowns++
				if err := sleep(ctx, backoff(unknowns+2)); err == nil {
					continue
				}
			}
			return s.settle(ctx, tx, res)
		}
		// Refused outright (validation, credentials, a missing table):
		// nothing was written.
		res.Outcome = Refused
		return res, explain(err, "write", s.Schema.Table, s.Endpoint)
	}
}

// lostAnswer reports whether err leaves the outcome unknown: the request
// may have reached DynamoDB and been applied.
func lostAnswer(err error) bool {
	var (
		sendErr *smithyhttp.RequestSendError
		netErr  net.Error
		respErr *smithyhttp.ResponseError
	)
	if errors.As(err, &respErr) && respErr.HTTPStatusCode() >= 500 {
		return true
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &sendErr) || errors.As(err, &netErr) ||
		errors.Is(err, net.ErrClosed)
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

// reasons reads a cancellation slot by slot, in words. A failed condition
// is explained from the ALL_OLD item; where the backend returns none
// (minidyn), a consistent read of the key stands in for it.
func (s *Store) reasons(ctx context.Context, plan model.Plan, e *types.TransactionCanceledException) []Reason {
	out := []Reason{}
	for i, r := range e.CancellationReasons {
		code := aws.ToString(r.Code)
		if code == "" || code == "None" || i >= len(plan.Actions) {
			continue
		}
		a := plan.Actions[i]
		reason := Reason{Slot: i, Action: a.Purpose(&s.Schema), Code: code, Message: aws.ToString(r.Message)}
		if code == "ConditionalCheckFailed" {
			var now model.Item
			if len(r.Item) > 0 {
				now = fromSDK(r.Item)
			} else {
				_ = s.ReadConsistent(ctx, []model.KeyRef{{Table: a.Table, Key: a.Key}}, func(_ string, it model.Item) { now = it })
			}
			reason.Message = s.Schema.Explain(a, now)
		}
		out = append(out, reason)
	}
	if len(out) == 0 {
		out = append(out, Reason{Slot: -1, Code: "TransactionCanceled", Message: model.Printable(aws.ToString(e.Message))})
	}
	return out
}

// settle decides an unknown outcome by reading every key the plan writes
// with one consistent TransactGetItems: all effects there means committed,
// none means not committed (cancelled), anything else stays unknown.
func (s *Store) settle(ctx context.Context, tx Tx, res Result) (Result, error) {
	res.Outcome = Unknown
	// The caller's context may be the one that ran out: settle on our own.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
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
		res.Reasons = []Reason{{Slot: -1, Code: "Unknown", Message: "no answer, and the keys could not be read to settle it: " + errText(err)}}
		return res, nil
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
		res.Outcome = Committed
	case 0:
		res.Outcome = Cancelled
		res.Reasons = []Reason{{Slot: -1, Code: "NotCommitted", Message: "no answer came; a consistent read shows none of its writes"}}
	default:
		res.Reasons = []Reason{{Slot: -1, Code: "Unknown", Message: fmt.Sprintf("no answer came; %d of %d writes show, which other writers may explain", applied, len(effects))}}
	}
	return res, nil
}

func errText(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Msg
	}
	return err.Error()
}

// auditLine is one line of the audit log: keys, never attribute values.
type auditLine struct {
	Time      time.Time `json:"time"`
	Operation string    `json:"operation"`
	Table     string    `json:"table"`
	Keys      []string  `json:"keys"`
	Token     string    `json:"token"`
	Outcome   Outcome   `json:"outcome"`
	Codes     []string  `json:"cancellation_codes"`
}

func (s *Store) audit(res Result) {
	if s.Audit == nil {
		return
	}
	line := auditLine{Time: time.Now().UTC(), Operation: res.Operation, Table: s.Schema.Table, Keys: res.Keys,
		Token: res.Token, Outcome: res.Outcome, Codes: []string{}}
	for _, r := range res.Reasons {
		line.Codes = append(line.Codes, r.Code)
	}
	b, _ := json.Marshal(line)
	// Keys come from the table: escaped like every JSON locktable writes.
	_, _ = s.Audit.Write([]byte(model.EscapeJSON(string(b)) + "\n"))
}
