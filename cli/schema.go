package cli

import (
	"github.com/spf13/pflag"

	"github.com/locktable/locktable/model"
)

// schemaFlags are the flags that describe the table set (PATTERN.md,
// "Schema flags").
type schemaFlags struct {
	layout, table, pk, sk                   string
	accountPrefix, accountSK, lockSK, owner string
	unique, normalize, index                []string
}

func (f *schemaFlags) register(fs *pflag.FlagSet) {
	d := model.DefaultSchema(model.LayoutSingle)
	fs.StringVar(&f.layout, "layout", "single", "lock layout: single (locks beside accounts) or tables (a lock table per attribute)")
	fs.StringVar(&f.table, "table", d.Table, "the account (record) table (layout tables: devices)")
	fs.StringVar(&f.pk, "pk", d.PK, "partition key attribute (layout tables: id)")
	fs.StringVar(&f.sk, "sk", d.SK, `sort key attribute; "" for none (layout tables: none)`)
	fs.StringVar(&f.accountPrefix, "account-prefix", d.AccountPrefix, `partition key prefix of account items (layout tables: "")`)
	fs.StringVar(&f.accountSK, "account-sk", d.AccountSK, "sort key of account items")
	fs.StringVar(&f.lockSK, "lock-sk", d.LockSK, "sort key of lock items")
	fs.StringVar(&f.owner, "owner-attr", d.OwnerAttr, "lock attribute naming the account that holds it")
	fs.StringArrayVar(&f.unique, "unique", nil, "unique attribute and its locks: ATTR=PREFIX or ATTR=@TABLE/KEYATTR (repeat; replaces the defaults email=UNIQ#EMAIL#, username=UNIQ#HANDLE#)")
	fs.StringArrayVar(&f.normalize, "normalize", nil, "ATTR=none|lower|casefold: how a value maps to its lock key (repeat; default none)")
	fs.StringArrayVar(&f.index, "index", nil, "ATTR=INDEX: a GSI of the account table keyed by ATTR (repeat)")
}

// schema builds the schema: the layout's defaults, refined by every flag
// the user set. Errors name the flag (exit 2).
func (f *schemaFlags) schema(fs *pflag.FlagSet) (model.Schema, error) {
	layout, err := model.ParseLayout(f.layout)
	if err != nil {
		return model.Schema{}, err
	}
	s := model.DefaultSchema(layout)
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
	if len(f.unique) > 0 {
		s.Constraints = nil
		for _, u := range f.unique {
			c, err := model.ParseUnique(u)
			if err != nil {
				return model.Schema{}, err
			}
			s.Constraints = append(s.Constraints, c)
		}
	}
	err = eachConstraint(&s, "normalize", f.normalize, func(c *model.Constraint, v string) error {
		n, err := model.ParseNormalization(v)
		c.Normalize = n
		return err
	})
	if err != nil {
		return model.Schema{}, err
	}
	err = eachConstraint(&s, "index", f.index, func(c *model.Constraint, v string) error {
		c.Index = v
		return nil
	})
	if err != nil {
		return model.Schema{}, err
	}
	return s, s.Validate()
}

// eachConstraint applies the ATTR=VALUE values of a repeated flag to the
// constraints they name.
func eachConstraint(s *model.Schema, flag string, values []string, apply func(*model.Constraint, string) error) error {
	for _, x := range values {
		attr, v, err := model.ParseAssignment(flag, x)
		if err != nil {
			return err
		}
		ci := s.Constraint(attr)
		if ci < 0 {
			return &model.FlagError{Flag: flag, Msg: "no unique attribute " + attr}
		}
		if err := apply(&s.Constraints[ci], v); err != nil {
			return err
		}
	}
	return nil
}
