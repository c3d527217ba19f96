package cli

import "github.com/locktable/locktable/model"

// SchemaFlags renders s as the command-line flags that select it: what
// init proposes and saves, and what a census part's reader is told.
func SchemaFlags(s *model.Schema) []string {
	if s.Preset != "" {
		return presetFlags(s)
	}
	f := []string{"--layout", string(s.Layout), "--table", s.Table, "--pk", s.PK, "--sk", s.SK}
	if s.Layout == model.LayoutSingle {
		f = append(f, "--account-prefix", s.AccountPrefix, "--account-sk", s.AccountSK, "--lock-sk", s.LockSK)
	}
	f = append(f, "--owner-attr", s.OwnerAttr)
	if s.AccountType.Attr != "" {
		f = append(f, "--account-type", s.AccountType.Attr+"="+s.AccountType.Value)
	}
	for _, a := range s.LockAttrs {
		f = append(f, "--lock-attr", a.Attr+"="+a.Value)
	}
	if s.IDAttr != "" {
		f = append(f, "--id-attr", idAttrFlag(s))
	}
	for _, c := range s.Constraints {
		if c.InAccountTable() {
			f = append(f, "--unique", c.Attr+"="+c.Template())
		} else {
			f = append(f, "--unique", c.Attr+"=@"+c.LockTable+"/"+c.KeyAttr)
		}
		f = append(f, normalizeFlag(c)...)
	}
	return append(f, ttlFlags(s)...)
}

// idAttrFlag is the value of --id-attr that gives IDAttr and IDPrefix.
func idAttrFlag(s *model.Schema) string {
	if s.IDPrefix != "" {
		return s.IDAttr + "=" + s.IDPrefix
	}
	return s.IDAttr
}

// normalizeFlag is the --normalize of c, none when its values are kept
// as they are.
func normalizeFlag(c model.Constraint) []string {
	if c.Normalize == model.NormalizeNone {
		return nil
	}
	return []string{"--normalize", c.Attr + "=" + string(c.Normalize)}
}

// ttlFlags renders the TTL attributes: one --ttl-attr ATTR when the only
// table with one is the account table, TABLE=ATTR for each otherwise.
func ttlFlags(s *model.Schema) []string {
	var f []string
	for _, t := range s.Tables() {
		if a := s.TTLAttrOf(t); a != "" {
			f = append(f, "--ttl-attr", t+"="+a)
		}
	}
	if len(f) == 2 && s.TTLAttr != "" {
		f[1] = s.TTLAttr
	}
	return f
}

// presetFlags renders a preset's schema: the preset, the table, what the
// table told it (the accounts' sort key, the unique attributes) and what
// differs from the preset.
func presetFlags(s *model.Schema) []string {
	f := []string{"--preset", s.Preset, "--table", s.Table, "--account-sk", s.AccountSK}
	if s.AccountPrefix != "" {
		f = append(f, "--account-prefix", s.AccountPrefix)
	}
	if s.IDAttr != "" {
		f = append(f, "--id-attr", idAttrFlag(s))
	}
	for _, c := range s.Constraints {
		if (model.Preset{Schema: s}).Derived(c) {
			f = append(f, "--unique", c.Attr)
		} else {
			f = append(f, "--unique", c.Attr+"="+c.Template())
		}
		if lib, _, _ := model.ParsePreset(s.Preset); lib == model.LibElectroDB && c.Normalize == model.NormalizeNone {
			// ElectroDB lower-cases by default: keys as given are said.
			f = append(f, "--normalize", c.Attr+"="+string(c.Normalize))
			continue
		}
		f = append(f, normalizeFlag(c)...)
	}
	if s.OlderHead != "" {
		f = append(f, "--older-spelling", s.OlderHead)
	}
	if s.LockSpelling != "" {
		f = append(f, "--lock-spelling", s.LockSpelling)
	}
	if e := s.ConstraintEntity.String(); e != "" {
		f = append(f, "--constraint-entity", e)
	}
	return append(f, ttlFlags(s)...)
}
