package keymap

import (
	"reflect"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
)

// Names are the names Remap knows in km, a pointer to a struct of
// bindings: each key.Binding field in kebab case (NextView is next-view),
// a struct field's under its own name and a dot (Dialog.Save is
// dialog.save). An embedded struct's bindings, and those of a field tagged
// `keys:""`, are named as if they were the outer struct's.
func Names(km any) []string {
	var names []string
	walk(reflect.ValueOf(km).Elem(), "", func(name string, _ *key.Binding) { names = append(names, name) })
	return names
}

// Remap gives the binding of km called name (see Names) the keys keys,
// keeping its help text but for the keys shown; false when there is no
// such binding, or no keys.
func Remap(km any, name string, keys []string) bool {
	found := false
	walk(reflect.ValueOf(km).Elem(), "", func(n string, b *key.Binding) {
		if n != name || len(keys) == 0 {
			return
		}
		b.SetKeys(keys...)
		b.SetHelp(strings.Join(keys, "/"), b.Help().Desc)
		found = true
	})
	return found
}

// walk calls f with the name and address of each binding in the struct v,
// its names prefixed by prefix.
func walk(v reflect.Value, prefix string, f func(name string, b *key.Binding)) {
	t := v.Type()
	for i := range t.NumField() {
		field := t.Field(i)
		if !field.IsExported() {
			continue
		}
		switch {
		case field.Type == reflect.TypeFor[key.Binding]():
			f(prefix+kebab(field.Name), v.Field(i).Addr().Interface().(*key.Binding))
		case field.Type.Kind() == reflect.Struct:
			inner := prefix + kebab(field.Name) + "."
			if tag, ok := field.Tag.Lookup("keys"); field.Anonymous || ok && tag == "" {
				inner = prefix
			}
			walk(v.Field(i), inner, f)
		}
	}
}

func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
