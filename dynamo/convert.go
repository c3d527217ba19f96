package dynamo

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/model"
)

// ItemFromSDK converts an SDK item to a model item, every attribute type
// included.
func ItemFromSDK(av map[string]types.AttributeValue) model.Item { return fromSDK(av) }

// fromSDK converts an SDK item to a model item.
func fromSDK(av map[string]types.AttributeValue) model.Item {
	it := make(model.Item, len(av))
	for k, v := range av {
		it[k] = valueFromSDK(v)
	}
	return it
}

func valueFromSDK(av types.AttributeValue) model.Value {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return model.S(v.Value)
	case *types.AttributeValueMemberN:
		return model.N(v.Value)
	case *types.AttributeValueMemberB:
		return model.Value{Kind: model.KindB, B: v.Value}
	case *types.AttributeValueMemberBOOL:
		return model.Value{Kind: model.KindBOOL, Bool: v.Value}
	case *types.AttributeValueMemberNULL:
		return model.Null()
	case *types.AttributeValueMemberSS:
		return model.Value{Kind: model.KindSS, Strings: v.Value}
	case *types.AttributeValueMemberNS:
		return model.Value{Kind: model.KindNS, Strings: v.Value}
	case *types.AttributeValueMemberBS:
		return model.Value{Kind: model.KindBS, Binaries: v.Value}
	case *types.AttributeValueMemberL:
		l := make([]model.Value, len(v.Value))
		for i, e := range v.Value {
			l[i] = valueFromSDK(e)
		}
		return model.Value{Kind: model.KindL, List: l}
	case *types.AttributeValueMemberM:
		return model.Value{Kind: model.KindM, Map: fromSDK(v.Value)}
	}
	// An unknown union member (a type newer than this SDK): keep it visible
	// as an empty map rather than dropping the attribute.
	return model.Value{Kind: model.KindM}
}

// keyToSDK converts a string key map (as model builds them) to SDK form.
func keyToSDK(key map[string]string) map[string]types.AttributeValue {
	av := make(map[string]types.AttributeValue, len(key))
	for k, v := range key {
		av[k] = &types.AttributeValueMemberS{Value: v}
	}
	return av
}

// keyID is model.KeyRef.ID, for the store's many reads by key.
func keyID(table string, key map[string]string) string {
	return model.KeyRef{Table: table, Key: key}.ID()
}

// ItemToSDK converts a model item to SDK form.
func ItemToSDK(it model.Item) map[string]types.AttributeValue {
	av := make(map[string]types.AttributeValue, len(it))
	for k, v := range it {
		av[k] = valueToSDK(v)
	}
	return av
}

func valueToSDK(v model.Value) types.AttributeValue {
	switch v.Kind {
	case model.KindN:
		return &types.AttributeValueMemberN{Value: v.S}
	case model.KindB:
		return &types.AttributeValueMemberB{Value: v.B}
	case model.KindBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.Bool}
	case model.KindNULL:
		return &types.AttributeValueMemberNULL{Value: true}
	case model.KindSS:
		return &types.AttributeValueMemberSS{Value: v.Strings}
	case model.KindNS:
		return &types.AttributeValueMemberNS{Value: v.Strings}
	case model.KindBS:
		return &types.AttributeValueMemberBS{Value: v.Binaries}
	case model.KindL:
		l := make([]types.AttributeValue, len(v.List))
		for i, e := range v.List {
			l[i] = valueToSDK(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case model.KindM:
		return &types.AttributeValueMemberM{Value: ItemToSDK(v.Map)}
	}
	return &types.AttributeValueMemberS{Value: v.S}
}
