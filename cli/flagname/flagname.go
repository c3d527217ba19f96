// Package flagname says the settings of a schema as the command line
// names them: the flag that sets each model.SchemaField. Package cli
// parses those flags and words the errors and hints of model in them;
// the TUI, started by the same command line, words its hints alike.
package flagname

import "github.com/locktable/locktable/model"

// names are the flags that set each field of the schema.
var names = map[model.SchemaField]string{
	model.FieldLayout:           "layout",
	model.FieldTable:            "table",
	model.FieldPK:               "pk",
	model.FieldSK:               "sk",
	model.FieldAccountPrefix:    "account-prefix",
	model.FieldAccountSK:        "account-sk",
	model.FieldLockSK:           "lock-sk",
	model.FieldOwnerAttr:        "owner-attr",
	model.FieldConstraints:      "unique",
	model.FieldNormalize:        "normalize",
	model.FieldIndex:            "index",
	model.FieldScope:            "scope",
	model.FieldAccountType:      "account-type",
	model.FieldLockAttrs:        "lock-attr",
	model.FieldIDAttr:           "id-attr",
	model.FieldPreset:           "preset",
	model.FieldTTLAttr:          "ttl-attr",
	model.FieldLockSpelling:     "lock-spelling",
	model.FieldOlderHead:        "older-spelling",
	model.FieldConstraintEntity: "constraint-entity",
}

// Of is the flag that sets field f, without its dashes.
func Of(f model.SchemaField) string {
	if name, ok := names[f]; ok {
		return name
	}
	return string(f)
}

// Say is the flag that sets field f as a user types it: --account-prefix.
func Say(f model.SchemaField) string { return "--" + Of(f) }
