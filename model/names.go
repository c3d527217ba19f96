package model

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// Limits DynamoDB puts on names.
const (
	MaxAttrNameBytes    = 65535 // an attribute name, in UTF-8 bytes
	MaxKeyAttrNameBytes = 255   // a key attribute name of a table or index
	MinTableNameLen     = 3     // a table or index name, in characters
	MaxTableNameLen     = 255
)

// ValidateAttrName reports why name cannot be an attribute name: empty,
// longer than DynamoDB allows, not UTF-8, or holding a control or format
// character (a terminal would act on it; a person could not see it).
func ValidateAttrName(name string) error { return validateName(name, MaxAttrNameBytes) }

// ValidateKeyAttrName is ValidateAttrName for the key attribute of a table
// or index, which DynamoDB limits to 255 bytes.
func ValidateKeyAttrName(name string) error { return validateName(name, MaxKeyAttrNameBytes) }

func validateName(name string, maxBytes int) error {
	switch {
	case name == "":
		return errors.New("name is empty")
	case len(name) > maxBytes:
		return fmt.Errorf("name of %d bytes: DynamoDB takes at most %d", len(name), maxBytes)
	case !utf8.ValidString(name):
		return fmt.Errorf("name %q is not valid UTF-8", name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || Hidden(r) {
			return fmt.Errorf("name %q holds %U, a control, format or blank character", name, r)
		}
	}
	return nil
}

// ValidateTableName reports why name cannot be a table or index name:
// DynamoDB takes 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'.
func ValidateTableName(name string) error {
	ok := len(name) >= MinTableNameLen && len(name) <= MaxTableNameLen
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
	}
	if ok {
		return nil
	}
	if len(name) > MaxTableNameLen {
		return fmt.Errorf("name of %d bytes: DynamoDB takes 3 to 255 characters", len(name))
	}
	return fmt.Errorf("name %q: DynamoDB takes 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.'", name)
}

// validateNames checks every table, index and attribute name of the schema
// against DynamoDB's rules, naming the field that set it.
func (s *Schema) validateNames() error {
	type name struct {
		field      SchemaField
		role, name string
		check      func(string) error
	}
	names := []name{
		{FieldTable, "", s.Table, ValidateTableName},
		{FieldPK, "", s.PK, ValidateKeyAttrName},
		{FieldOwnerAttr, "", s.OwnerAttr, ValidateAttrName},
	}
	if s.SK != "" {
		names = append(names, name{FieldSK, "", s.SK, ValidateKeyAttrName})
	}
	for _, c := range s.Constraints {
		attr := name{FieldConstraints, "attribute ", c.Attr, ValidateAttrName}
		if c.Index != "" {
			attr.role, attr.check = "index key attribute ", ValidateKeyAttrName
			names = append(names, name{FieldIndex, "index ", c.Index, ValidateTableName})
		}
		names = append(names, attr)
		if !c.InAccountTable() {
			names = append(names,
				name{FieldConstraints, "lock table ", c.LockTable, ValidateTableName},
				name{FieldConstraints, "lock table key attribute ", c.KeyAttr, ValidateKeyAttrName})
		}
	}
	for _, n := range names {
		if err := n.check(n.name); err != nil {
			return NewSchemaError(n.field, "%s%v", n.role, err)
		}
	}
	return nil
}
