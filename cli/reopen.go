package cli

import (
	"github.com/spf13/pflag"

	"github.com/locktable/locktable/config"
	"github.com/locktable/locktable/ui"
)

// keptOnTarget are the command line's flags a switch of target keeps:
// which config file, and the safety and output flags; every other value
// is the new target's.
var keptOnTarget = map[string]bool{"config": true, "read-only": true, "audit-log": true, "log-file": true}

// reopenArgs is the command line that opens what the UI asked for in r
// (:table, :target): the one given with --table replaced, or, for a
// target, --target and the flags of keptOnTarget alone.
func (a *app) reopenArgs(r ui.Reopen) []string {
	var args []string
	a.cmd.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		switch {
		case !a.onCommandLine(f):
		case r.Target != "" && !keptOnTarget[f.Name]:
		case r.Table != "" && f.Name == "table":
		default:
			args = append(args, flagArgs(f)...)
		}
	})
	a.cmd.Flags().VisitAll(func(f *pflag.Flag) { // the UI's own (--accounts-index)
		if r.Table != "" && a.onCommandLine(f) && a.cmd.PersistentFlags().Lookup(f.Name) == nil {
			args = append(args, flagArgs(f)...)
		}
	})
	if r.Target != "" {
		return append(args, "--target="+r.Target)
	}
	return append(args, "--table="+r.Table)
}

// onCommandLine reports whether flag f was given on the command line
// (settle marks those a target or the environment set as changed too).
func (a *app) onCommandLine(f *pflag.Flag) bool {
	if !f.Changed {
		return false
	}
	if unsettled[f.Name] || a.settings == nil {
		return true
	}
	from, ok := a.settings.From[f.Name]
	return !ok || from.Source == config.FromFlag
}

// flagArgs is flag f as the command line gives it, once per element of a
// list.
func flagArgs(f *pflag.Flag) []string {
	if s, ok := f.Value.(pflag.SliceValue); ok {
		var out []string
		for _, v := range s.GetSlice() {
			out = append(out, "--"+f.Name+"="+v)
		}
		return out
	}
	return []string{"--" + f.Name + "=" + f.Value.String()}
}
