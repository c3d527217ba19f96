package dynamo

import (
	"context"
	"errors"
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

// electroSampled is what electroScan read of an ElectroDB table: how many
// items of the entity, the service their keys name, and the constraint
// entity's items that guard the entity, one per attribute (the first).
type electroSampled struct {
	accounts    int
	service     string
	version     string // the entity's, as its items carry it
	constraints map[string]model.Constraint
}

// electroSample reads the entity's items and its constraints (a filtered
// scan, at most presetPages pages) and keys the schema's constraints as
// those items are keyed; without any, as the documented constraint
// entity is, in the entity's service. Without --unique, the constraints
// present say which attributes are unique.
func (s *Store) electroSample(ctx context.Context) ([]string, error) {
	sc := &s.Schema
	sm, err := s.electroScan(ctx)
	if err != nil {
		return nil, err
	}
	notes := []string{fmt.Sprintf("accounts: %d items with %s=%s, each named by its whole key (%s|%s)",
		sm.accounts, sc.AccountType.Attr, sc.AccountType.Value, sc.PK, sc.SK)}
	preset := model.Preset{Schema: sc}
	if sm.version == "" {
		sm.version = "1"
	}
	sc.AccountAttrs = []model.Assignment{{Attr: model.ElectroVersionAttr, Value: sm.version}} // ElectroDB owns items by entity and version
	if len(sc.Constraints) == 0 {
		for _, attr := range slices.Sorted(maps.Keys(sm.constraints)) {
			sc.Constraints = append(sc.Constraints, preset.Unique(attr))
		}
		if len(sc.Constraints) == 0 {
			return notes, model.NewSchemaError(model.FieldConstraints, "no constraint item of %s (entity=%s) in %s: pass %s ATTR",
				sc.Preset, sc.AccountType.Value, sc.Table, model.FieldConstraints)
		}
		notes = append(notes, fmt.Sprintf("unique attributes, from the constraint items present: %v", slices.Sorted(maps.Keys(sm.constraints))))
	}
	for i := range sc.Constraints {
		c := &sc.Constraints[i]
		if !c.InAccountTable() || c.Prefix != "" {
			continue
		}
		if found, ok := sm.constraints[c.Attr]; ok {
			*c = withFlags(found, *c)
			notes = append(notes, fmt.Sprintf("%s: constraint items keyed %s<value> (%s), sort key %s", c.Attr, c.Prefix, c.Normalize, c.LockSK))
			continue
		}
		e := sc.ConstraintEntity.Or(model.DefaultConstraintEntity(sm.service))
		e.Lower = c.Normalize != model.NormalizeNone // --normalize ATTR=none: keys composed as given; else ElectroDB's default
		if e.Service == "" {
			return notes, model.NewSchemaError(model.FieldConstraintEntity, "%s: no item of %s in %s says its service: pass %s service=SERVICE", c.Attr, sc.Preset, sc.Table, model.FieldConstraintEntity)
		}
		*c = withFlags(preset.ElectroUnique(c.Attr, e), *c)
		notes = append(notes, fmt.Sprintf("%s: no constraint item yet: keyed as the documented constraint entity, %s<value> (%s), sort key %s", c.Attr, c.Prefix, c.Normalize, c.LockSK))
	}
	return notes, nil
}

// withFlags is the constraint read from the table with what the flags
// said of the given one: its index, and its casing where --normalize
// said it (unset otherwise: the items say it).
func withFlags(read, given model.Constraint) model.Constraint {
	read.Index = given.Index
	if given.Normalize != "" {
		read.Normalize = given.Normalize
	}
	return read
}

// addAgent counts an item of the entity, and takes the service and
// version from the first that says them.
func (sm *electroSampled) addAgent(sc *model.Schema, it model.Item) {
	sm.accounts++
	if sm.service == "" {
		sm.service = model.ServiceOf(it[sc.PK].S)
	}
	if v, ok := it[model.ElectroVersionAttr]; ok && sm.version == "" && v.Kind == model.KindS {
		sm.version = v.S
	}
}

// electroScan reads the entity's items and the constraint items whose
// entity attribute names it.
func (s *Store) electroScan(ctx context.Context) (electroSampled, error) {
	sc := &s.Schema
	sm := electroSampled{constraints: map[string]model.Constraint{}}
	preset := model.Preset{Schema: sc}
	filter := expression.Name(sc.AccountType.Attr).Equal(expression.Value(sc.AccountType.Value)).
		Or(expression.Name("entity").Equal(expression.Value(sc.AccountType.Value)))
	err := s.presetPages(ctx, filter, func(it model.Item) {
		if t := it[sc.AccountType.Attr]; t.Kind == model.KindS && t.S == sc.AccountType.Value {
			sm.addAgent(sc, it)
			return
		}
		if c, ok := preset.ElectroConstraint(it, sc.PK, sc.SK); ok && sc.ConstraintEntity.Given(it) {
			if _, seen := sm.constraints[c.Attr]; !seen {
				sm.constraints[c.Attr] = c // the first of each attribute
			}
		}
	})
	return sm, err
}

// ElectroIndex is the GSI of the documented constraint entity's second
// index (gsi1pk, gsi1sk), named as ElectroDB's examples name it.
const ElectroIndex = "gsi1pk-gsi1sk-index"

// EnsurePresetTable creates an electrodb preset's table where it is
// missing (seed): keyed pk and sk unless --pk, --sk say otherwise, as
// ElectroDB's documentation keys it, with the GSI of the documented
// constraint entity, and waits until it is active. It says whether it
// created the table; another preset's table it leaves to be read.
func (s *Store) EnsurePresetTable(ctx context.Context) (bool, error) {
	sc := &s.Schema
	if !strings.HasPrefix(sc.Preset, model.LibElectroDB+":") {
		return false, nil
	}
	_, err := s.describe(ctx, sc.Table)
	var notFound *types.ResourceNotFoundException
	if err == nil || !errors.As(err, &notFound) {
		return false, err
	}
	pk, sk := sc.PK, sc.SK
	if sc.KeysFromTable || pk == "" || sk == "" {
		pk, sk = "pk", "sk"
	}
	keys := func(hash, rng string) []types.KeySchemaElement {
		return []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}, {AttributeName: aws.String(rng), KeyType: types.KeyTypeRange}}
	}
	in := &dynamodb.CreateTableInput{TableName: aws.String(sc.Table), BillingMode: types.BillingModePayPerRequest, KeySchema: keys(pk, sk),
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{IndexName: aws.String(ElectroIndex), KeySchema: keys("gsi1pk", "gsi1sk"),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}}}}
	for _, a := range []string{pk, sk, "gsi1pk", "gsi1sk"} {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	return true, s.create(ctx, in)
}
