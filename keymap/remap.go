package keymap

import (
	"reflect"
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
)

// Names are the names a config file's `keys:` may remap: the KeyMap's
// bindings in kebab case (NextView is next-view).
func Names() []string {
	var names []string
	t := reflect.TypeFor[KeyMap]()
	for i := range t.NumField() {
		if f := t.Field(i); f.Type == reflect.TypeFor[key.Binding]() {
			names = append(names, kebab(f.Name))
		}
	}
	return names
}

// Remap gives the binding called name (see Names) the keys keys, keeping
// its help text but for the keys shown; false when there is no such
// binding.
func (km *KeyMap) Remap(name string, keys []string) bool {
	v := reflect.ValueOf(km).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type != reflect.TypeFor[key.Binding]() || kebab(f.Name) != name || len(keys) == 0 {
			continue
		}
		b := v.Field(i).Addr().Interface().(*key.Binding)
		b.SetKeys(keys...)
		b.SetHelp(strings.Join(keys, "/"), b.Help().Desc)
		return true
	}
	return false
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
