package model

import (
	"fmt"
	"slices"
	"strings"
)

// Layout names one of the two ways the pattern stores its locks.
type Layout string

const (
	// LayoutSingle keeps lock items beside the accounts in one table.
	LayoutSingle Layout = "single"
	// LayoutTables keeps the locks of each attribute in a table of its own,
	// keyed by the value.
	LayoutTables Layout = "tables"
)

// Limits DynamoDB puts on key attribute values, in UTF-8 bytes.
const (
	MaxPartitionKeyBytes = 2048
	MaxSortKeyBytes      = 1024
)

// Constraint is one unique attribute and where its locks live.
type Constraint struct {
	Attr string // the account attribute that must be unique, e.g. "email"
	// Prefix is prepended to the value to form the lock's partition key when
	// the lock lives in the account table (LockTable == "").
	Prefix string
	// LockTable and KeyAttr locate locks kept in a table of their own, whose
	// hash key KeyAttr is the bare value.
	LockTable string
	KeyAttr   string
	Normalize Normalization
	// Index is a GSI of the account table keyed by Attr, if there is one; it
	// lets an ownerless orphan be confirmed without a second scan.
	Index string
	// Scope, when set, is the account attribute whose value goes between
	// Prefix and Tail in the lock key: values are unique per scope
	// (OneTable's _unique#<scope>#User#email#<value>). The constraint's
	// value is then the lock key minus Prefix: scope, Tail and the value.
	Scope, Tail string
	// TTLAttr is the TTL attribute of the lock table, where the locks live
	// in one (each table has its own); locks in the account table have
	// the schema's TTLAttr.
	TTLAttr string
	// AltPrefix, when set, is the prefix of the other spelling of the
	// constraint's lock keys, whose sort key is Schema.AltLockSK: a
	// library that changed how it keys its unique items leaves tables
	// with locks in both (OneTable's User:email:<value>, sort key
	// _unique:, beside _unique#User#email#<value>). A lock in either is
	// the value's lock, reported and repaired under the key it has;
	// new locks are written with Prefix only.
	AltPrefix string
	// LockSK, when set, is the sort key of this constraint's locks where
	// it is not the schema's: ElectroDB keys every constraint's items
	// under one prefix and tells them apart by the sort key
	// ($constraint_1#name_email#entity_agent).
	LockSK string
	// LockAttrs are written on this constraint's locks besides the
	// schema's: each value is a template in which ${value} is the value
	// as the account holds it and ${key} the value as the lock key holds
	// it (normalized): ElectroDB's name, value, entity and GSI keys.
	LockAttrs []Assignment
}

// The placeholders of a constraint's lock attribute templates.
const (
	LockAttrValue = "${value}" // the value as the account holds it
	LockAttrKey   = "${key}"   // the value as the lock key holds it
)

// lockSK is the sort key of the constraint's locks, given the schema's.
func (c Constraint) lockSK(schemaSK string) string {
	if c.LockSK != "" {
		return c.LockSK
	}
	return schemaSK
}

// LockAttrsFor are the constraint's own lock attributes for a lock of
// value raw (as the account holds it) whose key holds key.
func (c Constraint) LockAttrsFor(raw, key string) []Assignment {
	out := make([]Assignment, len(c.LockAttrs))
	for i, a := range c.LockAttrs {
		v := strings.ReplaceAll(a.Value, LockAttrValue, raw)
		out[i] = Assignment{a.Attr, strings.ReplaceAll(v, LockAttrKey, key)}
	}
	return out
}

// Indexed reports whether holders of a value are looked up on the
// constraint's GSI: one is configured, values are not normalized (the
// index holds them as stored) and not scoped.
func (c Constraint) Indexed() bool {
	return c.Index != "" && c.Normalize == NormalizeNone && c.Scope == ""
}

// Template is the constraint's lock prefix as --unique takes it, with the
// scope as ${ATTR}.
func (c Constraint) Template() string {
	if c.Scope == "" {
		return c.Prefix
	}
	return c.Prefix + "${" + c.Scope + "}" + c.Tail
}

// setTemplate sets the prefix from a --unique prefix that may hold one
// ${ATTR}: the scope attribute.
func (c *Constraint) setTemplate(t string) error {
	head, rest, ok := strings.Cut(t, "${")
	if !ok {
		c.Prefix = t
		return nil
	}
	attr, tail, ok := strings.Cut(rest, "}")
	if !ok || attr == "" || tail == "" || strings.Contains(tail, "${") {
		return fmt.Errorf("a scope is one ${ATTR} followed by a separator, as in _unique#${org}#User#email#")
	}
	c.Prefix, c.Scope, c.Tail = head, attr, tail
	return nil
}

// scopedValue reports whether rest, a lock key minus the prefix, is one
// of the scoped constraint's: a non-empty scope, then the tail.
func (c Constraint) scopedValue(rest string) bool { return strings.Index(rest, c.Tail) > 0 }

// InAccountTable reports whether the constraint's locks live beside the
// accounts.
func (c Constraint) InAccountTable() bool { return c.LockTable == "" }

// Schema describes a table that uses the pattern: where accounts are, and
// where the lock of each unique attribute is.
type Schema struct {
	Layout        Layout
	Table         string // the account (record) table
	PK, SK        string // key attribute names; SK == "" means no sort key
	AccountPrefix string
	AccountSK     string
	LockSK        string
	// AltLockSK is the sort key of locks in the constraints' other
	// spelling (Constraint.AltPrefix), "" when none has one.
	AltLockSK string
	// LockSpelling is which of a preset's two spellings of lock keys
	// new locks are written in (SpellingNewer, SpellingOlder): "" while
	// the table is still to say (the one its unique items have, see
	// Preset.SetLockSpelling).
	LockSpelling string
	// OlderHead is what OneTable's older unique keys start with before
	// ATTR:VALUE, where it is not MODEL: (User:email:ada@x): the issue
	// tracker's _Unique:User: (Preset.SetOlderHead). "" for MODEL:.
	OlderHead string
	OwnerAttr string
	// OwnerlessLocks says the locks locktable writes carry no owner, as
	// the library's own do not (ElectroDB's constraints): OwnerAttr is
	// then only read, and set while a repair claims a lock.
	OwnerlessLocks bool
	Constraints    []Constraint
	// AccountType, when set, recognises accounts by an attribute value
	// (OneTable's _type=User, TypeDORM's __en=user) as well as by the key
	// prefix, which may then be empty; signups write it.
	AccountType Assignment
	// ConstraintEntity is what was given of ElectroDB's constraint entity
	// (its name, service, version): the constraint items present, else the
	// documentation's defaults, say the rest (Preset.SetConstraintEntity).
	ConstraintEntity ConstraintEntity
	// AccountAttrs are written on every account a signup puts, besides
	// its type: what the library writes there and reads back to own the
	// item (ElectroDB's __edb_v__, the entity's version).
	AccountAttrs []Assignment
	// LockAttrs are written on every lock locktable puts, besides its key
	// and owner: what the library itself writes there (_type=_Unique).
	LockAttrs []Assignment
	// IDAttr, when set, is the account attribute that carries the
	// account's id, its key without AccountIDs.KeyPrefix (OneTable's and
	// TypeDORM's id beside pk user#<id>); signups write it, so that the
	// library, which builds the key from it, reads them back.
	IDAttr string
	// IDPrefix is what an account's key holds before its id, where that
	// is not AccountPrefix: a preset's accounts are told by their type
	// attribute, not by their key (AccountPrefix ""), yet the library
	// keys them user#<id>. Only with IDAttr (--id-attr ATTR=PREFIX).
	IDPrefix string
	// Preset is the library and model the schema was derived from
	// ("onetable:User"), "" for none.
	Preset string
	// TTLAttr is the account table's TTL attribute (epoch seconds, type
	// N), "" for none: a lock whose TTL is not after now is expired, and
	// one whose TTL is later is reserved until then (PATTERN.md, "Locks
	// with a time to live").
	TTLAttr string
	// TTLGiven says the TTL attributes were given (--ttl-attr), so the
	// tables' own TTL settings (DescribeTimeToLive) are not asked.
	TTLGiven bool
	// KeysFromTable says that the key attribute names (and, where left
	// empty, the account sort key and the constraints) are still to be
	// read from the table: a preset's schema before the table is opened.
	KeysFromTable bool
}

// Assignment is an attribute and a string value (--account-type ATTR=VALUE).
type Assignment struct{ Attr, Value string }

// SameAsPK, as --account-sk or --lock-sk, says that the item's sort key
// is its partition key (TypeDORM's USER#1/USER#1 and unique items).
const SameAsPK = "=PK"

// KeyInID, as --account-sk, says that accounts have sort keys of their
// own (ElectroDB's agents share a partition key): an account's id is
// then its whole key, PK|SK (IDKeySep, WholeKeyID).
const KeyInID = "=ID"

// IDKeySep joins the partition and sort key in the id of an account
// whose sort key is its own (KeyInID).
const IDKeySep = "|"

// AccountID is the id of account it: its partition key, or with KeyInID
// its partition and sort key joined by IDKeySep.
func (s *Schema) AccountID(it Item) string {
	if s.AccountSK == KeyInID && s.SK != "" {
		return WholeKeyID(it[s.PK].S, it[s.SK].S)
	}
	return it[s.PK].S
}

// WholeKeyID is the id of an item named by its whole key: PK|SK, a | in
// the partition key written \| and a \ written \\, so that the id
// splits at its first | that is not escaped (SplitWholeKeyID) and every
// key has one id. The sort key is as it is: the rest of the id.
func WholeKeyID(pk, sk string) string {
	if strings.ContainsAny(pk, `\|`) {
		pk = strings.NewReplacer(`\`, `\\`, IDKeySep, `\`+IDKeySep).Replace(pk)
	}
	return pk + IDKeySep + sk
}

// SplitWholeKeyID is the partition and sort key a WholeKeyID names;
// false when id has no unescaped | (it names no whole key). A \ before
// anything but \ or | is kept: a key typed without escapes reads as
// typed.
func SplitWholeKeyID(id string) (pk, sk string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case c == '\\' && i+1 < len(id) && (id[i+1] == '\\' || id[i+1] == IDKeySep[0]):
			i++
			b.WriteByte(id[i])
		case c == IDKeySep[0]:
			return b.String(), id[i+1:], true
		default:
			b.WriteByte(c)
		}
	}
	return id, "", false
}

// sortKey is the sort key of an item whose partition key is pk, by the
// configured value sk (SameAsPK or a constant).
func sortKey(sk, pk string) string {
	if sk == SameAsPK {
		return pk
	}
	return sk
}

// DefaultSchema returns the schema a layout starts from before flags refine it.
func DefaultSchema(l Layout) Schema {
	if l == LayoutTables {
		return Schema{
			Layout:    LayoutTables,
			Table:     "devices",
			PK:        "id",
			OwnerAttr: "owner",
			Constraints: []Constraint{
				{Attr: "mac_address", LockTable: "unique_mac_addresses", KeyAttr: "MacAddress", Normalize: NormalizeNone},
				{Attr: "registration_code", LockTable: "unique_registration_codes", KeyAttr: "RegistrationCode", Normalize: NormalizeNone},
			},
		}
	}
	return Schema{
		Layout:        LayoutSingle,
		Table:         "accounts",
		PK:            "PK",
		SK:            "SK",
		AccountPrefix: "ACCT#",
		AccountSK:     "PROFILE",
		LockSK:        "LOCK",
		OwnerAttr:     "owner",
		Constraints: []Constraint{
			{Attr: "email", Prefix: "UNIQ#EMAIL#", Normalize: NormalizeNone},
			{Attr: "username", Prefix: "UNIQ#HANDLE#", Normalize: NormalizeNone},
		},
	}
}

// ParseLayout parses the value of --layout.
func ParseLayout(s string) (Layout, error) {
	switch Layout(s) {
	case LayoutSingle, LayoutTables:
		return Layout(s), nil
	}
	return "", NewSchemaError(FieldLayout, "%q is not single or tables", s)
}

// SchemaField names a setting of a schema, as the errors that reject one
// name it. A front end says it in its own words: package cli as the flag
// that sets it.
type SchemaField string

// The settings of a schema, named after the Schema (and Constraint)
// fields they set.
const (
	FieldLayout        SchemaField = "Layout"
	FieldTable         SchemaField = "Table"
	FieldPK            SchemaField = "PK"
	FieldSK            SchemaField = "SK"
	FieldAccountPrefix SchemaField = "AccountPrefix"
	FieldAccountSK     SchemaField = "AccountSK"
	FieldLockSK        SchemaField = "LockSK"
	FieldOwnerAttr     SchemaField = "OwnerAttr"
	FieldConstraints   SchemaField = "Constraints" // the unique attributes and where their locks are
	FieldNormalize     SchemaField = "Normalize"   // of a constraint
	FieldIndex         SchemaField = "Index"       // of a constraint
	FieldScope         SchemaField = "Scope"       // of a constraint, given apart from its prefix
	FieldAccountType   SchemaField = "AccountType"
	FieldLockAttrs     SchemaField = "LockAttrs"
	FieldIDAttr        SchemaField = "IDAttr" // with IDPrefix
	FieldPreset        SchemaField = "Preset"
	FieldTTLAttr       SchemaField = "TTLAttr" // of the schema, or of a constraint's lock table
	FieldLockSpelling  SchemaField = "LockSpelling"
	FieldOlderHead     SchemaField = "OlderHead"
	// FieldConstraintEntity is ElectroDB's constraint entity.
	FieldConstraintEntity SchemaField = "ConstraintEntity"
)

// SchemaError is invalid schema input, named by the field that carried
// it. Its message may name other fields; Msg says each as its reader
// names them.
type SchemaError struct {
	Field  SchemaField
	format string
	args   []any
}

// NewSchemaError returns the error rejecting field f, with the message
// fmt.Sprintf(format, args...), in which each arg that is a SchemaField
// names that field.
func NewSchemaError(f SchemaField, format string, args ...any) *SchemaError {
	return &SchemaError{Field: f, format: format, args: args}
}

// Msg is the error's message, each field it names said by name.
func (e *SchemaError) Msg(name func(SchemaField) string) string {
	args := make([]any, len(e.args))
	for i, a := range e.args {
		if f, ok := a.(SchemaField); ok {
			a = name(f)
		}
		args[i] = a
	}
	return fmt.Sprintf(e.format, args...)
}

func (e *SchemaError) Error() string {
	return string(e.Field) + ": " + e.Msg(func(f SchemaField) string { return string(f) })
}

// ParseUnique parses one --unique value: ATTR=PREFIX for a lock in the
// account table, or ATTR=@TABLE/KEYATTR for a lock table of its own.
func ParseUnique(s string) (Constraint, error) {
	bad := func(why string) (Constraint, error) {
		return Constraint{}, NewSchemaError(FieldConstraints, "%q: %s (want ATTR=PREFIX or ATTR=@TABLE/KEYATTR)", s, why)
	}
	attr, loc, ok := strings.Cut(s, "=")
	if !ok {
		return bad("no '='")
	}
	if attr == "" {
		return bad("empty attribute name")
	}
	c := Constraint{Attr: attr, Normalize: NormalizeNone}
	if rest, isTable := strings.CutPrefix(loc, "@"); isTable {
		table, keyAttr, ok := strings.Cut(rest, "/")
		if !ok || table == "" || keyAttr == "" {
			return bad("lock table needs TABLE/KEYATTR")
		}
		c.LockTable, c.KeyAttr = table, keyAttr
		return c, nil
	}
	if err := c.setTemplate(loc); err != nil {
		return bad(err.Error())
	}
	return c, nil
}

// ParseAssignment splits an ATTR=VALUE value of field (Normalize, Index).
func ParseAssignment(field SchemaField, s string) (attr, value string, err error) {
	attr, value, ok := strings.Cut(s, "=")
	if !ok || attr == "" || value == "" {
		return "", "", NewSchemaError(field, "%q: want ATTR=VALUE", s)
	}
	if err := ValidateAttrName(attr); err != nil {
		return "", "", NewSchemaError(field, "attribute %v", err)
	}
	return attr, value, nil
}

// Constraint returns the index of the constraint on attr, or -1.
func (s *Schema) Constraint(attr string) int {
	for i, c := range s.Constraints {
		if c.Attr == attr {
			return i
		}
	}
	return -1
}

// Tables returns every table the schema touches: the account table first,
// then each lock table in constraint order.
func (s *Schema) Tables() []string {
	tables := []string{s.Table}
	for _, c := range s.Constraints {
		if !c.InAccountTable() {
			tables = append(tables, c.LockTable)
		}
	}
	return tables
}

// NamesAccount reports whether id can name an account's key at all: not
// empty, and where accounts are named by their whole key, a partition
// and a sort key that are not empty (a repair's claim, or an owner a
// writer left, names no such key; DynamoDB refuses a read of one).
func (s *Schema) NamesAccount(id string) bool {
	if s.AccountSK == KeyInID && s.SK != "" {
		pk, sk, ok := SplitWholeKeyID(id)
		return ok && pk != "" && sk != ""
	}
	return id != ""
}

// AccountKey returns the primary key of the account whose key value is id.
func (s *Schema) AccountKey(id string) map[string]string {
	if s.AccountSK == KeyInID && s.SK != "" {
		pk, sk, _ := SplitWholeKeyID(id)
		return map[string]string{s.PK: pk, s.SK: sk}
	}
	k := map[string]string{s.PK: id}
	if s.SK != "" {
		k[s.SK] = sortKey(s.AccountSK, id)
	}
	return k
}

// LockKey returns the table and primary key of the lock of constraint ci
// for value v (v exactly as it is, never normalized here).
func (s *Schema) LockKey(ci int, v string) (table string, key map[string]string) {
	c := s.Constraints[ci]
	if !c.InAccountTable() {
		return c.LockTable, map[string]string{c.KeyAttr: v}
	}
	k := map[string]string{s.PK: c.Prefix + v}
	if s.SK != "" {
		k[s.SK] = sortKey(c.lockSK(s.LockSK), c.Prefix+v)
	}
	return s.Table, k
}

// lockKeyFits reports whether the lock key for v stays inside DynamoDB's
// partition key size limit.
func (s *Schema) lockKeyFits(ci int, v string) bool {
	return len(s.Constraints[ci].Prefix)+len(v) <= MaxPartitionKeyBytes
}

// ReadNames are the attributes an item of table is judged by (Classify,
// Held): its keys, the owner, its TTL attribute, and for the account table the account type,
// the constrained attributes and their scopes. A check projects its scans
// on them, and an export is read down to them.
func (s *Schema) ReadNames(table string) []string {
	names := append(s.KeyAttrs(table), s.OwnerAttr)
	if ttl := s.TTLAttrOf(table); ttl != "" && !slices.Contains(names, ttl) {
		names = append(names, ttl)
	}
	if table != s.Table {
		return names
	}
	if s.AccountType.Attr != "" {
		names = append(names, s.AccountType.Attr)
	}
	for _, c := range s.Constraints {
		names = append(names, c.Attr)
		if c.Scope != "" && !slices.Contains(names, c.Scope) {
			names = append(names, c.Scope)
		}
	}
	return names
}

// KeyAttrs are the key attributes of table, in key order: the hash key,
// then the range key where there is one. The account table is keyed by
// PK (and SK), a lock table of its own by its constraint's KeyAttr; a
// table that is none of the schema's has none (nil).
func (s *Schema) KeyAttrs(table string) []string {
	if ci, ok := s.lockTableOf(table); ok {
		return []string{s.Constraints[ci].KeyAttr}
	}
	switch {
	case table != s.Table:
		return nil
	case s.SK == "":
		return []string{s.PK}
	}
	return []string{s.PK, s.SK}
}

// lockTableOf is the constraint whose locks live in table, a table of
// their own; false for the account table and any other.
func (s *Schema) lockTableOf(table string) (ci int, ok bool) {
	for ci, c := range s.Constraints {
		if !c.InAccountTable() && c.LockTable == table {
			return ci, true
		}
	}
	return 0, false
}

// Holding is what an account holds for one constraint.
type Holding uint8

// The states of an account's attribute for one constraint.
const (
	HoldsNothing Holding = iota // absent, NULL or "": no lock expected
	HoldsValue                  // a non-empty string: its lock is expected
	HoldsInvalid                // another type, or a value too long to lock
)

// Held reads constraint ci from account it: what it holds, and the
// normalized value when it holds one.
func (s *Schema) Held(ci int, it Item) (Holding, string) {
	c := s.Constraints[ci]
	v, ok := it[c.Attr]
	switch {
	case !ok || v.Kind == KindNULL || (v.Kind == KindS && v.S == ""):
		return HoldsNothing, ""
	case v.Kind != KindS:
		return HoldsInvalid, ""
	}
	n := c.Normalize.Apply(v.S)
	if c.Scope != "" {
		// Unique per scope: no scope, no lock (OneTable refuses to write one).
		sv, ok := it[c.Scope]
		if !ok || sv.Kind != KindS || sv.S == "" {
			return HoldsNothing, ""
		}
		n = sv.S + c.Tail + n
	}
	if !s.lockKeyFits(ci, n) {
		return HoldsInvalid, ""
	}
	return HoldsValue, n
}

// lockRef is LockKey with the table left empty when it is the account
// table, as the JSON contract reports it.
func (s *Schema) lockRef(ci int, v string) (string, map[string]string) {
	table, key := s.LockKey(ci, v)
	if table == s.Table {
		table = ""
	}
	return table, key
}

func (s *Schema) tableOr(t string) string {
	if t == "" {
		return s.Table
	}
	return t
}

// KeyOf is the primary key of item it of table, its key attributes that
// are strings (the schema's tables are keyed by strings).
func (s *Schema) KeyOf(table string, it Item) map[string]string {
	key := map[string]string{}
	for _, n := range s.KeyAttrs(table) {
		if v, ok := it[n]; ok && v.Kind == KindS {
			key[n] = v.S
		}
	}
	return key
}

// TTLAttrOf is the TTL attribute of table, "" when it has none.
func (s *Schema) TTLAttrOf(table string) string {
	if ci, ok := s.lockTableOf(table); ok {
		return s.Constraints[ci].TTLAttr
	}
	if table == s.Table {
		return s.TTLAttr
	}
	return ""
}

// LockTTLAttr is the TTL attribute of constraint ci's locks, "" for none.
func (s *Schema) LockTTLAttr(ci int) string {
	if c := s.Constraints[ci]; !c.InAccountTable() {
		return c.TTLAttr
	}
	return s.TTLAttr
}

// HasTTL reports whether any table of the schema has a TTL attribute.
func (s *Schema) HasTTL() bool {
	for _, t := range s.Tables() {
		if s.TTLAttrOf(t) != "" {
			return true
		}
	}
	return false
}

// SetTTLAttr sets the TTL attribute of table, one of the schema's.
func (s *Schema) SetTTLAttr(table, attr string) error {
	if ci, ok := s.lockTableOf(table); ok {
		s.Constraints[ci].TTLAttr = attr
		return nil
	}
	if table != s.Table {
		return NewSchemaError(FieldTTLAttr, "%q is none of the tables (%s)", table, strings.Join(s.Tables(), ", "))
	}
	s.TTLAttr = attr
	return nil
}

// LockPK is the partition key attribute of constraint ci's locks.
func (s *Schema) LockPK(ci int) string {
	if c := s.Constraints[ci]; !c.InAccountTable() {
		return c.KeyAttr
	}
	return s.PK
}

// NamedOwner is the owner a lock names, "" when it names none (or one
// that is not a string).
func (s *Schema) NamedOwner(lock Item) string {
	if o, ok := lock[s.OwnerAttr]; ok && o.Kind == KindS {
		return o.S
	}
	return ""
}

// Nouns are what the items of the account table are called: accounts, or
// records under --layout tables, whose tables hold devices, orders, or
// anything else with unique attributes.
func (s *Schema) Nouns() (one, many string) {
	if s.Layout == LayoutTables {
		return "record", "records"
	}
	return "account", "accounts"
}
