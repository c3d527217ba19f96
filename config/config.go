// Package config reads locktable's config file of named targets and
// settles every flag's value by precedence: the command line, then a
// LOCKTABLE_<FLAG> environment variable, then the selected target, then
// the built-in default. It remembers where each value came from, down to
// the file and line.
//
// The file (PATTERN.md, "Config file (targets)"):
//
//	default: local
//	targets:
//	  local: {endpoint-url: http://localhost:8000, table: accounts}
//	keys: {quit: [q, ctrl+c]}
//	theme: dark
//	mouse: true
//	hide-columns: {accounts: [username], locks: [expires]}
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	yaml "go.yaml.in/yaml/v3"
)

// File is a config file as read: its targets in file order, the default
// target, and the terminal UI's preferences.
type File struct {
	Path  string // as given, or the default path
	Found bool   // the file exists (a missing default file is an empty config)

	Default     string // the target `default:` names; "" for none
	DefaultLine int

	Targets []Target

	// Theme is the terminal UI's colour scheme; ThemeLine is 0 when the
	// file does not set it.
	Theme     Theme
	ThemeLine int
	// Mouse turns on the terminal UI's mouse (click to select, the
	// wheel); off, the terminal keeps its own selection. MouseLine is 0
	// when the file does not set it.
	Mouse     bool
	MouseLine int
	// HiddenColumns are the columns the terminal UI hides, by view, in
	// file order (hide-columns:).
	HiddenColumns []HiddenColumns
	// Keys remaps key bindings by name, in file order. The terminal UI
	// applies them; the file only guarantees their shape.
	Keys []Binding

	// What editing the file in place needs: its bytes, the top mapping,
	// and the value node of `default:`.
	data         []byte
	root         *yaml.Node
	defaultValue *yaml.Node
}

// Target is one named set of settings.
type Target struct {
	Name     string
	Line     int
	Settings []Setting
}

// Setting is one key of a target: a long flag name and its value as the
// flag would be given on the command line, once per element of a list.
type Setting struct {
	Name   string
	Values []string
	Line   int
}

// Binding remaps one key binding of the terminal UI: its name (one of
// Spec.Bindings: the root's unqualified, "quit", "next-view"; a widget's
// qualified, "accounts.down", "dialog.save") and the keys that trigger it.
type Binding struct {
	Name string
	Keys []string
	Line int
}

// Theme is the terminal UI's colour scheme.
type Theme string

// The themes the file accepts.
const (
	ThemeAuto  Theme = "auto" // follow the terminal's background
	ThemeDark  Theme = "dark"
	ThemeLight Theme = "light"
)

// Spec says what a config file may contain and which flags settle from it.
type Spec struct {
	// Config and Target are the --config and --target flags: they choose
	// the file and the target, and cannot themselves be set in a target.
	Config, Target *pflag.Flag
	// Flags are every flag a target or the environment may set.
	Flags []*pflag.Flag
	// Bindings are the key binding names `keys:` may remap.
	Bindings []string
}

// kind returns the kind of value setting name takes, and whether a target
// may set it.
func (s Spec) kind(name string) (Kind, bool) {
	for _, f := range s.Flags {
		if f.Name == name {
			return KindOf(f), true
		}
	}
	return 0, false
}

// Kind is the type of value a flag takes, which fixes the YAML type a
// target must give it.
type Kind int

// The kinds of values.
const (
	String Kind = iota // a YAML string; every flag type not named below takes its text
	Bool
	Int
	List // a repeatable flag: a YAML list of strings
)

// KindOf returns the kind of value flag f takes.
func KindOf(f *pflag.Flag) Kind {
	switch f.Value.Type() {
	case "bool":
		return Bool
	case "int", "int32", "int64", "uint", "uint32", "uint64":
		return Int
	case "stringArray", "stringSlice":
		return List
	}
	return String
}

// Env looks up an environment variable, as os.LookupEnv does.
type Env func(name string) (string, bool)

// EnvName is the environment variable that sets flag name:
// LOCKTABLE_ENDPOINT_URL for endpoint-url.
func EnvName(name string) string {
	return "LOCKTABLE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// DefaultPath is where the config file is when --config does not say:
// $XDG_CONFIG_HOME/locktable/config.yaml, else the platform's config
// directory (~/.config on Linux, ~/Library/Application Support on macOS,
// %AppData% on Windows). "" when there is no home to look in.
func DefaultPath(env Env) string {
	dir, _ := env("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		var err error
		if dir, err = os.UserConfigDir(); err != nil {
			return ""
		}
	}
	return filepath.Join(dir, "locktable", "config.yaml")
}

// Error is a problem with a config file, at a line of it (0: the whole
// file).
type Error struct {
	Path string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Path + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}

// Load reads and checks the config file at path. A missing file is an
// empty config, unless must is set (the user named the file).
func Load(path string, must bool, spec Spec) (*File, error) {
	if path == "" {
		return &File{}, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !must {
		return &File{Path: path}, nil
	}
	if err != nil {
		return nil, &Error{Path: path, Msg: "cannot read the config file: " + unwrapPath(err)}
	}
	return Parse(path, data, spec)
}

// unwrapPath is a file error's reason without the path, which the caller
// names already.
func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Target returns the target named name, or nil.
func (f *File) Target(name string) *Target {
	for i := range f.Targets {
		if f.Targets[i].Name == name {
			return &f.Targets[i]
		}
	}
	return nil
}

// Names returns the targets' names in file order.
func (f *File) Names() []string {
	names := make([]string, len(f.Targets))
	for i, t := range f.Targets {
		names[i] = t.Name
	}
	return names
}

// Setting returns the setting named name, or nil.
func (t *Target) Setting(name string) *Setting {
	if t == nil {
		return nil
	}
	for i := range t.Settings {
		if t.Settings[i].Name == name {
			return &t.Settings[i]
		}
	}
	return nil
}
