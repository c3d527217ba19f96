package model

import (
	"reflect"
	"slices"
	"testing"
)

// presetSchema is the schema a preset gives once the table filled in its
// keys and the accounts' sort key, with unique attributes attrs.
func presetSchema(t *testing.T, preset, pk, sk, accountSK string, attrs ...string) *Schema {
	t.Helper()
	s := DefaultSchema(LayoutSingle)
	if err := (Preset{&s}).Apply(preset); err != nil {
		t.Fatal(err)
	}
	s.Table, s.PK, s.SK, s.AccountSK, s.KeysFromTable = "app", pk, sk, accountSK, false
	for _, a := range attrs {
		s.Constraints = append(s.Constraints, Preset{&s}.Unique(a))
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	return &s
}

// The formats the libraries write (testdata/libs dumps them): OneTable's
// User, its unique items and other models' items; TypeDORM's user and
// unique items, whose sort key is their partition key.
func TestClassifyPresets(t *testing.T) {
	onetable := presetSchema(t, "onetable:User", "pk", "sk", "user#", "email", "username")
	typedorm := presetSchema(t, "typedorm:user", "PK", "SK", SameAsPK, "email", "username")
	lock := func(ci int, v string) Entry { return Entry{Kind: EntryLock, Constraint: ci, Value: v} }
	account := func(id string) Entry { return Entry{Kind: EntryAccount, ID: id} }
	tests := []struct {
		name   string
		schema *Schema
		item   Item
		want   Entry
	}{
		{"onetable: User", onetable, attrs("pk", "user#ada", "sk", "user#", "_type", "User", "email", "a@x.io"), account("user#ada")},
		{"onetable: another model with User's keys", onetable, attrs("pk", "user#g1", "sk", "user#", "_type", "Guest", "email", "a@x.io"), Entry{}},
		{"onetable: no type", onetable, attrs("pk", "user#g1", "sk", "user#", "email", "a@x.io"), Entry{}},
		{"onetable: User with another sort key", onetable, attrs("pk", "user#ada", "sk", "profile#", "_type", "User"), Entry{}},
		{"onetable: email unique item", onetable, attrs("pk", "_unique#User#email#a@x.io", "sk", "_unique#", "_type", "_Unique"), lock(0, "a@x.io")},
		{"onetable: username unique item", onetable, attrs("pk", "_unique#User#username#ada", "sk", "_unique#", "_type", "_Unique"), lock(1, "ada")},
		{"onetable: another model's unique item", onetable, attrs("pk", "_unique#Post#slug#hello", "sk", "_unique#", "_type", "_Unique"), Entry{}},
		{"onetable: unique item of an attribute not listed", onetable, attrs("pk", "_unique#User#phone#1", "sk", "_unique#"), Entry{}},
		{"typedorm: user", typedorm, attrs("PK", "USER#ada", "SK", "USER#ada", "__en", "user", "email", "a@x.io"), account("USER#ada")},
		{"typedorm: user whose sort key is not its key", typedorm, attrs("PK", "USER#ada", "SK", "USER#bob", "__en", "user"), Entry{}},
		{"typedorm: another entity", typedorm, attrs("PK", "POST#p1", "SK", "POST#p1", "__en", "post"), Entry{}},
		{"typedorm: email unique item", typedorm, attrs("PK", "DRM_GEN_USER.EMAIL#a@x.io", "SK", "DRM_GEN_USER.EMAIL#a@x.io"), lock(0, "a@x.io")},
		{"typedorm: unique item with another sort key", typedorm, attrs("PK", "DRM_GEN_USER.EMAIL#a@x.io", "SK", "x"), Entry{}},
		{"typedorm: another entity's unique item", typedorm, attrs("PK", "DRM_GEN_POST.SLUG#hello", "SK", "DRM_GEN_POST.SLUG#hello"), Entry{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Classifier{tt.schema}).Classify("app", tt.item); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Classify(%v) = %+v, want %+v", tt.item, got, tt.want)
			}
		})
	}
}

func TestPresetKeys(t *testing.T) {
	typedorm := presetSchema(t, "typedorm:user", "PK", "SK", SameAsPK, "email")
	if got, want := typedorm.AccountKey("USER#ada"), map[string]string{"PK": "USER#ada", "SK": "USER#ada"}; !reflect.DeepEqual(got, want) {
		t.Errorf("AccountKey = %v, want %v", got, want)
	}
	_, key := typedorm.LockKey(0, "a@x.io")
	if want := map[string]string{"PK": "DRM_GEN_USER.EMAIL#a@x.io", "SK": "DRM_GEN_USER.EMAIL#a@x.io"}; !reflect.DeepEqual(key, want) {
		t.Errorf("LockKey = %v, want %v", key, want)
	}
	onetable := presetSchema(t, "onetable:User", "pk", "sk", "user#", "email")
	_, key = onetable.LockKey(0, "a@x.io")
	if want := map[string]string{"pk": "_unique#User#email#a@x.io", "sk": "_unique#"}; !reflect.DeepEqual(key, want) {
		t.Errorf("LockKey = %v, want %v", key, want)
	}
}

// A signup writes what the library writes: the type attribute on the
// account, _type=_Unique on OneTable's unique items (besides the owner).
func TestPresetSignupItems(t *testing.T) {
	s := presetSchema(t, "onetable:User", "pk", "sk", "user#", "email")
	p, err := Planner{s}.Signup("user#zed", map[string]string{"id": "zed", "email": "z@x.io"})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 3 { // and the check that the older spelling's lock is absent
		t.Fatalf("%d actions, want 3", len(p.Actions))
	}
	wantAccount := attrs("pk", "user#zed", "sk", "user#", "_type", "User", "id", "zed", "email", "z@x.io")
	if got := p.Actions[0].Item; !reflect.DeepEqual(got, wantAccount) {
		t.Errorf("account item %v, want %v", got, wantAccount)
	}
	wantLock := attrs("pk", "_unique#User#email#z@x.io", "sk", "_unique#", "_type", "_Unique", "owner", "user#zed")
	if got := p.Actions[1].Item; !reflect.DeepEqual(got, wantLock) {
		t.Errorf("lock item %v, want %v", got, wantLock)
	}
	if _, err := (Planner{s}).Signup("user#zed", map[string]string{"_type": "Guest", "email": "z@x.io"}); err == nil {
		t.Error("a signup with another type value was planned")
	}
}

func TestValidatePresetSchemas(t *testing.T) {
	base := func(mods ...func(*Schema)) *Schema {
		s := presetSchema(t, "typedorm:user", "PK", "SK", SameAsPK, "email")
		for _, m := range mods {
			m(s)
		}
		return s
	}
	tests := []struct {
		name      string
		schema    *Schema
		wantField SchemaField
	}{
		{"typedorm preset", base(), ""},
		{"type attribute is unique", base(func(s *Schema) { s.AccountType.Attr = "email" }), FieldAccountType},
		{"type attribute is the key", base(func(s *Schema) { s.AccountType.Attr = "PK" }), FieldAccountType},
		{"type without value", base(func(s *Schema) { s.AccountType.Value = "" }), FieldAccountType},
		{"lock attribute is the owner", base(func(s *Schema) { s.LockAttrs = []Assignment{{"owner", "x"}} }), FieldLockAttrs},
		{"=PK without a sort key", base(func(s *Schema) { s.SK = "" }), FieldSK},
		{"no type, empty account prefix", base(func(s *Schema) { s.AccountType = Assignment{} }), FieldAccountPrefix},
		{"empty account prefix with a type", base(func(s *Schema) { s.AccountPrefix = "" }), ""},
		// Without a type, accounts keyed DRM_GEN_… would be locks.
		{"no type, account prefix overlaps the locks'", base(func(s *Schema) { s.AccountType, s.AccountPrefix = Assignment{}, "DRM_GEN_" }), FieldAccountPrefix},
		{"scoped, ambiguous with another", singleSchema(func(s *Schema) {
			s.Constraints = []Constraint{{Attr: "email", Prefix: "U#", Scope: "org", Tail: "#E#"}, {Attr: "username", Prefix: "U#", Scope: "org", Tail: "#E#"}}
		}), FieldConstraints},
		{"scoped, told apart by the tail", singleSchema(func(s *Schema) {
			s.Constraints = []Constraint{{Attr: "email", Prefix: "U#", Scope: "org", Tail: "#E#"}, {Attr: "username", Prefix: "U#", Scope: "org", Tail: "#H#"}}
		}), ""},
		{"scope is the attribute", singleSchema(func(s *Schema) {
			s.Constraints = []Constraint{{Attr: "email", Prefix: "U#", Scope: "email", Tail: "#E#"}}
		}), FieldConstraints},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkFieldError(t, tt.schema.Validate(), tt.wantField) })
	}
}

func TestParsePreset(t *testing.T) {
	for _, bad := range []string{"onetable", "onetable:", "dynamoose:User", ":User", ""} {
		if _, _, err := ParsePreset(bad); err == nil {
			t.Errorf("ParsePreset(%q) accepted", bad)
		}
	}
	lib, name, err := ParsePreset("typedorm:user")
	if err != nil || lib != LibTypeDORM || name != "user" {
		t.Errorf("ParsePreset = %q %q %v", lib, name, err)
	}
}

// The unique attributes come from the model's unique items; TypeDORM
// upper-cases them, and the accounts' attribute names give their case.
func TestUniqueAttrs(t *testing.T) {
	onetable := presetSchema(t, "onetable:User", "pk", "sk", "user#", "email")
	keys := []string{"_unique#User#username#ada", "_unique#Post#slug#x", "_unique#User#email#a@x.io", "_unique#User#username#bob", "user#ada"}
	if got, want := (Preset{onetable}).UniqueAttrs(keys, nil), []string{"username", "email"}; !slices.Equal(got, want) {
		t.Errorf("OneTable: %v, want %v", got, want)
	}
	typedorm := presetSchema(t, "typedorm:user", "PK", "SK", SameAsPK, "email")
	keys = []string{"DRM_GEN_USER.EMAILADDRESS#a@x.io", "DRM_GEN_POST.SLUG#x", "DRM_GEN_USER.NICK#ada"}
	if got, want := (Preset{typedorm}).UniqueAttrs(keys, []string{"emailAddress", "id"}), []string{"emailAddress"}; !slices.Equal(got, want) {
		t.Errorf("TypeDORM: %v, want %v (NICK is no attribute of the accounts)", got, want)
	}
}

// A scoped constraint: the value is unique per scope. The lock key puts
// the scope between prefix and tail; holders group by scope and value.
func TestScopedConstraint(t *testing.T) {
	c, err := ParseUnique("email=_unique#${org}#Member#email#")
	if err != nil {
		t.Fatal(err)
	}
	if c.Prefix != "_unique#" || c.Scope != "org" || c.Tail != "#Member#email#" || c.Template() != "_unique#${org}#Member#email#" {
		t.Fatalf("ParseUnique = %+v", c)
	}
	for _, bad := range []string{"email=U#${}#E#", "email=U#${org", "email=U#${org}", "email=U#${a}#${b}#"} {
		if _, err := ParseUnique(bad); err == nil {
			t.Errorf("ParseUnique(%q) accepted", bad)
		}
	}
	s := singleSchema(func(s *Schema) {
		s.AccountPrefix, s.AccountSK, s.LockSK = "member#", "member#", "_unique#"
		s.Constraints = []Constraint{c}
	})
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	member := func(id, org, email string) Item {
		it := attrs("PK", "member#"+id, "SK", "member#", "email", email)
		if org != "" {
			it["org"] = S(org)
		}
		return it
	}
	if h, v := s.Held(0, member("m1", "acme", "a@x.io")); h != HoldsValue || v != "acme#Member#email#a@x.io" {
		t.Errorf("Held = %v %q", h, v)
	}
	if h, _ := s.Held(0, member("m1", "", "a@x.io")); h != HoldsNothing {
		t.Errorf("Held without a scope = %v, want nothing (no lock expected)", h)
	}
	if got := (Classifier{s}).Classify("accounts", attrs("PK", "_unique#acme#Member#email#a@x.io", "SK", "_unique#")); got.Kind != EntryLock || got.Value != "acme#Member#email#a@x.io" {
		t.Errorf("Classify(scoped lock) = %+v", got)
	}
	if got := (Classifier{s}).Classify("accounts", attrs("PK", "_unique#User#email#a@x.io", "SK", "_unique#")); got.Kind != EntryOther {
		t.Errorf("Classify(another model's unique item) = %+v, want other", got)
	}
	census := NewCensus(s, 0)
	for _, it := range []Item{
		member("m1", "acme", "a@x.io"), member("m2", "globex", "a@x.io"), member("m3", "acme", "a@x.io"),
		attrs("PK", "_unique#acme#Member#email#a@x.io", "SK", "_unique#"),
		attrs("PK", "_unique#globex#Member#email#a@x.io", "SK", "_unique#"),
	} {
		census.Add("accounts", it)
	}
	got := census.Problems()
	if len(got) != 1 || got[0].Kind != DuplicateValue || !slices.Equal(got[0].Accounts, []string{"member#m1", "member#m3"}) {
		t.Errorf("problems %+v, want one duplicate_value within acme", got)
	}
}

// TestUnresolvedNamesFields: what a preset's schema still lacks before
// the table is read, as the fields that give it; nothing once given, and
// nothing without a preset.
func TestUnresolvedNamesFields(t *testing.T) {
	s := DefaultSchema(LayoutSingle)
	if got := (Preset{&s}).Unresolved(); got != nil {
		t.Errorf("no preset: %v", got)
	}
	if err := (Preset{&s}).Apply("onetable:User"); err != nil {
		t.Fatal(err)
	}
	if got, want := (Preset{&s}).Unresolved(), []SchemaField{FieldPK, FieldSK, FieldAccountSK, FieldConstraints}; !slices.Equal(got, want) {
		t.Errorf("a preset alone lacks %v, want %v", got, want)
	}
	s.KeysFromTable, s.AccountSK = false, "user#"
	s.Constraints = append(s.Constraints, Preset{&s}.Unique("email"))
	if got := (Preset{&s}).Unresolved(); got != nil {
		t.Errorf("given all: lacks %v", got)
	}
}
