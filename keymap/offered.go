package keymap

import (
	"slices"

	"charm.land/bubbles/v2/key"
)

// Offered reports whether b works where bs are the bindings as they work
// now: false when one of them has b's keys and is disabled.
func Offered(b key.Binding, bs ...key.Binding) bool {
	for _, w := range bs {
		if slices.Equal(w.Keys(), b.Keys()) {
			return w.Enabled()
		}
	}
	return true
}
