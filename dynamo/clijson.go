package dynamo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/model"
)

// CLIJSON renders a TransactWriteItems input as the JSON the AWS CLI takes
// with `aws dynamodb transact-write-items --cli-input-json`: the API's
// field names, attribute values as DynamoDB JSON. It reads the very value
// that Execute sends, so a preview cannot differ from the request.
func CLIJSON(in *dynamodb.TransactWriteItemsInput) ([]byte, error) {
	doc := map[string]any{}
	if in.ClientRequestToken != nil {
		doc["ClientRequestToken"] = aws.ToString(in.ClientRequestToken)
	}
	var items []any
	for _, ti := range in.TransactItems {
		switch {
		case ti.Put != nil:
			p := ti.Put
			items = append(items, map[string]any{"Put": action(p.TableName, nil, p.Item, nil, p.ConditionExpression,
				p.ExpressionAttributeNames, p.ExpressionAttributeValues, p.ReturnValuesOnConditionCheckFailure)})
		case ti.Update != nil:
			u := ti.Update
			items = append(items, map[string]any{"Update": action(u.TableName, u.Key, nil, u.UpdateExpression, u.ConditionExpression,
				u.ExpressionAttributeNames, u.ExpressionAttributeValues, u.ReturnValuesOnConditionCheckFailure)})
		case ti.Delete != nil:
			d := ti.Delete
			items = append(items, map[string]any{"Delete": action(d.TableName, d.Key, nil, nil, d.ConditionExpression,
				d.ExpressionAttributeNames, d.ExpressionAttributeValues, d.ReturnValuesOnConditionCheckFailure)})
		case ti.ConditionCheck != nil:
			c := ti.ConditionCheck
			items = append(items, map[string]any{"ConditionCheck": action(c.TableName, c.Key, nil, nil, c.ConditionExpression,
				c.ExpressionAttributeNames, c.ExpressionAttributeValues, c.ReturnValuesOnConditionCheckFailure)})
		}
	}
	doc["TransactItems"] = items
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// action renders one action's members, leaving out the empty ones as the
// CLI's own JSON does.
func action(table *string, key, item map[string]types.AttributeValue, update, cond *string,
	names map[string]string, values map[string]types.AttributeValue, rv types.ReturnValuesOnConditionCheckFailure) map[string]any {
	m := map[string]any{"TableName": aws.ToString(table)}
	if key != nil {
		m["Key"] = fromSDK(key)
	}
	if item != nil {
		m["Item"] = fromSDK(item)
	}
	if update != nil {
		m["UpdateExpression"] = *update
	}
	if cond != nil {
		m["ConditionExpression"] = *cond
	}
	if len(names) > 0 {
		m["ExpressionAttributeNames"] = names
	}
	if len(values) > 0 {
		m["ExpressionAttributeValues"] = fromSDK(values)
	}
	if rv != "" {
		m["ReturnValuesOnConditionCheckFailure"] = string(rv)
	}
	return m
}

// ParseCLIJSON reads a document CLIJSON wrote (or any
// transact-write-items --cli-input-json document) back into an SDK input,
// so tests can send a dry run's output as the AWS CLI would.
func ParseCLIJSON(data []byte) (*dynamodb.TransactWriteItemsInput, error) {
	type act struct {
		TableName                           string
		Key, Item                           model.Item
		UpdateExpression                    *string
		ConditionExpression                 *string
		ExpressionAttributeNames            map[string]string
		ExpressionAttributeValues           model.Item
		ReturnValuesOnConditionCheckFailure types.ReturnValuesOnConditionCheckFailure
	}
	var doc struct {
		ClientRequestToken *string
		TransactItems      []map[string]act
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more than one JSON document")
	}
	sdk := func(it model.Item) map[string]types.AttributeValue {
		if it == nil {
			return nil
		}
		return ItemToSDK(it)
	}
	in := &dynamodb.TransactWriteItemsInput{ClientRequestToken: doc.ClientRequestToken}
	for i, ti := range doc.TransactItems {
		if len(ti) != 1 {
			return nil, fmt.Errorf("TransactItems[%d]: want exactly one of Put, Update, Delete, ConditionCheck, got %d members", i, len(ti))
		}
		for kind, a := range ti {
			t := aws.String(a.TableName)
			var w types.TransactWriteItem
			switch kind {
			case "Put":
				w.Put = &types.Put{TableName: t, Item: sdk(a.Item), ConditionExpression: a.ConditionExpression,
					ExpressionAttributeNames: a.ExpressionAttributeNames, ExpressionAttributeValues: sdk(a.ExpressionAttributeValues), ReturnValuesOnConditionCheckFailure: a.ReturnValuesOnConditionCheckFailure}
			case "Update":
				w.Update = &types.Update{TableName: t, Key: sdk(a.Key), UpdateExpression: a.UpdateExpression, ConditionExpression: a.ConditionExpression,
					ExpressionAttributeNames: a.ExpressionAttributeNames, ExpressionAttributeValues: sdk(a.ExpressionAttributeValues), ReturnValuesOnConditionCheckFailure: a.ReturnValuesOnConditionCheckFailure}
			case "Delete":
				w.Delete = &types.Delete{TableName: t, Key: sdk(a.Key), ConditionExpression: a.ConditionExpression,
					ExpressionAttributeNames: a.ExpressionAttributeNames, ExpressionAttributeValues: sdk(a.ExpressionAttributeValues), ReturnValuesOnConditionCheckFailure: a.ReturnValuesOnConditionCheckFailure}
			case "ConditionCheck":
				w.ConditionCheck = &types.ConditionCheck{TableName: t, Key: sdk(a.Key), ConditionExpression: a.ConditionExpression,
					ExpressionAttributeNames: a.ExpressionAttributeNames, ExpressionAttributeValues: sdk(a.ExpressionAttributeValues), ReturnValuesOnConditionCheckFailure: a.ReturnValuesOnConditionCheckFailure}
			default:
				return nil, fmt.Errorf("TransactItems[%d]: unknown action %q", i, kind)
			}
			in.TransactItems = append(in.TransactItems, w)
		}
	}
	return in, nil
}
