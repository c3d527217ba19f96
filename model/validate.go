package model

import "strings"

// Validate rejects schemas that would make items ambiguous or keys
// invalid. The checks run in order, and the first that fails says why.
func (s *Schema) Validate() error {
	for _, check := range []func() error{
		s.validateRequired,
		s.validateNames,
		s.validateConstraints,
		s.validateLockPrefixes,
		s.validateTypes,
		s.validateAccountPrefix,
		s.validateTTL,
		s.validateSpelling,
	} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateRequired checks that the settings every schema needs are given.
func (s *Schema) validateRequired() error {
	switch {
	case s.Table == "":
		return NewSchemaError(FieldTable, "must not be empty")
	case s.PK == "":
		return NewSchemaError(FieldPK, "must not be empty")
	case s.SK != "" && s.SK == s.PK:
		return NewSchemaError(FieldSK, "must differ from %s", FieldPK)
	case s.SK != "" && s.AccountSK == "":
		return NewSchemaError(FieldAccountSK, "must not be empty when the table has a sort key")
	case len(s.Constraints) == 0:
		return NewSchemaError(FieldConstraints, "at least one unique attribute is needed")
	case s.OwnerAttr == "":
		return NewSchemaError(FieldOwnerAttr, "must not be empty")
	}
	return nil
}

// validateConstraints checks each constraint in order: its attribute is
// listed once and is no key or owner, and its locks have a place of their
// own (validateLockTable, validateInAccountTable).
func (s *Schema) validateConstraints() error {
	seenAttr := map[string]bool{}
	seenTable := map[string]bool{}
	for _, c := range s.Constraints {
		if seenAttr[c.Attr] {
			return NewSchemaError(FieldConstraints, "attribute %q is listed twice", c.Attr)
		}
		seenAttr[c.Attr] = true
		if c.Attr == s.PK || c.Attr == s.SK || c.Attr == s.OwnerAttr {
			return NewSchemaError(FieldConstraints, "attribute %q is a key or owner attribute", c.Attr)
		}
		var err error
		if c.InAccountTable() {
			err = s.validateInAccountTable(c)
		} else {
			err = s.validateLockTable(c, seenTable)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// validateLockTable checks a constraint whose locks are in a table of
// their own: not the account table, nor another constraint's (seen).
func (s *Schema) validateLockTable(c Constraint, seen map[string]bool) error {
	if c.LockTable == s.Table {
		return NewSchemaError(FieldConstraints, "%s: locks in the account table take ATTR=PREFIX, not @%s", c.Attr, c.LockTable)
	}
	if seen[c.LockTable] {
		return NewSchemaError(FieldConstraints, "lock table %q is listed twice", c.LockTable)
	}
	seen[c.LockTable] = true
	return nil
}

// validateInAccountTable checks a constraint whose locks are beside the
// accounts: they have a prefix, a scope that is no key, and a sort key.
func (s *Schema) validateInAccountTable(c Constraint) error {
	if c.Prefix == "" {
		return NewSchemaError(FieldConstraints, "%s: empty lock prefix: locks in the account table need one", c.Attr)
	}
	if c.Scope != "" {
		if err := ValidateAttrName(c.Scope); err != nil {
			return NewSchemaError(FieldConstraints, "scope attribute %v", err)
		}
		if c.Scope == c.Attr || c.Scope == s.PK || c.Scope == s.SK {
			return NewSchemaError(FieldConstraints, "%s: scope %q is the attribute itself or a key", c.Attr, c.Scope)
		}
		return nil // its sort key is checked with the unscoped ones'
	}
	if s.SK != "" && c.lockSK(s.LockSK) == "" {
		return NewSchemaError(FieldLockSK, "must not be empty when the table has a sort key")
	}
	return nil
}

// lockPrefixes returns the constraints whose locks are beside the
// accounts: the prefixes of the unscoped ones, and the scoped ones, which
// are told apart by prefix and tail.
func (s *Schema) lockPrefixes() (prefixes []string, scoped []Constraint) {
	for _, c := range s.Constraints {
		switch {
		case !c.InAccountTable():
		case c.Scope != "":
			scoped = append(scoped, c)
		default:
			prefixes = append(prefixes, c.Prefix)
		}
	}
	return prefixes, scoped
}

// validateLockPrefixes checks that no lock in the account table could be
// read as another constraint's: no prefix starts another, and scoped
// locks differ by prefix or tail.
func (s *Schema) validateLockPrefixes() error {
	prefixes, scoped := s.lockPrefixes()
	for i, a := range scoped {
		for j, b := range scoped {
			if i != j && (strings.HasPrefix(a.Prefix, b.Prefix) || strings.HasPrefix(b.Prefix, a.Prefix)) &&
				(strings.Contains(a.Tail, b.Tail) || strings.Contains(b.Tail, a.Tail)) {
				return NewSchemaError(FieldConstraints, "%q and %q: their locks would be ambiguous", a.Template(), b.Template())
			}
		}
		for _, p := range prefixes {
			if strings.HasPrefix(p, a.Prefix) || strings.HasPrefix(a.Prefix, p) {
				return NewSchemaError(FieldConstraints, "%q and %q: their locks would be ambiguous", a.Template(), p)
			}
		}
	}
	for i, a := range s.Constraints {
		for j, b := range s.Constraints {
			if i != j && a.InAccountTable() && b.InAccountTable() && a.Scope == "" && b.Scope == "" &&
				strings.HasPrefix(b.Prefix, a.Prefix) && a.lockSK(s.LockSK) == b.lockSK(s.LockSK) {
				return NewSchemaError(FieldConstraints, "prefix %q is a prefix of %q: their locks would be ambiguous", a.Prefix, b.Prefix)
			}
		}
	}
	return nil
}

// validateAccountPrefix checks that accounts and locks in the account
// table are told apart: by a type attribute, or by the account prefix
// (and, where it overlaps a lock prefix, the sort key).
func (s *Schema) validateAccountPrefix() error {
	prefixes, scoped := s.lockPrefixes()
	for _, c := range scoped {
		prefixes = append(prefixes, c.Prefix) // against the account prefix
	}
	if len(prefixes) == 0 || s.AccountType.Attr != "" {
		return nil // (With a type attribute, accounts and locks are told apart by it.)
	}
	if s.AccountPrefix == "" {
		return NewSchemaError(FieldAccountPrefix, "may be empty only when the table holds nothing but records (all locks in lock tables)")
	}
	for _, p := range prefixes {
		if strings.HasPrefix(p, s.AccountPrefix) || strings.HasPrefix(s.AccountPrefix, p) {
			if s.SK == "" || s.AccountSK == s.LockSK {
				return NewSchemaError(FieldAccountPrefix, "%q overlaps lock prefix %q: accounts and locks would be ambiguous", s.AccountPrefix, p)
			}
		}
	}
	return nil
}

// validateTypes checks the type attribute of accounts, the attributes
// written on locks and the id attribute: none may be a key, owner or
// unique attribute. A sort key of =PK needs a sort key.
func (s *Schema) validateTypes() error {
	if s.AccountType.Attr != "" {
		if s.AccountType.Value == "" {
			return NewSchemaError(FieldAccountType, "want ATTR=VALUE")
		}
		if err := s.validateWritten(FieldAccountType, s.AccountType.Attr); err != nil {
			return err
		}
	}
	for _, a := range s.LockAttrs {
		if err := s.validateWritten(FieldLockAttrs, a.Attr); err != nil {
			return err
		}
	}
	if err := s.validateIDAttr(); err != nil {
		return err
	}
	if s.SK == "" && (s.AccountSK == SameAsPK || s.LockSK == SameAsPK) {
		return NewSchemaError(FieldSK, "%s needs a sort key", SameAsPK)
	}
	return nil
}

// validateWritten checks attr, which field has locktable write: a valid
// name, and no key, owner or unique attribute.
func (s *Schema) validateWritten(field SchemaField, attr string) error {
	if err := ValidateAttrName(attr); err != nil {
		return NewSchemaError(field, "attribute %v", err)
	}
	if attr == s.PK || attr == s.SK || attr == s.OwnerAttr || s.Constraint(attr) >= 0 {
		return NewSchemaError(field, "attribute %q is a key, owner or unique attribute", attr)
	}
	return nil
}

// validateIDAttr checks the id attribute and the prefix before the id in
// an account's key.
func (s *Schema) validateIDAttr() error {
	if s.IDPrefix != "" && s.IDAttr == "" {
		return NewSchemaError(FieldIDAttr, "=%s names the prefix before an id attribute: ATTR=PREFIX", s.IDPrefix)
	}
	if s.IDPrefix != "" && !strings.HasPrefix(s.IDPrefix, s.AccountPrefix) {
		return NewSchemaError(FieldIDAttr, "prefix %q: new accounts' keys would not start with %s %q", s.IDPrefix, FieldAccountPrefix, s.AccountPrefix)
	}
	if s.IDAttr == "" {
		return nil
	}
	if err := s.validateWritten(FieldIDAttr, s.IDAttr); err != nil {
		return err
	}
	if s.IDAttr == s.AccountType.Attr {
		return NewSchemaError(FieldIDAttr, "attribute %q is the account type attribute", s.IDAttr)
	}
	return nil
}

// validateTTL checks the TTL attributes: valid names, and none that is a
// key, owner or unique attribute (a lock's key attribute in its table).
func (s *Schema) validateTTL() error {
	if s.TTLAttr != "" {
		if err := s.validateWritten(FieldTTLAttr, s.TTLAttr); err != nil {
			return err
		}
	}
	for _, c := range s.Constraints {
		if c.TTLAttr == "" {
			continue
		}
		if c.InAccountTable() {
			return NewSchemaError(FieldTTLAttr, "%s: its locks are in the account table, whose TTL attribute is the table's", c.Attr)
		}
		if err := ValidateAttrName(c.TTLAttr); err != nil {
			return NewSchemaError(FieldTTLAttr, "%s: attribute %v", c.LockTable, err)
		}
		if c.TTLAttr == c.KeyAttr || c.TTLAttr == s.OwnerAttr {
			return NewSchemaError(FieldTTLAttr, "%s: attribute %q is its key or owner attribute", c.LockTable, c.TTLAttr)
		}
	}
	return nil
}
