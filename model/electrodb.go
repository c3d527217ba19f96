package model

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// LibElectroDB is ElectroDB, whose documentation builds unique values
// from a constraint entity (name, value, entity) created in the same
// transaction.write as the entity it guards.
const LibElectroDB = "electrodb"

// ElectroDB's attributes on every item it writes: the entity and its
// version.
const (
	ElectroEntityAttr  = "__edb_e__"
	ElectroVersionAttr = "__edb_v__"
)

// The documented unique constraint entity's attributes: the guarded
// attribute's name, its value as given, and the guarded entity.
const (
	electroName   = "name"
	electroValue  = "value"
	electroEntity = "entity"
)

// ConstraintEntity is ElectroDB's constraint entity as its documentation
// declares it ("Example - Unique Constraint"): its model's entity name,
// service and version, and whether its keys are composed lower-cased
// (ElectroDB's default casing).
type ConstraintEntity struct {
	Name, Service, Version string
	Lower                  bool
}

// DefaultConstraintEntity is the documentation's constraint entity in
// service, the guarded entity's.
func DefaultConstraintEntity(service string) ConstraintEntity {
	return ConstraintEntity{Name: "constraint", Service: service, Version: "1", Lower: true}
}

// ServiceOf is the service an ElectroDB partition key names
// ($mi6#designation_00: mi6), "" when it is not so composed.
func ServiceOf(pk string) string {
	rest, ok := strings.CutPrefix(pk, "$")
	if !ok {
		return ""
	}
	service, _, ok := strings.Cut(rest, "#")
	if !ok {
		return ""
	}
	return service
}

// ElectroUnique is the constraint on attr as the documented constraint
// entity e keys it for the preset's entity: primary key value (pk) and
// name, entity (sk), gsi1 name, entity then value.
func (s Preset) ElectroUnique(attr string, e ConstraintEntity) Constraint {
	_, entity, _ := ParsePreset(s.Schema.Preset)
	service, model := ElectroPKHead(e.Service), ElectroSKHead(e.Name, e.Version)
	c := Constraint{Attr: attr, Normalize: NormalizeNone,
		Prefix: ElectroKey(e.Lower, service, electroValue, ""),
		LockSK: ElectroKey(e.Lower, model, electroName, attr, electroEntity, entity),
		LockAttrs: []Assignment{
			{ElectroEntityAttr, e.Name}, {ElectroVersionAttr, e.Version},
			{electroName, attr}, {electroValue, LockAttrValue}, {electroEntity, entity},
			{"gsi1pk", ElectroKey(e.Lower, service, electroName, attr, electroEntity, entity)},
			{"gsi1sk", ElectroKey(e.Lower, model, electroValue, "") + LockAttrKey},
		}}
	if e.Lower {
		c.Normalize = NormalizeLower
	}
	return c
}

// ElectroPKHead is how ElectroDB starts a partition key in service:
// $SERVICE.
func ElectroPKHead(service string) string { return "$" + service }

// ElectroSKHead is how ElectroDB starts a sort key of an entity at a
// version: $ENTITY_VERSION.
func ElectroSKHead(entity, version string) string { return "$" + entity + "_" + version }

// ElectroKey composes a key the way ElectroDB does: head (ElectroPKHead,
// ElectroSKHead), then #NAME_VALUE for each composite attribute, given as
// name, value pairs; lower-cased when lower (ElectroDB's default casing).
func ElectroKey(lower bool, head string, composite ...string) string {
	k := head
	for i := 0; i+1 < len(composite); i += 2 {
		k += "#" + composite[i] + "_" + composite[i+1]
	}
	if lower {
		return strings.ToLower(k)
	}
	return k
}

// ElectroConstraint reads a constraint of the preset's entity from one
// of ElectroDB's constraint items, keyed pk and sk: its attribute (name),
// the prefix before the value in pk, the casing (lower when pk holds the
// value lower-cased), the sort key, and the attributes to write on new
// ones (the value as given, the GSI keys composed with it, the rest as
// they are). False when it is not one.
func (s Preset) ElectroConstraint(it Item, pkAttr, skAttr string) (Constraint, bool) {
	_, entity, _ := ParsePreset(s.Schema.Preset)
	str := func(a string) string {
		if v, ok := it[a]; ok && v.Kind == KindS {
			return v.S
		}
		return ""
	}
	attr, value, pk, sk := str(electroName), str(electroValue), str(pkAttr), str(skAttr)
	if str(electroEntity) != entity || attr == "" || value == "" || sk == "" || str(ElectroEntityAttr) == "" {
		return Constraint{}, false
	}
	c := Constraint{Attr: attr, Normalize: NormalizeNone, LockSK: sk}
	key := value
	if lower := strings.ToLower(value); strings.HasSuffix(pk, lower) && (lower == value || !strings.HasSuffix(pk, value)) {
		c.Normalize, key = NormalizeLower, lower
	}
	prefix, ok := strings.CutSuffix(pk, key)
	if !ok || prefix == "" {
		return Constraint{}, false
	}
	c.Prefix = prefix
	c.LockAttrs = electroLockAttrs(it, key, pkAttr, skAttr, s.Schema.OwnerAttr)
	return c, true
}

// electroLockAttrs are the attributes of constraint item it, whose key
// holds the value as key, as templates for new ones: the value as given,
// the keys ElectroDB composed with it (GSI keys, starting $) with the
// value as the key holds it, the rest as they are; not skip.
func electroLockAttrs(it Item, key string, skip ...string) []Assignment {
	var attrs []Assignment
	for _, name := range slices.Sorted(maps.Keys(it)) {
		v := it[name]
		switch {
		case slices.Contains(skip, name) || v.Kind != KindS:
		case name == electroValue:
			attrs = append(attrs, Assignment{name, LockAttrValue})
		case strings.HasPrefix(v.S, "$") && strings.HasSuffix(v.S, key) && v.S != key:
			attrs = append(attrs, Assignment{name, strings.TrimSuffix(v.S, key) + LockAttrKey})
		default:
			attrs = append(attrs, Assignment{name, v.S})
		}
	}
	return attrs
}

// electroTable recognises a table ElectroDB wrote (its items carry
// __edb_e__ and __edb_v__) and proposes the preset of the entity its
// constraint items guard, the one most of them name: the preset then
// reads the table (Schema.Preset set, nothing else). False when no
// ElectroDB constraint item in the sample says what is guarded.
func electroTable(sm Sample) (preset, note string, ok bool) {
	guarded := map[string]int{}
	str := func(it Item, a string) (string, bool) {
		v, ok := it[a]
		return v.S, ok && v.Kind == KindS && v.S != ""
	}
	for _, it := range sm.Items {
		_, isE := str(it, ElectroEntityAttr)
		if _, isV := str(it, ElectroVersionAttr); !isE || !isV {
			continue
		}
		g, isG := str(it, electroEntity)
		_, isN := str(it, electroName)
		if _, isValue := str(it, electroValue); isG && isN && isValue {
			guarded[g]++
		}
	}
	names := slices.Sorted(maps.Keys(guarded))
	if len(names) == 0 {
		return "", "", false
	}
	best := slices.MaxFunc(names, func(a, b string) int { return guarded[a] - guarded[b] })
	return LibElectroDB + ":" + best, fmt.Sprintf("ElectroDB items (%s, %s) in %s: constraint items guard %s: the preset %s:%s reads the rest",
		ElectroEntityAttr, ElectroVersionAttr, sm.Table, strings.Join(names, ", "), LibElectroDB, best), true
}

// SetConstraintEntity sets what is given of the constraint entity, as
// NAME=VALUE pairs separated by commas: entity, service, version (any of
// them; the items present, else the documentation, say the others).
func (s Preset) SetConstraintEntity(v string) error {
	if lib, _, _ := ParsePreset(s.Schema.Preset); lib != LibElectroDB {
		return NewSchemaError(FieldConstraintEntity, "goes with %s electrodb:ENTITY", FieldPreset)
	}
	var e ConstraintEntity
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || val == "" {
			return NewSchemaError(FieldConstraintEntity, "%q: want entity=NAME,service=SERVICE,version=VERSION (any of them)", v)
		}
		switch k {
		case "entity":
			e.Name = val
		case "service":
			e.Service = val
		case "version":
			e.Version = val
		default:
			return NewSchemaError(FieldConstraintEntity, "%q: %s is not entity, service or version", v, k)
		}
	}
	s.Schema.ConstraintEntity = e
	return nil
}

// String is the entity as SetConstraintEntity takes it, its given parts
// only; "" when none is given.
func (e ConstraintEntity) String() string {
	var parts []string
	for _, p := range []struct{ k, v string }{{"entity", e.Name}, {"service", e.Service}, {"version", e.Version}} {
		if p.v != "" {
			parts = append(parts, p.k+"="+p.v)
		}
	}
	return strings.Join(parts, ",")
}

// Or is e with what it does not give taken from d.
func (e ConstraintEntity) Or(d ConstraintEntity) ConstraintEntity {
	if e.Name == "" {
		e.Name = d.Name
	}
	if e.Service == "" {
		e.Service = d.Service
	}
	if e.Version == "" {
		e.Version = d.Version
	}
	e.Lower = d.Lower
	return e
}

// Given reports whether constraint item it is of the entity as given:
// its name and version where they are given.
func (e ConstraintEntity) Given(it Item) bool {
	for _, p := range []struct{ attr, want string }{{ElectroEntityAttr, e.Name}, {ElectroVersionAttr, e.Version}} {
		if v := it[p.attr]; p.want != "" && (v.Kind != KindS || v.S != p.want) {
			return false
		}
	}
	return true
}
