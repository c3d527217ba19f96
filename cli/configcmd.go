package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/locktable/locktable/config"
	"github.com/locktable/locktable/model"
)

func (a *app) targetCommand() *cobra.Command {
	var file *config.File
	cmd := &cobra.Command{
		Use:   "target",
		Short: "List the config file's targets, or choose the default one",
		Long: `A target is a named set of settings in the config file
($XDG_CONFIG_HOME/locktable/config.yaml, or --config): the endpoint, the
table, the schema, read-only... Pick one with --target NAME or
LOCKTABLE_TARGET, or make it the default with 'locktable target use NAME'.`,
		Example: `  locktable target list
  locktable target use prod
  locktable --config ./team.yaml target list`,
		GroupID: "setup",
		Args:    cobra.NoArgs,
		// The file is read, but no target applied: 'target use' must be
		// able to replace a default that names a target no longer there.
		PersistentPreRunE: func(*cobra.Command, []string) error {
			f, _, err := config.Open(a.spec(), os.LookupEnv)
			if err != nil {
				return &exitError{code: ExitError, err: err}
			}
			file = f
			return nil
		},
	}
	use := &cobra.Command{
		Use:               "use NAME",
		Short:             "Make NAME the default target: writes default: NAME into the config file, keeping the rest of it",
		Example:           "  locktable target use local\n  locktable target use prod && locktable check",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeTargets,
		RunE: func(_ *cobra.Command, args []string) error {
			if !file.Found {
				return usageErr("%s", noConfigFile(file))
			}
			if err := config.SetDefault(file.Path, args[0], a.spec()); err != nil {
				return &exitError{code: ExitError, err: err}
			}
			fmt.Fprintf(a.stdout, "default target: %s (%s)\n", model.Printable(args[0]), model.Printable(file.Path))
			if v := os.Getenv(config.EnvName("target")); v != "" && v != args[0] {
				fmt.Fprintf(a.stderr, "locktable: note: %s=%s still chooses %s while it is set\n", config.EnvName("target"), model.Printable(v), model.Printable(v))
			}
			return nil
		},
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the targets of the config file, with their settings; * marks the default",
		Example: "  locktable target list\n  LOCKTABLE_CONFIG=./team.yaml locktable target list",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if !file.Found || len(file.Targets) == 0 {
				msg := noConfigFile(file)
				if file.Found {
					msg = file.Path + " has no targets"
				}
				fmt.Fprintln(a.stderr, "locktable: "+model.Printable(msg))
				return nil
			}
			lists := map[string]bool{}
			for _, f := range a.spec().Flags {
				lists[f.Name] = config.KindOf(f) == config.List
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			for _, t := range file.Targets {
				mark := " "
				if t.Name == file.Default {
					mark = "*"
				}
				var settings []string
				for _, s := range t.Settings {
					text := listText(s.Values)
					if !lists[s.Name] {
						text = quote(s.Values[0])
					}
					settings = append(settings, s.Name+"="+text)
				}
				fmt.Fprintf(tw, "%s %s\t%s\n", mark, model.Printable(t.Name), strings.Join(settings, " "))
			}
			return tw.Flush()
		},
	}
	cmd.AddCommand(use, list)
	return cmd
}

// noConfigFile says that there is no config file, and where there would be.
func noConfigFile(f *config.File) string {
	if f.Path == "" {
		return "no config file: no home directory to look in (set XDG_CONFIG_HOME or pass --config)"
	}
	return "no config file at " + f.Path
}

// listText renders a list as `[a, b]`, each element printable.
func listText(values []string) string {
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = quote(v)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// shownSetting is one line of `config show`.
type shownSetting struct {
	Name  string `json:"name"`
	Group string `json:"group"`
	Value any    `json:"value"`
	config.Origin
}

func (a *app) configCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "config",
		Short:   "Show the settings in effect and where each came from",
		Example: "  locktable config show\n  locktable --target prod config show --json",
		GroupID: "setup",
		Args:    cobra.NoArgs,
	}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print every setting in effect and where it came from: flag, env LOCKTABLE_X, file:line (target), default",
		Long: `show prints every setting locktable would run with, after the command line,
the LOCKTABLE_<FLAG> environment variables, the selected target of the
config file and the built-in defaults have had their say, and where each
value came from. It reads no table.`,
		Example: `  locktable config show
  locktable --target prod config show
  LOCKTABLE_REGION=eu-west-1 locktable config show --json | jq '.settings[] | select(.source != "default")'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			shown := a.shownSettings()
			if asJSON {
				return writeJSON(a.stdout, struct {
					ConfigFound bool           `json:"config_found"`
					Settings    []shownSetting `json:"settings"`
				}{a.settings.File.Found, shown})
			}
			return writeShown(a, shown)
		},
	}
	show.Flags().BoolVar(&asJSON, "json", false, "print the settings as one JSON object")
	cmd.AddCommand(show)
	return cmd
}

// shownSettings lists every setting in effect, by group as help shows
// them, then the terminal UI's.
func (a *app) shownSettings() []shownSetting {
	s := a.settings
	flags := map[string]*pflag.Flag{}
	for _, f := range a.spec().Flags {
		flags[f.Name] = f
	}
	var out []shownSetting
	add := func(name, group string) {
		switch name {
		case "config":
			out = append(out, shownSetting{name, group, s.File.Path, s.FileFrom})
		case "target":
			target := ""
			if s.Target != nil {
				target = s.Target.Name
			}
			out = append(out, shownSetting{name, group, target, s.TargetFrom})
		default:
			if f := flags[name]; f != nil {
				out = append(out, shownSetting{name, group, a.shownValue(f, s.From[name]), s.From[name]})
				delete(flags, name)
			}
		}
	}
	for _, g := range flagGroups {
		for _, name := range g.flags {
			add(name, g.title)
		}
	}
	for _, f := range a.spec().Flags { // any flag no group names
		add(f.Name, "other")
	}
	theme := config.Origin{Source: config.FromDefault}
	if s.File.ThemeLine > 0 {
		theme = config.Origin{Source: config.FromFile, File: s.File.Path, Line: s.File.ThemeLine}
	}
	out = append(out, shownSetting{"theme", "terminal UI", string(s.File.Theme), theme})
	mouse := config.Origin{Source: config.FromDefault}
	if s.File.MouseLine > 0 {
		mouse = config.Origin{Source: config.FromFile, File: s.File.Path, Line: s.File.MouseLine}
	}
	out = append(out, shownSetting{"mouse", "terminal UI", s.File.Mouse, mouse})
	for _, b := range s.File.Keys {
		out = append(out, shownSetting{"keys." + b.Name, "terminal UI", b.Keys, config.Origin{Source: config.FromFile, File: s.File.Path, Line: b.Line}})
	}
	for _, h := range s.File.HiddenColumns {
		out = append(out, shownSetting{"hide-columns." + h.View, "terminal UI", h.Columns, config.Origin{Source: config.FromFile, File: s.File.Path, Line: h.Line}})
	}
	return out
}

// shownValue is a flag's value in effect. The schema's defaults depend on
// --layout, so a default there is the layout's, not the flag's.
func (a *app) shownValue(f *pflag.Flag, from config.Origin) any {
	if from.Source == config.FromDefault {
		layout, err := model.ParseLayout(a.schemaFlags.layout)
		if err != nil {
			layout = model.LayoutSingle
		}
		if v, ok := layoutDefault(f.Name, model.DefaultSchema(layout)); ok {
			return v
		}
	}
	switch config.KindOf(f) {
	case config.Bool:
		return f.Value.String() == "true"
	case config.Int:
		n, _ := strconv.Atoi(f.Value.String())
		return n
	case config.List:
		values := []string{}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = append(values, sv.GetSlice()...)
		}
		return values
	}
	return f.Value.String()
}

// layoutDefault is the default of a schema flag under schema d's layout.
func layoutDefault(flag string, d model.Schema) (any, bool) {
	switch flag {
	case "table":
		return d.Table, true
	case "pk":
		return d.PK, true
	case "sk":
		return d.SK, true
	case "account-prefix":
		return d.AccountPrefix, true
	case "account-sk":
		return d.AccountSK, true
	case "lock-sk":
		return d.LockSK, true
	case "owner-attr":
		return d.OwnerAttr, true
	case "unique":
		values := []string{}
		for _, c := range d.Constraints {
			if c.InAccountTable() {
				values = append(values, c.Attr+"="+c.Prefix)
			} else {
				values = append(values, c.Attr+"=@"+c.LockTable+"/"+c.KeyAttr)
			}
		}
		return values, true
	}
	return nil, false
}

// writeShown prints the settings as aligned lines under their groups.
func writeShown(a *app, shown []shownSetting) error {
	var buf strings.Builder
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	group := ""
	for _, s := range shown {
		if s.Group != group {
			group = s.Group
			fmt.Fprintf(tw, "%s\t\t\n", group) // cells, so that every group aligns alike
		}
		var value string
		switch v := s.Value.(type) {
		case string:
			value = quote(v)
			if s.Name == "config" && !a.settings.File.Found && v != "" {
				value += " (no such file)"
			}
		case []string:
			value = listText(v)
		default:
			value = fmt.Sprint(v)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Name, value, model.Printable(s.Origin.String()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := strings.Split(buf.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	_, err := io.WriteString(a.stdout, strings.Join(lines, "\n"))
	return err
}
