package model

import (
	"strings"
	"testing"
)

func TestValidateAttrName(t *testing.T) {
	tests := []struct {
		name       string
		attr, key  bool // valid as an attribute name, as a key attribute name
		wantInText string
	}{
		{"email", true, true, ""},
		{"e-mail.addr#1 ünïcödé 名前", true, true, ""},
		{strings.Repeat("a", 255), true, true, ""},
		{strings.Repeat("a", 256), true, false, "at most 255"},
		{strings.Repeat("é", 128), true, false, "256 bytes"},
		{strings.Repeat("a", 65535), true, false, ""},
		{strings.Repeat("a", 65536), false, false, "at most 65535"},
		{"", false, false, "empty"},
		{"e\x1bmail", false, false, `"e\x1bmail" holds U+001B`},
		{"email\a", false, false, "U+0007"},
		{"user\x7fname", false, false, "U+007F"},
		{"a\tb", false, false, "U+0009"},
		{"a\nb", false, false, "U+000A"},
		{"a\u0085b", false, false, "U+0085"}, // C1
		{"em\u202eail", false, false, "U+202E"},
		{"zero\u200bwidth", false, false, "U+200B"},
		{"bom\ufeff", false, false, "U+FEFF"},
		{"em\xffail", false, false, "not valid UTF-8"},
	}
	for _, tt := range tests {
		attrErr, keyErr := ValidateAttrName(tt.name), ValidateKeyAttrName(tt.name)
		if (attrErr == nil) != tt.attr || (keyErr == nil) != tt.key {
			t.Errorf("name %.40q: errors %v and %v, want valid %v as an attribute, %v as a key", tt.name, attrErr, keyErr, tt.attr, tt.key)
			continue
		}
		err := attrErr // the first rule the name breaks
		if err == nil {
			err = keyErr
		}
		if err != nil && (!strings.Contains(err.Error(), tt.wantInText) || len(err.Error()) > 300) {
			t.Errorf("name %.40q: error %.300q, want a short one saying %q", tt.name, err, tt.wantInText)
		}
	}
}

func TestValidateTableName(t *testing.T) {
	for name, ok := range map[string]bool{
		"accounts":               true,
		"abc":                    true,
		"unique_mac-addresses.2": true,
		strings.Repeat("t", 255): true,
		strings.Repeat("t", 256): false,
		"ab":                     false,
		"":                       false,
		"bad table":              false,
		"bad\x1btable":           false,
		"tablé":                  false,
		"a/b/c":                  false,
		"by#email":               false,
	} {
		if err := ValidateTableName(name); (err == nil) != ok {
			t.Errorf("ValidateTableName(%.40q) = %v, want valid %v", name, err, ok)
		}
	}
}

// TestValidateNamesTheFlag: every name a schema flag sets is checked, and
// the error names that flag.
func TestValidateNamesTheFlag(t *testing.T) {
	const esc = "\x1b]0;pwned\a"
	long := strings.Repeat("k", 256)
	tests := []struct {
		name      string
		schema    *Schema
		wantField SchemaField
	}{
		{"table too short", singleSchema(func(s *Schema) { s.Table = "ab" }), FieldTable},
		{"table with a space", singleSchema(func(s *Schema) { s.Table = "my table" }), FieldTable},
		{"pk with an escape", singleSchema(func(s *Schema) { s.PK = "PK" + esc }), FieldPK},
		{"pk too long for a key", singleSchema(func(s *Schema) { s.PK = long }), FieldPK},
		{"sk with a bidi override", singleSchema(func(s *Schema) { s.SK = "S\u202eK" }), FieldSK},
		{"sk too long for a key", singleSchema(func(s *Schema) { s.SK = long }), FieldSK},
		{"owner with an escape", singleSchema(func(s *Schema) { s.OwnerAttr = "owner" + esc }), FieldOwnerAttr},
		{"long owner is fine", singleSchema(func(s *Schema) { s.OwnerAttr = long }), ""},
		{"attribute with an escape", singleSchema(func(s *Schema) { s.Constraints[0].Attr = "email" + esc }), FieldConstraints},
		{"long attribute is fine", singleSchema(func(s *Schema) { s.Constraints[0].Attr = long }), ""},
		{"long attribute keyed by an index", singleSchema(func(s *Schema) {
			s.Constraints[0].Attr, s.Constraints[0].Index = long, "by-email"
		}), FieldConstraints},
		{"index name too short", singleSchema(func(s *Schema) { s.Constraints[0].Index = "by" }), FieldIndex},
		{"index name with an escape", singleSchema(func(s *Schema) { s.Constraints[0].Index = "by" + esc }), FieldIndex},
		{"lock table with an escape", tablesSchema(func(s *Schema) { s.Constraints[0].LockTable = "macs" + esc }), FieldConstraints},
		{"lock table too short", tablesSchema(func(s *Schema) { s.Constraints[0].LockTable = "m" }), FieldConstraints},
		{"lock key attribute with an escape", tablesSchema(func(s *Schema) { s.Constraints[0].KeyAttr = "Mac" + esc }), FieldConstraints},
		{"lock key attribute too long", tablesSchema(func(s *Schema) { s.Constraints[0].KeyAttr = long }), FieldConstraints},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.schema.Validate()
			checkFieldError(t, err, tt.wantField)
			if err != nil && strings.Contains(err.Error(), "\x1b") {
				t.Errorf("error holds a raw escape: %q", err)
			}
		})
	}
}

func TestParseAssignmentChecksTheAttribute(t *testing.T) {
	for _, field := range []SchemaField{FieldNormalize, FieldIndex} {
		_, _, err := ParseAssignment(field, "e\x1bmail=lower")
		checkFieldError(t, err, field)
	}
	attr, v, err := ParseAssignment(FieldIndex, "email=by-email")
	if err != nil || attr != "email" || v != "by-email" {
		t.Errorf("ParseAssignment(email=by-email) = %q, %q, %v", attr, v, err)
	}
}
