package cli

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"

	"github.com/locktable/locktable/cli/flagname"
	"github.com/locktable/locktable/model"
)

// schemaFlags are the flags that describe the table set (PATTERN.md,
// "Schema flags").
type schemaFlags struct {
	layout, table, pk, sk                   string
	accountPrefix, accountSK, lockSK, owner string
	unique, normalize, index                []string
	preset, accountType, idAttr             string
	lockSpelling, olderHead, constraintEnt  string
	lockAttrs, scope, ttlAttr               []string
}

func (f *schemaFlags) register(fs *pflag.FlagSet) {
	d := model.DefaultSchema(model.LayoutSingle)
	fs.StringVar(&f.layout, "layout", "single", "lock layout: single (locks beside accounts) or tables (a lock table per attribute)")
	fs.StringVar(&f.table, "table", d.Table, "the account (record) table (layout tables: devices)")
	fs.StringVar(&f.pk, "pk", d.PK, "partition key attribute (layout tables: id)")
	fs.StringVar(&f.sk, "sk", d.SK, `sort key attribute; "" for none (layout tables: none)`)
	fs.StringVar(&f.accountPrefix, "account-prefix", d.AccountPrefix, `partition key prefix of account items (layout tables: "")`)
	fs.StringVar(&f.accountSK, "account-sk", d.AccountSK, "sort key of account items; =PK: each its own partition key; =ID: each its own, the account then named by its whole key PK|SK")
	fs.StringVar(&f.lockSK, "lock-sk", d.LockSK, "sort key of lock items; =PK: each its own partition key")
	fs.StringVar(&f.owner, "owner-attr", d.OwnerAttr, "lock attribute naming the account that holds it")
	fs.StringArrayVar(&f.unique, "unique", nil, "unique attribute and its locks: ATTR=PREFIX, ATTR=HEAD${SCOPE}TAIL (unique per SCOPE) or ATTR=@TABLE/KEYATTR; with --preset, ATTR alone (repeat; replaces the defaults email=UNIQ#EMAIL#, username=UNIQ#HANDLE#)")
	fs.StringArrayVar(&f.normalize, "normalize", nil, "ATTR=none|lower|casefold: how a value maps to its lock key: none as stored; lower Unicode lower case; "+
		"casefold NFC, full case folding (CaseFolding.txt C+F), NFC again, the key Python's "+
		`unicodedata.normalize("NFC", unicodedata.normalize("NFC", s).casefold()) and ICU's u_strFoldCase between NFCs make, `+
		"not JavaScript's toLowerCase (ß, ﬃ, Cherokee differ) (repeat; default none)")
	fs.StringArrayVar(&f.index, "index", nil, "ATTR=INDEX: a GSI of the account table keyed by ATTR (repeat)")
	fs.StringVar(&f.preset, "preset", "", "a table written by a library: onetable:MODEL (the _type value), typedorm:ENTITY (the __en value) or electrodb:ENTITY (the __edb_e__ value, with the unique constraint entity of ElectroDB's documentation; its accounts are named by their whole key, PK|SK); keys from the table, --unique ATTR derives the prefix, and without --unique the unique items present say which attributes are unique")
	fs.StringVar(&f.accountType, "account-type", "", "ATTR=VALUE: accounts are the items whose ATTR is VALUE (besides --account-prefix, which may then be empty); signups write it")
	fs.StringArrayVar(&f.scope, "scope", nil, "ATTR=SCOPEATTR: with --preset onetable, ATTR is unique per value of SCOPEATTR (OneTable's unique scope) (repeat)")
	fs.StringVar(&f.olderHead, "older-spelling", "", "MODEL: or _Unique:MODEL:: with --preset onetable, what the older spelling's unique keys start with before ATTR:VALUE (User:email:ada@x as OneTable wrote them, or _Unique:User:email:ada@x as its issue tracker spells them); default: the one the table's unique items have")
	fs.StringVar(&f.lockSpelling, "lock-spelling", "", "newer or older: with --preset onetable, the spelling of unique items new locks are written in, newer _unique#MODEL#ATTR#VALUE (sort key _unique#) or OneTable's older MODEL:ATTR:VALUE (sort key _unique:, before 1.8 or with legacyUnique); both are recognised; default: the older when the model's unique items present are all in it")
	fs.StringVar(&f.constraintEnt, "constraint-entity", "", "entity=NAME,service=SERVICE,version=VERSION (any of them): with --preset electrodb, ElectroDB's unique constraint entity; default: what the constraint items present say, else the documentation's: entity=constraint, the guarded entity's service, version=1")
	fs.StringArrayVar(&f.lockAttrs, "lock-attr", nil, "ATTR=VALUE written on every lock locktable puts, besides its key and owner (repeat)")
	fs.StringArrayVar(&f.ttlAttr, "ttl-attr", nil, `TTL attribute (epoch seconds) of every table, or TABLE=ATTR for one (repeat); "" for none; default: each table's own (DescribeTimeToLive, when ENABLED)`)
	fs.StringVar(&f.idAttr, "id-attr", "", "ATTR[=PREFIX]: accounts carry their id, their key without PREFIX (default --account-prefix), in ATTR; signups write it (a preset finds both in the accounts present)")
}

// schema builds the schema: the layout's defaults, refined by every flag
// the user set. Errors name the flag (exit 2).
func (f *schemaFlags) schema(fs *pflag.FlagSet) (model.Schema, error) {
	s, err := f.build(fs)
	return s, asFlagError(err)
}

// build is schema, its errors naming the schema's fields.
func (f *schemaFlags) build(fs *pflag.FlagSet) (model.Schema, error) {
	s, err := f.layoutSchema(fs)
	if err != nil {
		return model.Schema{}, err
	}
	f.setKeys(fs, &s)
	if err := f.setTypes(fs, &s); err != nil {
		return model.Schema{}, err
	}
	preset := model.Preset{Schema: &s}
	if fs.Changed("constraint-entity") { // before --unique, which it keys
		if err := preset.SetConstraintEntity(f.constraintEnt); err != nil {
			return model.Schema{}, err
		}
	}
	if err := f.setConstraints(&s); err != nil {
		return model.Schema{}, err
	}
	if fs.Changed("older-spelling") {
		if err := preset.SetOlderHead(f.olderHead); err != nil {
			return model.Schema{}, err
		}
	}
	if fs.Changed("lock-spelling") {
		if err := preset.SetLockSpelling(f.lockSpelling); err != nil {
			return model.Schema{}, err
		}
	}
	if err := f.setTTL(fs, &s); err != nil {
		return model.Schema{}, err
	}
	if len(preset.Unresolved()) > 0 {
		return s, nil // validated once the table filled in the rest (dynamo.Store.ResolvePreset)
	}
	return s, s.Validate()
}

// layoutSchema is the schema --layout and --preset start from.
func (f *schemaFlags) layoutSchema(fs *pflag.FlagSet) (model.Schema, error) {
	layout, err := model.ParseLayout(f.layout)
	if err != nil {
		return model.Schema{}, err
	}
	s := model.DefaultSchema(layout)
	if f.preset == "" {
		return s, nil
	}
	if fs.Changed("layout") && layout != model.LayoutSingle {
		return model.Schema{}, &flagError{flag: "preset", msg: "keeps its locks beside the accounts: --layout single"}
	}
	return s, model.Preset{Schema: &s}.Apply(f.preset)
}

// setKeys sets the key attributes, the sort keys, the owner and the id
// attribute the user gave.
func (f *schemaFlags) setKeys(fs *pflag.FlagSet, s *model.Schema) {
	set := func(name string, dst *string, v string) {
		if fs.Changed(name) {
			*dst = v
		}
	}
	set("table", &s.Table, f.table)
	set("pk", &s.PK, f.pk)
	set("sk", &s.SK, f.sk)
	set("account-prefix", &s.AccountPrefix, f.accountPrefix)
	set("account-sk", &s.AccountSK, f.accountSK)
	set("lock-sk", &s.LockSK, f.lockSK)
	set("owner-attr", &s.OwnerAttr, f.owner)
	if fs.Changed("id-attr") {
		s.IDAttr, s.IDPrefix, _ = strings.Cut(f.idAttr, "=")
	}
	if s.KeysFromTable && (fs.Changed("pk") || fs.Changed("sk")) {
		s.KeysFromTable = false // given: the table's keys are checked against them
	}
}

// setTypes sets --account-type and --lock-attr.
func (f *schemaFlags) setTypes(fs *pflag.FlagSet, s *model.Schema) error {
	if fs.Changed("account-type") {
		attr, v, err := model.ParseAssignment(model.FieldAccountType, f.accountType)
		if err != nil {
			return err
		}
		if s.Preset != "" && len(s.LockAttrs) > 0 && !fs.Changed("lock-attr") {
			s.LockAttrs[0].Attr = attr // OneTable's typeField names both
		}
		s.AccountType = model.Assignment{Attr: attr, Value: v}
	}
	if !fs.Changed("lock-attr") {
		return nil
	}
	s.LockAttrs = nil
	for _, x := range f.lockAttrs {
		attr, v, err := model.ParseAssignment(model.FieldLockAttrs, x)
		if err != nil {
			return err
		}
		s.LockAttrs = append(s.LockAttrs, model.Assignment{Attr: attr, Value: v})
	}
	return nil
}

// setConstraints sets the constraints --unique gives, then what
// --normalize, --index and --scope say of them.
func (f *schemaFlags) setConstraints(s *model.Schema) error {
	if len(f.unique) > 0 {
		s.Constraints = nil
		for _, u := range f.unique {
			c, err := f.constraint(s, u)
			if err != nil {
				return err
			}
			s.Constraints = append(s.Constraints, c)
		}
	}
	err := eachConstraint(s, model.FieldNormalize, f.normalize, func(c *model.Constraint, v string) error {
		n, err := model.ParseNormalization(v)
		c.Normalize = n
		return err
	})
	if err != nil {
		return err
	}
	err = eachConstraint(s, model.FieldIndex, f.index, func(c *model.Constraint, v string) error {
		c.Index = v
		return nil
	})
	if err != nil {
		return err
	}
	return eachConstraint(s, model.FieldScope, f.scope, func(c *model.Constraint, v string) error {
		return model.Preset{Schema: s}.ScopeConstraint(s.Constraint(c.Attr), v)
	})
}

// setTTL sets what --ttl-attr gives: ATTR for every table, TABLE=ATTR
// for one, "" for none. Given, the tables' own TTL settings are not asked.
func (f *schemaFlags) setTTL(fs *pflag.FlagSet, s *model.Schema) error {
	if !fs.Changed("ttl-attr") {
		return nil
	}
	s.TTLGiven = true
	for _, x := range f.ttlAttr {
		table, attr, one := strings.Cut(x, "=")
		if !one {
			for _, t := range s.Tables() {
				if err := s.SetTTLAttr(t, x); err != nil {
					return err
				}
			}
			continue
		}
		if err := s.SetTTLAttr(table, attr); err != nil {
			return err
		}
	}
	return nil
}

// constraint parses one --unique value; with a preset, a bare attribute
// takes the library's own prefix.
func (f *schemaFlags) constraint(s *model.Schema, u string) (model.Constraint, error) {
	if s.Preset == "" || strings.Contains(u, "=") {
		return model.ParseUnique(u)
	}
	if err := model.ValidateAttrName(u); err != nil {
		return model.Constraint{}, &flagError{flag: "unique", msg: "attribute " + err.Error()}
	}
	return model.Preset{Schema: s}.Unique(u), nil
}

// eachConstraint applies the ATTR=VALUE values of a repeated flag, which
// sets field of a constraint, to the constraints they name.
func eachConstraint(s *model.Schema, field model.SchemaField, values []string, apply func(*model.Constraint, string) error) error {
	for _, x := range values {
		attr, v, err := model.ParseAssignment(field, x)
		if err != nil {
			return err
		}
		ci := s.Constraint(attr)
		if ci < 0 {
			return &flagError{flag: flagname.Of(field), msg: "no unique attribute " + attr}
		}
		if err := apply(&s.Constraints[ci], v); err != nil {
			return err
		}
	}
	return nil
}

// flagError is invalid input to a schema flag as the command line says
// it: "--table: must not be empty".
type flagError struct {
	flag string // without its dashes
	msg  string
	err  error // the *model.SchemaError it says, if any
}

func (e *flagError) Error() string { return "--" + e.flag + ": " + e.msg }
func (e *flagError) Unwrap() error { return e.err }

// asFlagError says a *model.SchemaError in flags, the one that carried
// the field and those its message names; other errors are left as they
// are.
func asFlagError(err error) error {
	var se *model.SchemaError
	if !errors.As(err, &se) {
		return err
	}
	msg := se.Msg(flagname.Say)
	return &flagError{flag: flagname.Of(se.Field), msg: msg, err: se}
}
