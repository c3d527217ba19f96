package dynamo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/locktable/locktable/model"
)

// presetPages bounds the filtered scan pages that ResolvePreset reads to
// find the model's accounts and unique items.
const presetPages = 20

// ResolvePreset fills in what a preset's schema reads from the table: the
// key attribute names (DescribeTable), and where not given, the accounts'
// sort key (=PK when it is their partition key, else the one value they
// share), the unique attributes (from the model's unique items) and the
// spelling new locks are written in (the one those items have). It says
// what it found, then validates the schema. A schema without a preset is
// left alone.
func (s *Store) ResolvePreset(ctx context.Context) ([]string, error) {
	sc := &s.Schema
	if sc.Preset == "" {
		return nil, nil
	}
	var notes []string
	if sc.KeysFromTable {
		desc, err := s.describe(ctx, sc.Table)
		if err != nil {
			return nil, err
		}
		sc.PK, sc.SK = "", ""
		for _, k := range desc.KeySchema {
			if k.KeyType == types.KeyTypeHash {
				sc.PK = aws.ToString(k.AttributeName)
			} else {
				sc.SK = aws.ToString(k.AttributeName)
			}
		}
		sc.KeysFromTable = false
		notes = append(notes, fmt.Sprintf("%s: key %s, %s", sc.Table, sc.PK, sc.SK))
	}
	if sc.SK == "" {
		return notes, model.NewSchemaError(model.FieldPreset, "table %s has no sort key: %s tables have one", sc.Table, sc.Preset)
	}
	if strings.HasPrefix(sc.Preset, model.LibElectroDB+":") {
		found, err := s.electroSample(ctx)
		notes = append(notes, found...)
		if err != nil {
			return notes, err
		}
		return notes, sc.Validate()
	}
	if sc.AccountSK == "" || len(sc.Constraints) == 0 || (model.Preset{Schema: sc}).SpellingUnread() {
		found, err := s.presetSample(ctx)
		if err != nil {
			return notes, err
		}
		notes = append(notes, found...)
	}
	return notes, sc.Validate()
}

// presetSample reads the model's accounts and unique items (a filtered
// scan, at most presetPages pages) and sets the accounts' sort key, the
// constraints and the spelling of new locks that the schema leaves empty.
func (s *Store) presetSample(ctx context.Context) ([]string, error) {
	sc := &s.Schema
	sm, err := s.presetScan(ctx)
	if err != nil {
		return nil, err
	}
	var notes []string
	if sc.AccountSK == "" {
		note, err := sm.accountSK(sc)
		if err != nil {
			return nil, err
		}
		notes = append(notes, note)
	}
	if len(sc.Constraints) == 0 {
		found, err := sm.constraints(sc)
		notes = append(notes, found...)
		if err != nil {
			return notes, err
		}
	}
	if note := (model.Preset{Schema: sc}).ReadSpelling(sm.keys); note != "" {
		notes = append(notes, note)
	}
	if len(sm.accounts) > 0 && (sc.IDAttr == "" || (model.AccountIDs{Schema: sc}).KeyPrefix() == "") {
		notes = append(notes, s.presetIDAttr(sm.accounts, slices.Sorted(maps.Keys(sm.attrs))))
	}
	return notes, nil
}

// presetSampled is what presetScan read: the model's accounts, with the
// sort keys they have and the names of their attributes, and the keys of
// the unique items.
type presetSampled struct {
	accounts []model.Item
	sks      map[string]int // sort key -> accounts that have it
	samePK   int            // accounts whose sort key is their partition key
	attrs    map[string]bool
	keys     []string // of the unique items
}

// presetScan reads the model's accounts and unique items (a filtered
// scan, at most presetPages pages).
func (s *Store) presetScan(ctx context.Context) (presetSampled, error) {
	sc := &s.Schema
	preset := model.Preset{Schema: sc}
	sm := presetSampled{sks: map[string]int{}, attrs: map[string]bool{}}
	filter := expression.Name(sc.AccountType.Attr).Equal(expression.Value(sc.AccountType.Value)).
		Or(expression.Name(sc.PK).BeginsWith(preset.UniqueItemsHead()))
	heads, sk := preset.OlderUniqueItems()
	for _, head := range heads {
		filter = filter.Or(expression.Name(sc.PK).BeginsWith(head).And(expression.Name(sc.SK).Equal(expression.Value(sk))))
	}
	err := s.presetPages(ctx, filter, func(it model.Item) { sm.add(sc, it) })
	return sm, err
}

// presetPages reads the account table's items that filter picks (a
// filtered scan, at most presetPages pages) and hands each to each.
func (s *Store) presetPages(ctx context.Context, filter expression.ConditionBuilder, each func(model.Item)) error {
	sc := &s.Schema
	expr, err := expression.NewBuilder().WithFilter(filter).Build()
	if err != nil {
		return err
	}
	in := &dynamodb.ScanInput{TableName: aws.String(sc.Table), FilterExpression: expr.Filter(),
		ExpressionAttributeNames: expr.Names(), ExpressionAttributeValues: expr.Values()}
	for page := 0; page < presetPages; page++ {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		out, err := s.api.Scan(cctx, in)
		cancel()
		if err != nil {
			return explain(err, "scan", sc.Table, s.Endpoint)
		}
		for _, av := range out.Items {
			each(fromSDK(av))
		}
		if out.LastEvaluatedKey == nil {
			return nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return nil
}

// add counts item it: an account of the model, else a unique item.
func (sm *presetSampled) add(sc *model.Schema, it model.Item) {
	pk, sk := it[sc.PK].S, it[sc.SK].S
	if t, ok := it[sc.AccountType.Attr]; !ok || t.Kind != model.KindS || t.S != sc.AccountType.Value {
		sm.keys = append(sm.keys, pk)
		return
	}
	sm.accounts = append(sm.accounts, it)
	sm.sks[sk]++
	if sk == pk {
		sm.samePK++
	}
	for name := range it {
		sm.attrs[name] = true
	}
}

// accountSK sets the accounts' sort key from the one they all have (or
// their partition key's), and says so; without one it is an error naming
// the flag.
func (sm presetSampled) accountSK(sc *model.Schema) (string, error) {
	n := len(sm.accounts)
	switch {
	case n == 0:
		return "", model.NewSchemaError(model.FieldAccountSK, "no item of %s has %s=%s: pass %s (or check %s)",
			sc.Table, sc.AccountType.Attr, sc.AccountType.Value, model.FieldAccountSK, model.FieldPreset)
	case sm.samePK == n:
		sc.AccountSK = model.SameAsPK
	case len(sm.sks) == 1:
		for sk := range sm.sks {
			sc.AccountSK = sk
		}
	default:
		return "", model.NewSchemaError(model.FieldAccountSK, "the %d accounts (%s=%s) have %d different sort keys: pass %s",
			n, sc.AccountType.Attr, sc.AccountType.Value, len(sm.sks), model.FieldAccountSK)
	}
	return fmt.Sprintf("accounts: %d items with %s=%s and %s %s", n, sc.AccountType.Attr, sc.AccountType.Value, sc.SK, sc.AccountSK), nil
}

// constraints sets the unique attributes from the unique items present,
// plain and scoped, and says what it found; finding none is an error
// naming the flag.
func (sm presetSampled) constraints(sc *model.Schema) ([]string, error) {
	var notes []string
	preset := model.Preset{Schema: sc}
	unique := preset.UniqueAttrs(sm.keys, slices.Sorted(maps.Keys(sm.attrs)))
	slices.Sort(unique)
	for _, attr := range unique {
		sc.Constraints = append(sc.Constraints, preset.Unique(attr))
	}
	if len(unique) > 0 {
		notes = append(notes, fmt.Sprintf("unique attributes, from the unique items present: %v", unique))
	}
	scoped, found := preset.ScopedUniques(sm.keys, sm.accounts, sc.PK, sc.SK, sc.AccountType.Attr)
	notes = append(notes, found...)
	for _, c := range scoped {
		if sc.Constraint(c.Attr) < 0 {
			sc.Constraints = append(sc.Constraints, c)
		}
	}
	switch {
	case len(sc.Constraints) > 0:
		return notes, nil
	case len(found) > 0: // scoped unique items whose scope it could not tell
		return notes, model.NewSchemaError(model.FieldConstraints, "%s", strings.Join(found, "; "))
	}
	return notes, model.NewSchemaError(model.FieldConstraints, "no unique item of %s (%s…) in %s: pass %s ATTR", sc.Preset, preset.Head(), sc.Table, model.FieldConstraints)
}

// presetIDAttr finds, where not given, the attribute in which the sampled
// accounts carry their id and what their key holds before it
// (model.InferIDAttr); a given --id-attr is only looked at for the
// prefix. The prefix goes to IDPrefix, not AccountPrefix: the preset's
// accounts are told by their type, so an item of the model keyed
// otherwise is still judged.
func (s *Store) presetIDAttr(accounts []model.Item, names []string) string {
	sc := &s.Schema
	skip := []string{sc.SK, sc.AccountType.Attr, sc.OwnerAttr}
	for _, c := range sc.Constraints {
		skip = append(skip, c.Attr, c.Scope)
	}
	if sc.IDAttr != "" {
		skip = slices.DeleteFunc(names, func(n string) bool { return n == sc.IDAttr })
	}
	attr, prefix, note := model.InferIDAttr(accounts, sc.PK, skip...)
	ids := model.AccountIDs{Schema: sc}
	switch {
	case attr == "" && sc.IDAttr != "":
		return fmt.Sprintf("id attribute %s: not the end of every account's %s after one prefix; signups write the key without %q there", sc.IDAttr, sc.PK, ids.KeyPrefix())
	case attr == "":
	case ids.KeyPrefix() == "":
		sc.IDPrefix = prefix
	case prefix != ids.KeyPrefix():
		attr, note = "", fmt.Sprintf("id attribute: %s ends the accounts' %s after %q, not %q: pass --id-attr %s=%s to have signups write it", attr, sc.PK, prefix, ids.KeyPrefix(), attr, prefix)
	}
	if sc.IDAttr == "" {
		sc.IDAttr = attr
	}
	return note
}
