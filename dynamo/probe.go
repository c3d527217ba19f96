package dynamo

import (
	"context"
	"errors"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/locktable/locktable/backend"
)

// noOperation are the error codes of a backend that does not know an
// operation: one without transactions answers TransactWriteItems so.
var noOperation = map[string]bool{
	"UnknownOperationException": true, "UnknownOperation": true, "NotImplemented": true, "InvalidAction": true,
}

// Probe asks the backend, with transactions that change nothing (a
// ConditionCheck alone), whether it has transactions, honours
// ClientRequestToken and returns ALL_OLD items. Only writable stores on an
// endpoint other than AWS's are probed: it costs three calls, and writes
// nothing.
// The store keeps the answer in s.Capabilities.
func (s *Store) Probe(ctx context.Context) (c backend.Capabilities, err error) {
	c = backend.Capabilities{Transactions: true, Tokens: true, AllOld: true}
	defer func() {
		if err == nil {
			s.Capabilities = c
		}
	}()
	w, err := s.writer()
	if err != nil || s.Endpoint.URL == "" {
		return c, nil
	}
	c.Probed = true
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
		key = map[string]types.AttributeValue{sc.PK: out.Items[0][sc.PK]}
		if sc.SK != "" {
			key[sc.SK] = out.Items[0][sc.SK]
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
	var apiErr smithy.APIError
	if err := call(check(false, token)); err != nil {
		if errors.As(err, &apiErr) && noOperation[apiErr.ErrorCode()] {
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
