package dynamo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/locktable/locktable/model"
)

// Unguarded is one single-item request sent outside any transaction, the
// way buggy code writes (seeding, and demo break replaying the articles'
// mistakes): a PutItem, with at most a condition on the item it writes,
// or a DeleteItem.
type Unguarded struct {
	Put    *dynamodb.PutItemInput
	Delete *dynamodb.DeleteItemInput
}

// PutRequest is a PutItem of it into table, under conds when given
// (which see only the item being written, never any other). A guard that
// takes an expired lock over judges TTLs at the second the request is
// built, by the store's clock, as Prepare's do.
func (s *Seeder) PutRequest(table string, it model.Item, conds ...model.Cond) (Unguarded, error) {
	in := &dynamodb.PutItemInput{TableName: aws.String(table), Item: ItemToSDK(it)}
	conds = model.GuardAt(conds, model.Epoch(s.now()))
	if len(conds) > 0 {
		c := condition(conds[0])
		for _, more := range conds[1:] {
			c = c.And(condition(more))
		}
		expr, err := expression.NewBuilder().WithCondition(c).Build()
		if err != nil {
			return Unguarded{}, fmt.Errorf("build the condition of a put into %s: %w", table, err)
		}
		in.ConditionExpression, in.ExpressionAttributeNames, in.ExpressionAttributeValues = expr.Condition(), expr.Names(), expr.Values()
	}
	return Unguarded{Put: in}, nil
}

// DeleteRequest is a DeleteItem of the item at key, without a condition.
func DeleteRequest(table string, key map[string]string) Unguarded {
	return Unguarded{Delete: &dynamodb.DeleteItemInput{TableName: aws.String(table), Key: keyToSDK(key)}}
}

// Call is the API call the request is: PutItem or DeleteItem.
func (u Unguarded) Call() string {
	if u.Put != nil {
		return "PutItem"
	}
	return "DeleteItem"
}

// MarshalJSON renders the request as the AWS CLI takes it (aws dynamodb
// put-item or delete-item --cli-input-json), inside {"call", "input"}.
func (u Unguarded) MarshalJSON() ([]byte, error) {
	var in map[string]any
	if p := u.Put; p != nil {
		in = action(p.TableName, nil, p.Item, nil, p.ConditionExpression, p.ExpressionAttributeNames, p.ExpressionAttributeValues, "")
	} else {
		d := u.Delete
		in = action(d.TableName, d.Key, nil, nil, d.ConditionExpression, d.ExpressionAttributeNames, d.ExpressionAttributeValues, "")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(map[string]any{"call": u.Call(), "input": in})
	return bytes.TrimRight(buf.Bytes(), "\n"), err
}

// SendUnguarded sends u once, through the store's writer (a read-only
// store refuses it like any write), with no audit and no retry of its
// own. A failed condition is an error.
func (s *Seeder) SendUnguarded(ctx context.Context, u Unguarded) error {
	w, err := s.sender()
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if u.Put != nil {
		_, err = w.PutItem(cctx, u.Put)
	} else {
		_, err = w.DeleteItem(cctx, u.Delete)
	}
	if err != nil {
		table := u.Put.TableName
		if u.Put == nil {
			table = u.Delete.TableName
		}
		return explain(err, u.Call(), aws.ToString(table), s.Endpoint)
	}
	return nil
}
