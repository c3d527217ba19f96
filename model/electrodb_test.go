package model

import (
	"reflect"
	"strings"
	"testing"
)

// electroItem is an item as ElectroDB 3.9.3 writes it, from its string
// attributes (the dump).
func electroItem(kv ...string) Item {
	it := Item{}
	for i := 0; i+1 < len(kv); i += 2 {
		it[kv[i]] = S(kv[i+1])
	}
	return it
}

// electroSchema is the electrodb:agent preset's schema once the table
// said its keys (pk, sk) and its constraint items keyed email.
func electroSchema(t *testing.T, constraint Item) *Schema {
	t.Helper()
	s := DefaultSchema(LayoutSingle)
	if err := (Preset{&s}).Apply("electrodb:agent"); err != nil {
		t.Fatal(err)
	}
	s.Table, s.PK, s.SK, s.KeysFromTable = "app", "pk", "sk", false
	c, ok := Preset{&s}.ElectroConstraint(constraint, "pk", "sk")
	if !ok {
		t.Fatalf("ElectroConstraint(%v): not a constraint of agent", constraint)
	}
	s.Constraints = []Constraint{c}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return &s
}

var (
	bondConstraint = electroItem("pk", "$mi6#value_bond@mi6.uk", "sk", "$constraint_1#name_email#entity_agent",
		"gsi1pk", "$mi6#name_email#entity_agent", "gsi1sk", "$constraint_1#value_bond@mi6.uk",
		"__edb_e__", "constraint", "__edb_v__", "1", "name", "email", "value", "Bond@MI6.uk", "entity", "agent")
	bondAgent = electroItem("pk", "$mi6#designation_007", "sk", "$agent_1#id_bond", "__edb_e__", "agent", "__edb_v__", "1",
		"designation", "007", "id", "bond", "email", "Bond@MI6.uk")
)

// A constraint item says how its entity keys the constraint: the prefix
// before the value, lower-cased (the key holds Bond@MI6.uk as
// bond@mi6.uk), its own sort key, and what a new one carries: the value
// as given, the GSI keys composed with the value as the key holds it.
// The documented entity keyed from defaults is the same.
func TestElectroConstraintFromItem(t *testing.T) {
	s := electroSchema(t, bondConstraint)
	c := s.Constraints[0]
	if c.Attr != "email" || c.Prefix != "$mi6#value_" || c.Normalize != NormalizeLower || c.LockSK != "$constraint_1#name_email#entity_agent" {
		t.Fatalf("constraint %+v", c)
	}
	want := []Assignment{{"__edb_e__", "constraint"}, {"__edb_v__", "1"}, {"entity", "agent"},
		{"gsi1pk", "$mi6#name_email#entity_agent"}, {"gsi1sk", "$constraint_1#value_" + LockAttrKey}, {"name", "email"}, {"value", LockAttrValue}}
	if !reflect.DeepEqual(c.LockAttrs, want) {
		t.Errorf("lock attributes\n %v\nwant\n %v", c.LockAttrs, want)
	}
	d := Preset{s}.ElectroUnique("email", DefaultConstraintEntity("mi6"))
	if d.Prefix != c.Prefix || d.LockSK != c.LockSK || d.Normalize != c.Normalize || len(d.LockAttrs) != len(want) {
		t.Errorf("documented constraint %+v, read %+v", d, c)
	}
	// Keys that hold the value as given are casing none.
	none := electroItem("pk", "$mi6#value_Bond@MI6.uk", "sk", "$constraint_1#name_email#entity_agent",
		"__edb_e__", "constraint", "name", "email", "value", "Bond@MI6.uk", "entity", "agent")
	if c, ok := (Preset{s}).ElectroConstraint(none, "pk", "sk"); !ok || c.Normalize != NormalizeNone || c.Prefix != "$mi6#value_" {
		t.Errorf("casing none: %+v %v", c, ok)
	}
	// Another entity's constraint is not agent's.
	other := electroItem("pk", "$mi6#value_x", "sk", "$constraint_1#name_email#entity_boss", "__edb_e__", "constraint",
		"name", "email", "value", "x", "entity", "boss")
	if _, ok := (Preset{s}).ElectroConstraint(other, "pk", "sk"); ok {
		t.Error("a constraint of entity boss was read as agent's")
	}
}

// Agents share partition keys: each is named by its whole key, PK|SK,
// and that name is its key again. The mixed-case agent holds its
// constraint.
func TestElectroAgentsNamedByWholeKey(t *testing.T) {
	s := electroSchema(t, bondConstraint)
	cl := Classifier{s}
	id := "$mi6#designation_007|$agent_1#id_bond"
	if e := cl.Classify("app", bondAgent); e.Kind != EntryAccount || e.ID != id {
		t.Fatalf("agent classified %+v, want account %s", e, id)
	}
	if k := s.AccountKey(id); k["pk"] != "$mi6#designation_007" || k["sk"] != "$agent_1#id_bond" {
		t.Errorf("AccountKey(%s) = %v", id, k)
	}
	e := cl.Classify("app", bondConstraint)
	if e.Kind != EntryLock || e.Value != "bond@mi6.uk" || e.Owner != "" {
		t.Fatalf("constraint classified %+v", e)
	}
	if h, v := s.Held(0, bondAgent); h != HoldsValue || v != e.Value {
		t.Errorf("Held = %v %q, want the constraint's value %q", h, v, e.Value)
	}
	// The same value under another name (sort key) is not email's.
	code := electroItem("pk", "$mi6#value_bond@mi6.uk", "sk", "$constraint_1#name_codename#entity_agent", "__edb_e__", "constraint")
	if e := cl.Classify("app", code); e.Kind != EntryOther {
		t.Errorf("codename's constraint classified %+v as email's", e)
	}
}

// A signup through the preset puts the agent with the version ElectroDB
// owns it by, and the constraint with every attribute ElectroDB writes,
// the value as given, and no owner; an id that is not a whole key is
// refused.
func TestElectroSignupWritesWhatElectroDBReads(t *testing.T) {
	s := electroSchema(t, bondConstraint)
	s.AccountAttrs = []Assignment{{ElectroVersionAttr, "1"}}
	id := "$mi6#designation_9|$agent_1#id_s1"
	p, err := Planner{s}.Signup(id, map[string]string{"designation": "9", "id": "s1", "email": "Tanner@MI6.uk"})
	if err != nil {
		t.Fatal(err)
	}
	acct, lock := p.Actions[0].Item, p.Actions[1].Item
	if acct["pk"].S != "$mi6#designation_9" || acct["sk"].S != "$agent_1#id_s1" || acct["__edb_e__"].S != "agent" || acct["__edb_v__"].S != "1" {
		t.Errorf("agent item %v", acct)
	}
	want := electroItem("pk", "$mi6#value_tanner@mi6.uk", "sk", "$constraint_1#name_email#entity_agent",
		"gsi1pk", "$mi6#name_email#entity_agent", "gsi1sk", "$constraint_1#value_tanner@mi6.uk",
		"__edb_e__", "constraint", "__edb_v__", "1", "name", "email", "value", "Tanner@MI6.uk", "entity", "agent")
	if !reflect.DeepEqual(lock, want) {
		t.Errorf("constraint item\n %v\nwant\n %v", lock, want)
	}
	if got := p.Actions[1].Purpose(s); !strings.Contains(got, "for "+id) || strings.Contains(got, "(owner") ||
		!strings.Contains(got, "email compared lower-normalized, as the key holds it: tanner@mi6.uk") {
		t.Errorf("purpose %q", got)
	}
	if _, err := (Planner{s}).Signup("$mi6#designation_9", map[string]string{"email": "x@mi6.uk"}); err == nil {
		t.Error("a signup keyed by a partition key alone was planned")
	}
}

// Inference recognises a table ElectroDB wrote and proposes the preset of
// the entity its constraint items guard; a table without ElectroDB's
// items is inferred as before.
func TestInferElectroDBTable(t *testing.T) {
	sm := Sample{Table: "app", PK: "pk", SK: "sk", Items: []Item{bondAgent, bondConstraint}}
	s, notes, err := InferSchema(sm, nil)
	if err != nil || s.Preset != "electrodb:agent" || s.Table != "app" || len(notes) != 1 || !strings.Contains(notes[0], "electrodb:agent") {
		t.Fatalf("InferSchema = %+v, %v, %v", s, notes, err)
	}
	if _, _, ok := electroTable(Sample{Table: "app", PK: "pk", SK: "sk", Items: []Item{bondAgent}}); ok {
		t.Error("a table with no constraint item was given a guarded entity")
	}
}

// The constraint entity is given in parts; the others come from the
// items or the documentation. It goes with the ElectroDB preset only.
func TestSetConstraintEntity(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	if err := (Preset{&s}).Apply("electrodb:agent"); err != nil {
		t.Fatal(err)
	}
	if err := (Preset{&s}).SetConstraintEntity("entity=unique,version=2"); err != nil {
		t.Fatal(err)
	}
	e := s.ConstraintEntity.Or(DefaultConstraintEntity("mi6"))
	if e != (ConstraintEntity{Name: "unique", Service: "mi6", Version: "2", Lower: true}) || s.ConstraintEntity.String() != "entity=unique,version=2" {
		t.Errorf("entity %+v (%s)", e, s.ConstraintEntity)
	}
	c := Preset{&s}.ElectroUnique("email", e)
	if c.LockSK != "$unique_2#name_email#entity_agent" || c.Prefix != "$mi6#value_" {
		t.Errorf("constraint %+v", c)
	}
	if !s.ConstraintEntity.Given(electroItem("__edb_e__", "unique", "__edb_v__", "2")) || s.ConstraintEntity.Given(bondConstraint) {
		t.Error("Given tells the entity's items wrong")
	}
	for _, bad := range []string{"entity", "colour=red", "entity="} {
		if err := (Preset{&s}).SetConstraintEntity(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	o := DefaultSchema(LayoutSingle)
	_ = Preset{&o}.Apply("onetable:User")
	if err := (Preset{&o}).SetConstraintEntity("entity=x"); err == nil {
		t.Error("a constraint entity was accepted with onetable")
	}
}

// With the constraint entity's service given, --unique ATTR keys the
// documented constraint at once: nothing is left to read from the table
// (check --export without the live table).
func TestElectroUniqueWithServiceGiven(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	if err := (Preset{&s}).Apply("electrodb:agent"); err != nil {
		t.Fatal(err)
	}
	if c := (Preset{&s}).Unique("email"); c.Prefix != "" {
		t.Fatalf("without a service, keyed %+v before the table said", c)
	}
	if err := (Preset{&s}).SetConstraintEntity("service=MI6"); err != nil {
		t.Fatal(err)
	}
	s.PK, s.SK, s.KeysFromTable = "pk", "sk", false
	s.Constraints = []Constraint{Preset{&s}.Unique("email")}
	c := s.Constraints[0]
	if c.Prefix != "$mi6#value_" || c.LockSK != "$constraint_1#name_email#entity_agent" || c.Normalize != NormalizeLower {
		t.Errorf("constraint %+v", c)
	}
	if u := (Preset{&s}).Unresolved(); len(u) != 0 {
		t.Errorf("unresolved %v", u)
	}
}
