package uitest

import (
	"reflect"

	tea "charm.land/bubbletea/v2"
)

// Sequence returns the commands of msg when it is what a tea.Sequence
// command returns (its type is unexported: a slice of commands, which the
// runtime runs in order, each message handled before the next starts).
func Sequence(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || v.Kind() != reflect.Slice || v.Type().Elem() != reflect.TypeFor[tea.Cmd]() {
		return nil, false
	}
	cmds := make([]tea.Cmd, v.Len())
	for i := range cmds {
		cmds[i], _ = v.Index(i).Interface().(tea.Cmd)
	}
	return cmds, true
}
