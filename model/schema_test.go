package model

import (
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// singleSchema is the default single-table schema, changed by mods.
func singleSchema(mods ...func(*Schema)) *Schema {
	s := DefaultSchema(LayoutSingle)
	for _, m := range mods {
		m(&s)
	}
	return &s
}

// tablesSchema is the default lock-table schema, changed by mods.
func tablesSchema(mods ...func(*Schema)) *Schema {
	s := DefaultSchema(LayoutTables)
	for _, m := range mods {
		m(&s)
	}
	return &s
}

// normalizeFirst sets the normalization of the first constraint (email in
// the single layout).
func normalizeFirst(n Normalization) func(*Schema) {
	return func(s *Schema) { s.Constraints[0].Normalize = n }
}

// checkFieldError checks that err is nil when field is "", and otherwise a
// *SchemaError naming field.
func checkFieldError(t *testing.T, err error, field SchemaField) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var fe *SchemaError
	if !errors.As(err, &fe) {
		t.Fatalf("error = %v (%T), want a *SchemaError for %s", err, err, field)
	}
	if fe.Field != field {
		t.Errorf("error names %s, want %s (%v)", fe.Field, field, err)
	}
	if !strings.HasPrefix(err.Error(), string(field)+": ") {
		t.Errorf("Error() = %q, want it to start with %s: ", err.Error(), field)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name      string
		schema    *Schema
		wantField SchemaField // "" when the schema is valid
	}{
		{"single defaults", singleSchema(), ""},
		{"tables defaults", tablesSchema(), ""},
		{"single without sort key", singleSchema(func(s *Schema) { s.SK, s.AccountSK, s.LockSK = "", "", "" }), ""},
		{"empty table", singleSchema(func(s *Schema) { s.Table = "" }), FieldTable},
		{"empty pk", singleSchema(func(s *Schema) { s.PK = "" }), FieldPK},
		{"sk equal to pk", singleSchema(func(s *Schema) { s.SK = "PK" }), FieldSK},
		{"empty account sk with a sort key", singleSchema(func(s *Schema) { s.AccountSK = "" }), FieldAccountSK},
		{"empty lock sk with locks in the account table", singleSchema(func(s *Schema) { s.LockSK = "" }), FieldLockSK},
		{"empty lock sk with locks in lock tables only", tablesSchema(func(s *Schema) { s.SK, s.AccountSK = "kind", "RECORD" }), ""},
		{"no constraints", singleSchema(func(s *Schema) { s.Constraints = nil }), FieldConstraints},
		{"empty owner attribute", singleSchema(func(s *Schema) { s.OwnerAttr = "" }), FieldOwnerAttr},
		{"empty lock prefix in layout single", singleSchema(func(s *Schema) { s.Constraints[1].Prefix = "" }), FieldConstraints},
		{"empty lock prefix of the only constraint", singleSchema(func(s *Schema) {
			s.Constraints = []Constraint{{Attr: "email", Normalize: NormalizeNone}}
		}), FieldConstraints},
		{"a prefix is a prefix of a later one", singleSchema(func(s *Schema) { s.Constraints[1].Prefix = "UNIQ#EMAIL#H#" }), FieldConstraints},
		{"a prefix is a prefix of an earlier one", singleSchema(func(s *Schema) { s.Constraints[1].Prefix = "UNIQ#" }), FieldConstraints},
		{"equal prefixes", singleSchema(func(s *Schema) { s.Constraints[1].Prefix = "UNIQ#EMAIL#" }), FieldConstraints},
		{"repeated attribute", singleSchema(func(s *Schema) { s.Constraints[1].Attr = "email" }), FieldConstraints},
		{"constraint on the pk", singleSchema(func(s *Schema) { s.Constraints[1].Attr = "PK" }), FieldConstraints},
		{"constraint on the owner attribute", singleSchema(func(s *Schema) { s.Constraints[0].Attr = "owner" }), FieldConstraints},
		{"lock table equal to the account table", tablesSchema(func(s *Schema) { s.Constraints[1].LockTable = "devices" }), FieldConstraints},
		{"lock table listed twice", tablesSchema(func(s *Schema) { s.Constraints[1].LockTable = s.Constraints[0].LockTable }), FieldConstraints},
		{"empty account prefix with locks in the account table", singleSchema(func(s *Schema) { s.AccountPrefix = "" }), FieldAccountPrefix},
		{"empty account prefix with locks in lock tables only", singleSchema(func(s *Schema) {
			s.AccountPrefix = ""
			s.Constraints = []Constraint{
				{Attr: "email", LockTable: "emails", KeyAttr: "email"},
				{Attr: "username", LockTable: "usernames", KeyAttr: "username"},
			}
		}), ""},
		{"empty account prefix with one lock in the account table", tablesSchema(func(s *Schema) {
			s.Constraints[1] = Constraint{Attr: "registration_code", Prefix: "CODE#"}
		}), FieldAccountPrefix},
		{"account prefix overlapping a lock prefix, told apart by sort key", singleSchema(func(s *Schema) { s.AccountPrefix = "UNIQ#" }), ""},
		{"account prefix overlapping a lock prefix, same sort key", singleSchema(func(s *Schema) { s.AccountPrefix, s.AccountSK = "UNIQ#", "LOCK" }), FieldAccountPrefix},
		{"account prefix extending a lock prefix, no sort key", singleSchema(func(s *Schema) {
			s.SK, s.AccountSK, s.LockSK = "", "", ""
			s.AccountPrefix = "UNIQ#HANDLE#ACCT#"
		}), FieldAccountPrefix},
		{"disjoint prefixes, no sort key", singleSchema(func(s *Schema) { s.SK, s.AccountSK, s.LockSK = "", "", "" }), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkFieldError(t, tt.schema.Validate(), tt.wantField)
		})
	}
}

func TestParseUnique(t *testing.T) {
	tests := []struct {
		in      string
		want    Constraint
		wantErr bool
	}{
		{in: "email=UNIQ#EMAIL#", want: Constraint{Attr: "email", Prefix: "UNIQ#EMAIL#", Normalize: NormalizeNone}},
		{in: "code=@unique_codes/Code", want: Constraint{Attr: "code", LockTable: "unique_codes", KeyAttr: "Code", Normalize: NormalizeNone}},
		{in: "email=a=b", want: Constraint{Attr: "email", Prefix: "a=b", Normalize: NormalizeNone}},
		// An empty prefix parses; Validate rejects it in the account table.
		{in: "email=", want: Constraint{Attr: "email", Normalize: NormalizeNone}},
		{in: "email", wantErr: true},
		{in: "", wantErr: true},
		{in: "=UNIQ#EMAIL#", wantErr: true},
		{in: "email=@table", wantErr: true},
		{in: "email=@/x", wantErr: true},
		{in: "email=@table/", wantErr: true},
		{in: "email=@", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseUnique(tt.in)
			if tt.wantErr {
				checkFieldError(t, err, FieldConstraints)
				return
			}
			checkFieldError(t, err, "")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseUnique(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseNormalization(t *testing.T) {
	tests := []struct {
		in      string
		want    Normalization
		wantErr bool
	}{
		{in: "none", want: NormalizeNone},
		{in: "lower", want: NormalizeLower},
		{in: "casefold", want: NormalizeCasefold},
		{in: "", wantErr: true},
		{in: "upper", wantErr: true},
		{in: "Lower", wantErr: true},
		{in: "nfc", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseNormalization(tt.in)
			if tt.wantErr {
				checkFieldError(t, err, FieldNormalize)
				return
			}
			checkFieldError(t, err, "")
			if got != tt.want {
				t.Errorf("ParseNormalization(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseLayout(t *testing.T) {
	tests := []struct {
		in      string
		want    Layout
		wantErr bool
	}{
		{in: "single", want: LayoutSingle},
		{in: "tables", want: LayoutTables},
		{in: "", wantErr: true},
		{in: "Single", wantErr: true},
		{in: "table", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseLayout(tt.in)
			if tt.wantErr {
				checkFieldError(t, err, FieldLayout)
				return
			}
			checkFieldError(t, err, "")
			if got != tt.want {
				t.Errorf("ParseLayout(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseAssignment(t *testing.T) {
	tests := []struct {
		flag                SchemaField
		in                  string
		wantAttr, wantValue string
		wantErr             bool
	}{
		{flag: FieldNormalize, in: "email=lower", wantAttr: "email", wantValue: "lower"},
		{flag: FieldIndex, in: "email=by-email", wantAttr: "email", wantValue: "by-email"},
		{flag: FieldIndex, in: "email=a=b", wantAttr: "email", wantValue: "a=b"},
		{flag: FieldNormalize, in: "email", wantErr: true},
		{flag: FieldNormalize, in: "=lower", wantErr: true},
		{flag: FieldIndex, in: "email=", wantErr: true},
		{flag: FieldIndex, in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(string(tt.flag)+" "+tt.in, func(t *testing.T) {
			attr, value, err := ParseAssignment(tt.flag, tt.in)
			if tt.wantErr {
				checkFieldError(t, err, tt.flag)
				return
			}
			checkFieldError(t, err, "")
			if attr != tt.wantAttr || value != tt.wantValue {
				t.Errorf("ParseAssignment(%q, %q) = %q, %q, want %q, %q", tt.flag, tt.in, attr, value, tt.wantAttr, tt.wantValue)
			}
		})
	}
}

func TestNormalizationApply(t *testing.T) {
	tests := []struct {
		n        Normalization
		in, want string
	}{
		{NormalizeNone, "Ada@X.io", "Ada@X.io"},
		{NormalizeNone, "Straße", "Straße"},
		{NormalizeNone, "E\u0301", "E\u0301"}, // no NFC either
		{NormalizeLower, "Ada@X.io", "ada@x.io"},
		{NormalizeLower, "Straße", "straße"},     // ToLower keeps ß
		{NormalizeLower, "E\u0301", "e\u0301"},   // ToLower does not compose
		{NormalizeLower, "\ufb01le", "\ufb01le"}, // the ligature ﬁ has no lower case
		{NormalizeLower, "ÀÉÎ", "àéî"},
		{NormalizeCasefold, "Ada@X.io", "ada@x.io"},
		{NormalizeCasefold, "Straße", "strasse"},
		{NormalizeCasefold, "STRASSE", "strasse"},
		{NormalizeCasefold, "e\u0301", "\u00e9"}, // decomposed é composes
		{NormalizeCasefold, "E\u0301", "\u00e9"},
		{NormalizeCasefold, "\ufb01le", "file"},
		{NormalizeCasefold, "", ""},
		// Unicode folds Cherokee to its upper case, which folds to itself
		// (cases.Fold lowercases it, so Ꭰ and ꭰ took different locks).
		{NormalizeCasefold, "\u13a0\uab70\u13f0\u13f8", "\u13a0\u13a0\u13f0\u13f0"},
	}
	for _, tt := range tests {
		t.Run(string(tt.n)+" "+tt.in, func(t *testing.T) {
			if got := tt.n.Apply(tt.in); got != tt.want {
				t.Errorf("%s.Apply(%q) = %q, want %q", tt.n, tt.in, got, tt.want)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	lock := func(ci int, v, owner string) Entry {
		return Entry{Kind: EntryLock, Constraint: ci, Value: v, Owner: owner}
	}
	account := func(id string) Entry { return Entry{Kind: EntryAccount, ID: id} }
	noSK := func(s *Schema) { s.SK, s.AccountSK, s.LockSK = "", "", "" }
	seven := N("7")
	tests := []struct {
		name   string
		schema *Schema
		table  string
		item   Item
		want   Entry
	}{
		{"account", singleSchema(), "accounts", attrs("PK", "ACCT#a1", "SK", "PROFILE", "email", "a@x.io"), account("ACCT#a1")},
		{"email lock with owner", singleSchema(), "accounts", attrs("PK", "UNIQ#EMAIL#a@x.io", "SK", "LOCK", "owner", "ACCT#a1"), lock(0, "a@x.io", "ACCT#a1")},
		{"username lock without owner", singleSchema(), "accounts", attrs("PK", "UNIQ#HANDLE#ada", "SK", "LOCK"), lock(1, "ada", "")},
		{"lock with non-string owner", singleSchema(), "accounts", attrs("PK", "UNIQ#HANDLE#ada", "SK", "LOCK", "owner", seven),
			Entry{Kind: EntryLock, Constraint: 1, Value: "ada", OwnerInvalid: &seven}},
		{"lock value is raw, never normalized", singleSchema(normalizeFirst(NormalizeLower)), "accounts", attrs("PK", "UNIQ#EMAIL#Ada@X.io", "SK", "LOCK"), lock(0, "Ada@X.io", "")},
		{"account with the lock sort key", singleSchema(), "accounts", attrs("PK", "ACCT#a1", "SK", "LOCK"), Entry{}},
		{"lock with the account sort key", singleSchema(), "accounts", attrs("PK", "UNIQ#EMAIL#a@x.io", "SK", "PROFILE"), Entry{}},
		{"account with another sort key", singleSchema(), "accounts", attrs("PK", "ACCT#a1", "SK", "ORDER#1", "email", "a@x.io"), Entry{}},
		{"unknown prefix", singleSchema(), "accounts", attrs("PK", "USER#a1", "SK", "PROFILE"), Entry{}},
		{"unknown lock prefix", singleSchema(), "accounts", attrs("PK", "UNIQ#PHONE#123", "SK", "LOCK"), Entry{}},
		{"non-string pk", singleSchema(), "accounts", attrs("PK", N("1"), "SK", "PROFILE"), Entry{}},
		{"no pk", singleSchema(), "accounts", attrs("SK", "PROFILE", "email", "a@x.io"), Entry{}},
		{"non-string sk", singleSchema(), "accounts", attrs("PK", "ACCT#a1", "SK", N("1")), Entry{}},
		{"no sk", singleSchema(), "accounts", attrs("PK", "ACCT#a1"), Entry{}},
		{"unknown table", singleSchema(), "orders", attrs("PK", "ACCT#a1", "SK", "PROFILE"), Entry{}},
		{"no sort key: account", singleSchema(noSK), "accounts", attrs("PK", "ACCT#a1"), account("ACCT#a1")},
		{"no sort key: lock", singleSchema(noSK), "accounts", attrs("PK", "UNIQ#HANDLE#ada", "owner", "ACCT#a1"), lock(1, "ada", "ACCT#a1")},
		{"tables: record", tablesSchema(), "devices", attrs("id", "d1", "mac_address", "aa:bb"), account("d1")},
		{"tables: record with non-string key", tablesSchema(), "devices", attrs("id", N("1")), Entry{}},
		{"tables: mac lock with owner", tablesSchema(), "unique_mac_addresses", attrs("MacAddress", "aa:bb", "owner", "d1"), lock(0, "aa:bb", "d1")},
		{"tables: code lock without owner", tablesSchema(), "unique_registration_codes", attrs("RegistrationCode", "R1"), lock(1, "R1", "")},
		{"tables: lock with non-string owner", tablesSchema(), "unique_registration_codes", attrs("RegistrationCode", "R1", "owner", seven),
			Entry{Kind: EntryLock, Constraint: 1, Value: "R1", OwnerInvalid: &seven}},
		{"tables: lock with non-string key", tablesSchema(), "unique_mac_addresses", attrs("MacAddress", N("1")), Entry{}},
		{"tables: lock table item without key attribute", tablesSchema(), "unique_mac_addresses", attrs("RegistrationCode", "R1"), Entry{}},
		{"tables: unknown table", tablesSchema(), "unique_serials", attrs("Serial", "S1"), Entry{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Classifier{tt.schema}.Classify(tt.table, tt.item)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Classify(%q, %v) = %+v, want %+v", tt.table, tt.item, got, tt.want)
			}
		})
	}
}

func TestHeld(t *testing.T) {
	// The email prefix "UNIQ#EMAIL#" is 11 bytes: 2037 more reach the
	// 2048-byte partition key limit exactly.
	const room = MaxPartitionKeyBytes - len("UNIQ#EMAIL#")
	tests := []struct {
		name   string
		schema *Schema
		attr   string // the constraint's attribute; absent when value is nil
		value  *Value
		want   Holding
		wantV  string
	}{
		{"absent", singleSchema(), "email", nil, HoldsNothing, ""},
		{"null", singleSchema(), "email", ptr(Null()), HoldsNothing, ""},
		{"empty string", singleSchema(), "email", ptr(S("")), HoldsNothing, ""},
		{"string", singleSchema(), "email", ptr(S("Ada@X.io")), HoldsValue, "Ada@X.io"},
		{"second constraint", singleSchema(), "username", ptr(S("ada")), HoldsValue, "ada"},
		{"number", singleSchema(), "email", ptr(N("42")), HoldsInvalid, ""},
		{"binary", singleSchema(), "email", &Value{Kind: KindB, B: []byte("a@x.io")}, HoldsInvalid, ""},
		{"bool", singleSchema(), "email", &Value{Kind: KindBOOL, Bool: true}, HoldsInvalid, ""},
		{"false", singleSchema(), "email", &Value{Kind: KindBOOL}, HoldsInvalid, ""},
		{"string set", singleSchema(), "email", &Value{Kind: KindSS, Strings: []string{"a@x.io"}}, HoldsInvalid, ""},
		{"number set", singleSchema(), "email", &Value{Kind: KindNS, Strings: []string{"1"}}, HoldsInvalid, ""},
		{"binary set", singleSchema(), "email", &Value{Kind: KindBS, Binaries: [][]byte{{1}}}, HoldsInvalid, ""},
		{"list", singleSchema(), "email", &Value{Kind: KindL, List: []Value{S("a@x.io")}}, HoldsInvalid, ""},
		{"map", singleSchema(), "email", &Value{Kind: KindM, Map: map[string]Value{"S": S("a@x.io")}}, HoldsInvalid, ""},
		{"lower applied", singleSchema(normalizeFirst(NormalizeLower)), "email", ptr(S("Ada@X.io")), HoldsValue, "ada@x.io"},
		{"casefold applied", singleSchema(normalizeFirst(NormalizeCasefold)), "email", ptr(S("Straße")), HoldsValue, "strasse"},
		{"lock key of exactly 2048 bytes", singleSchema(), "email", ptr(S(strings.Repeat("a", room))), HoldsValue, strings.Repeat("a", room)},
		{"lock key of 2049 bytes", singleSchema(), "email", ptr(S(strings.Repeat("a", room+1))), HoldsInvalid, ""},
		{"limit counts bytes, not runes: 2048", singleSchema(), "email", ptr(S(strings.Repeat("é", room/2) + "a")), HoldsValue, strings.Repeat("é", room/2) + "a"},
		{"limit counts bytes, not runes: 2049", singleSchema(), "email", ptr(S(strings.Repeat("é", room/2+1))), HoldsInvalid, ""},
		// "Ⱥ" is 2 bytes and lower-cases to "ⱥ", 3 bytes: the normalized
		// key is what must fit.
		{"fits raw, too long once lowered", singleSchema(normalizeFirst(NormalizeLower)), "email", ptr(S(strings.Repeat("Ⱥ", room/2))), HoldsInvalid, ""},
		{"same value without normalization fits", singleSchema(), "email", ptr(S(strings.Repeat("Ⱥ", room/2))), HoldsValue, strings.Repeat("Ⱥ", room/2)},
		// "ﬁ" is 3 bytes and folds to "fi", 2 bytes.
		{"too long raw, fits once folded", singleSchema(normalizeFirst(NormalizeCasefold)), "email", ptr(S(strings.Repeat("\ufb01", room/3+1))), HoldsValue, strings.Repeat("fi", room/3+1)},
		{"tables: no prefix, 2048 bytes", tablesSchema(), "mac_address", ptr(S(strings.Repeat("a", 2048))), HoldsValue, strings.Repeat("a", 2048)},
		{"tables: no prefix, 2049 bytes", tablesSchema(), "mac_address", ptr(S(strings.Repeat("a", 2049))), HoldsInvalid, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ci := tt.schema.Constraint(tt.attr)
			if ci < 0 {
				t.Fatalf("no constraint on %q", tt.attr)
			}
			it := attrs("PK", "ACCT#a1", "SK", "PROFILE")
			if tt.value != nil {
				it[tt.attr] = *tt.value
			}
			got, v := tt.schema.Held(ci, it)
			if got != tt.want || v != tt.wantV {
				t.Errorf("Held = %d, %.40q (len %d), want %d, %.40q (len %d)", got, v, len(v), tt.want, tt.wantV, len(tt.wantV))
			}
		})
	}
}

func TestSchemaKeys(t *testing.T) {
	tests := []struct {
		name        string
		schema      *Schema
		ci          int
		value, id   string
		wantTable   string
		wantLock    map[string]string
		wantAccount map[string]string
		wantTables  []string
	}{
		{
			"single", singleSchema(), 1, "Ada", "ACCT#a1", "accounts",
			map[string]string{"PK": "UNIQ#HANDLE#Ada", "SK": "LOCK"},
			map[string]string{"PK": "ACCT#a1", "SK": "PROFILE"},
			[]string{"accounts"},
		},
		{
			"single without sort key", singleSchema(func(s *Schema) { s.SK, s.AccountSK, s.LockSK = "", "", "" }), 0, "a@x.io", "ACCT#a1", "accounts",
			map[string]string{"PK": "UNIQ#EMAIL#a@x.io"},
			map[string]string{"PK": "ACCT#a1"},
			[]string{"accounts"},
		},
		{
			"tables", tablesSchema(), 1, "R1", "d1", "unique_registration_codes",
			map[string]string{"RegistrationCode": "R1"},
			map[string]string{"id": "d1"},
			[]string{"devices", "unique_mac_addresses", "unique_registration_codes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, key := tt.schema.LockKey(tt.ci, tt.value)
			if table != tt.wantTable || !reflect.DeepEqual(key, tt.wantLock) {
				t.Errorf("LockKey = %q %v, want %q %v", table, key, tt.wantTable, tt.wantLock)
			}
			if got := tt.schema.AccountKey(tt.id); !reflect.DeepEqual(got, tt.wantAccount) {
				t.Errorf("AccountKey = %v, want %v", got, tt.wantAccount)
			}
			if got := tt.schema.Tables(); !reflect.DeepEqual(got, tt.wantTables) {
				t.Errorf("Tables = %q, want %q", got, tt.wantTables)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestKeyAttrs: the account table is keyed by PK then SK (PK alone
// without a sort key), a lock table of its own by its KeyAttr, any other
// table by nothing; KeyOf, ReadNames and the lock keys agree with it.
func TestKeyAttrs(t *testing.T) {
	single, tables := DefaultSchema(LayoutSingle), DefaultSchema(LayoutTables)
	hashOnly := DefaultSchema(LayoutSingle)
	hashOnly.SK = ""
	for _, tt := range []struct {
		s     *Schema
		table string
		want  []string
	}{
		{&single, "accounts", []string{"PK", "SK"}},
		{&hashOnly, "accounts", []string{"PK"}},
		{&tables, "devices", []string{"id"}},
		{&tables, "unique_mac_addresses", []string{"MacAddress"}},
		{&tables, "unique_registration_codes", []string{"RegistrationCode"}},
		{&single, "unique_mac_addresses", nil},
		{&tables, "accounts", nil},
	} {
		got := tt.s.KeyAttrs(tt.table)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: KeyAttrs(%s) = %q, want %q", tt.s.Layout, tt.table, got, tt.want)
		}
		if names := tt.s.ReadNames(tt.table); tt.want != nil && !slices.Equal(names[:len(tt.want)], tt.want) {
			t.Errorf("%s: ReadNames(%s) = %q, not led by the key", tt.s.Layout, tt.table, names)
		}
	}
	for _, s := range []*Schema{&single, &hashOnly, &tables} {
		for ci := range s.Constraints {
			table, key := s.LockKey(ci, "v")
			if got := s.KeyOf(table, KeyItem(key)); !maps.Equal(got, key) || len(key) != len(s.KeyAttrs(table)) {
				t.Errorf("%s: lock key %v of %s read back as %v, KeyAttrs %q", s.Layout, key, table, got, s.KeyAttrs(table))
			}
		}
		key := s.AccountKey("ACCT#a")
		if got := s.KeyOf(s.Table, KeyItem(key)); !maps.Equal(got, key) || len(key) != len(s.KeyAttrs(s.Table)) {
			t.Errorf("%s: account key %v read back as %v, KeyAttrs %q", s.Layout, key, got, s.KeyAttrs(s.Table))
		}
	}
}
