package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/locktable/locktable/config"
	"github.com/locktable/locktable/ui"
)

// unsettled are the flags that settle nothing: --config and --target
// choose the file and the target, help and version are not settings.
var unsettled = map[string]bool{"config": true, "target": true, "help": true, "version": true}

// flagGroup is a titled set of global flags, in the order help shows them.
type flagGroup struct {
	title string
	flags []string
}

// flagGroups orders the global flags in the root's help, in subcommands'
// summary of them, and in `config show`.
var flagGroups = []flagGroup{
	{"connection", []string{"endpoint-url", "region", "profile", "demo", "target", "config"}},
	{"schema", []string{"layout", "table", "pk", "sk", "account-prefix", "account-sk", "lock-sk", "owner-attr", "unique", "normalize", "index", "preset", "account-type", "scope", "lock-spelling", "older-spelling", "constraint-entity", "lock-attr", "id-attr", "ttl-attr"}},
	{"output", []string{"log-file", "audit-log", "json"}},
	{"safety", []string{"write", "read-only"}},
	{"scan", []string{"segments", "page-size", "max-rcu", "max-wcu", "accounts-index", "follow", "max-memory"}},
}

// spec says what the config file may hold: every flag of the root (the
// persistent ones and the terminal UI's own), and the key bindings.
func (a *app) spec() config.Spec {
	pf := a.cmd.PersistentFlags()
	s := config.Spec{Config: pf.Lookup("config"), Target: pf.Lookup("target"), Bindings: ui.BindingNames()}
	seen := map[string]bool{}
	add := func(f *pflag.Flag) {
		if !unsettled[f.Name] && !seen[f.Name] {
			seen[f.Name] = true
			s.Flags = append(s.Flags, f)
		}
	}
	pf.VisitAll(add)
	a.cmd.Flags().VisitAll(add)
	return s
}

// settle gives every flag the command line left unset its value from the
// environment or the selected target (config.Resolve), once.
func (a *app) settle() error {
	if a.settings != nil {
		return nil
	}
	s, err := config.Resolve(a.spec(), os.LookupEnv)
	if err != nil {
		return &exitError{code: ExitError, err: err}
	}
	a.settings = s
	a.theme, a.keys, a.mouse = s.File.Theme, s.File.Keys, s.File.Mouse
	return nil
}

// settles reports whether cmd runs with settled flags: every command but
// those that never read a setting (help, version, completion scripts),
// which then work even while the config file is broken.
func settles(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		switch c.Name() {
		case "help", "version", "completion", cobra.ShellCompRequestCmd:
			return false
		}
	}
	return true
}

// from says where a flag's value came from when that was not the command
// line, for error messages that name the flag: " (from LOCKTABLE_TABLE)",
// " (from config.yaml:7, target prod)".
func (a *app) from(flag string) string {
	if a.settings == nil {
		return ""
	}
	switch o := a.settings.From[flag]; o.Source {
	case config.FromEnv:
		return " (from " + o.Env + ")"
	case config.FromFile:
		return fmt.Sprintf(" (from %s:%d, target %s)", o.File, o.Line, o.Target)
	}
	return ""
}
