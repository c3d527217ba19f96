package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/locktable/locktable/config"
)

// flags is a flag set shaped like locktable's: a flag of every kind.
type flags struct {
	fs                          *pflag.FlagSet
	endpoint, table, sk, config string
	target                      string
	readOnly                    bool
	segments                    int
	unique                      []string
}

func newFlags(t *testing.T, args ...string) *flags {
	t.Helper()
	f := &flags{fs: pflag.NewFlagSet("locktable", pflag.ContinueOnError)}
	f.fs.StringVar(&f.endpoint, "endpoint-url", "", "")
	f.fs.StringVar(&f.table, "table", "accounts", "")
	f.fs.StringVar(&f.sk, "sk", "SK", "")
	f.fs.BoolVar(&f.readOnly, "read-only", false, "")
	f.fs.IntVar(&f.segments, "segments", 4, "")
	f.fs.StringArrayVar(&f.unique, "unique", nil, "")
	f.fs.StringVar(&f.config, "config", "", "")
	f.fs.StringVar(&f.target, "target", "", "")
	if err := f.fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *flags) spec() config.Spec {
	s := config.Spec{Config: f.fs.Lookup("config"), Target: f.fs.Lookup("target"), Bindings: []string{"quit", "next-view", "accounts.down", "locks.down", "dialog.save"}}
	for _, n := range []string{"endpoint-url", "table", "sk", "read-only", "segments", "unique"} {
		s.Flags = append(s.Flags, f.fs.Lookup(n))
	}
	return s
}

// env is a fake environment.
type env map[string]string

func (e env) lookup(k string) (string, bool) { v, ok := e[k]; return v, ok }

func parse(t *testing.T, text string) (*config.File, error) {
	t.Helper()
	return config.Parse("config.yaml", []byte(text), newFlags(t).spec())
}

func TestParse(t *testing.T) {
	const full = `# targets
default: local
targets:
  local:
    endpoint-url: http://localhost:8000
    table: accounts
  prod:
    read-only: true
    segments: 8
    sk: ""
    unique: [email=UNIQ#EMAIL#, "a=x,y"]
keys: { quit: [q, ctrl+c] }
theme: dark
mouse: true
`
	f, err := parse(t, full)
	if err != nil {
		t.Fatal(err)
	}
	want := []config.Target{
		{Name: "local", Line: 4, Settings: []config.Setting{
			{Name: "endpoint-url", Values: []string{"http://localhost:8000"}, Line: 5},
			{Name: "table", Values: []string{"accounts"}, Line: 6}}},
		{Name: "prod", Line: 7, Settings: []config.Setting{
			{Name: "read-only", Values: []string{"true"}, Line: 8},
			{Name: "segments", Values: []string{"8"}, Line: 9},
			{Name: "sk", Values: []string{""}, Line: 10},
			{Name: "unique", Values: []string{"email=UNIQ#EMAIL#", "a=x,y"}, Line: 11}}},
	}
	if !reflect.DeepEqual(f.Targets, want) {
		t.Errorf("targets:\n got %+v\nwant %+v", f.Targets, want)
	}
	if f.Default != "local" || f.DefaultLine != 2 || f.Theme != config.ThemeDark || f.ThemeLine != 13 {
		t.Errorf("default %q line %d, theme %q line %d", f.Default, f.DefaultLine, f.Theme, f.ThemeLine)
	}
	if !f.Mouse || f.MouseLine != 14 {
		t.Errorf("mouse %v line %d, want true at line 14", f.Mouse, f.MouseLine)
	}
	if want := []config.Binding{{Name: "quit", Keys: []string{"q", "ctrl+c"}, Line: 12}}; !reflect.DeepEqual(f.Keys, want) {
		t.Errorf("keys %+v, want %+v", f.Keys, want)
	}

	for _, text := range []string{"", "# nothing yet\n", "---\n", "~\n", "targets:\n"} {
		f, err := parse(t, text)
		if err != nil || len(f.Targets) != 0 || f.Default != "" || f.Theme != config.ThemeAuto || f.Mouse {
			t.Errorf("%q: %+v, %v; want an empty config with theme auto", text, f, err)
		}
	}

	// Anchors and merge keys share settings between targets; what a
	// target writes out wins.
	f, err = parse(t, `targets:
  base: &base
    endpoint-url: http://localhost:8000
    table: accounts
  other:
    <<: *base
    table: other
  empty:
`)
	if err != nil {
		t.Fatal(err)
	}
	other := f.Target("other")
	if got := other.Setting("table").Values; !reflect.DeepEqual(got, []string{"other"}) {
		t.Errorf("other's table %v, want [other]", got)
	}
	if s := other.Setting("endpoint-url"); s == nil || s.Values[0] != "http://localhost:8000" || s.Line != 3 {
		t.Errorf("other's merged endpoint-url %+v, want line 3", s)
	}
	if e := f.Target("empty"); e == nil || len(e.Settings) != 0 {
		t.Errorf("empty target: %+v", e)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"unknown key in a target", "targets:\n  prod:\n    endpoint-url: x\n\n\n\n    tabel: accounts\n",
			`config.yaml:7: target "prod": unknown key "tabel" (did you mean "table"?)`},
		{"unknown top key", "target: local\n", `config.yaml:1: unknown key "target" (did you mean "targets"?)`},
		{"string for a bool", "targets:\n  p:\n    read-only: yes please\n", `config.yaml:3: target "p": read-only: want true or false, not "yes please"`},
		{"string for an int", "targets:\n  p:\n    segments: four\n", `config.yaml:3: target "p": segments: want a whole number, not "four"`},
		{"number for a string", "targets:\n  p:\n    table: 2024\n", `config.yaml:3: target "p": table: want a string (quote it: "2024")`},
		{"null for a string", "targets:\n  p:\n    table:\n", `config.yaml:3: target "p": table: want a string`},
		{"string for a list", "targets:\n  p:\n    unique: email=E#\n", `config.yaml:3: target "p": unique: want a list, like [email=E#]`},
		{"map in a list", "targets:\n  p:\n    unique:\n      - {a: b}\n", `config.yaml:4: target "p": unique: want a list of strings`},
		{"target not a map", "targets:\n  p: [a]\n", `config.yaml:2: target "p": want a mapping of flag names to values`},
		{"targets not a map", "targets: [a, b]\n", `config.yaml:1: targets: want a mapping`},
		{"config in a target", "targets:\n  p:\n    config: x.yaml\n", `config.yaml:3: target "p": "config" cannot be set in a target`},
		{"target in a target", "targets:\n  p:\n    target: q\n", `config.yaml:3: target "p": "target" cannot be set in a target`},
		{"key twice", "targets:\n  p:\n    table: a\n    table: b\n", `config.yaml:4: target "p": "table" is written twice (first at line 3)`},
		{"target twice", "targets:\n  p: {}\n  p: {}\n", `config.yaml:3: targets: "p" is written twice (first at line 2)`},
		{"theme", "theme: blue\n", `config.yaml:1: theme: "blue" is not auto, dark or light`},
		{"unknown binding", "keys:\n  qiut: [q]\n", `config.yaml:2: keys: unknown binding "qiut" (did you mean "quit"?)`},
		{"unknown widget binding", "keys:\n  dialog.sav: [ctrl+s]\n", `config.yaml:2: keys: unknown binding "dialog.sav" (did you mean "dialog.save"?)`},
		{"widget binding unqualified", "keys:\n  down: [x]\n",
			`config.yaml:2: keys: unknown binding "down" (a view's bindings are named after it: "accounts.down", "locks.down")`},
		{"binding not a list", "keys:\n  quit: q\n", `config.yaml:2: keys: quit: want a list, like [q]`},
		{"binding without keys", "keys:\n  quit: []\n", `config.yaml:2: keys: quit: want at least one key`},
		{"default a list", "default: [a]\n", `config.yaml:1: default: want a target name`},
		{"not a mapping", "- a\n- b\n", `config.yaml:1: want a mapping of default, targets, keys, theme, mouse, hide-columns`},
		{"hide-columns of no view", "hide-columns:\n  acounts: [email]\n", `config.yaml:2: hide-columns: unknown view "acounts" (did you mean "accounts"?) (the views are accounts, locks, problems, items)`},
		{"hide-columns not a list", "hide-columns: {locks: owner}\n", `config.yaml:1: hide-columns: locks: want a list, like [owner]`},
		{"hide-columns an empty name", "hide-columns: {locks: [owner, \"\"]}\n", `config.yaml:1: hide-columns: locks: "" is not a column name`},
		{"hide-columns not a mapping", "hide-columns: [owner]\n", `config.yaml:1: hide-columns: want a mapping of views (accounts, locks, problems, items) to lists of columns`},
		{"mouse a word", "mouse: on\n", `config.yaml:1: mouse: want true or false, not "on"`},
		{"mouse quoted", "mouse: \"true\"\n", `config.yaml:1: mouse: want true or false, not "true"`},
		{"mouse a number", "mouse: 1\n", `config.yaml:1: mouse: want true or false, not "1"`},
		{"mouse a list", "mouse: [true]\n", `config.yaml:1: mouse: want true or false`},
		{"mouse null", "mouse:\n", `config.yaml:1: mouse: want true or false`},
		{"mouse misspelt", "mosue: true\n", `config.yaml:1: unknown key "mosue" (did you mean "mouse"?)`},
		{"syntax", "targets:\n  p:\n    table: a\n   bad: [\n", `config.yaml:4: not valid YAML`},
		{"syntax, a flow list over lines", "targets:\n  p:\n    unique: [a,\n      b]\n    table: a\n  q: {\n", `config.yaml:6: not valid YAML`},
		{"tab indentation", "targets:\n\tp: {}\n", `config.yaml:2: not valid YAML`},
		{"a mapping merged into itself", "targets:\n  base: &b\n    <<: *b\n", `config.yaml:2: target "base": << merges a mapping into itself`},
		{"two documents", "theme: dark\n---\ntheme: light\n", `config.yaml:2: a second YAML document`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(t, c.text)
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T), want a *config.Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error\n  %s\nwant it to start with\n  %s", err, c.want)
			}
		})
	}
}

// write puts a config file in a fresh directory and returns its path.
func write(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const twoTargets = `default: local
targets:
  local:
    endpoint-url: http://localhost:8000
    table: accounts
    unique: [email=T#]
  prod:
    table: prod-accounts
    read-only: true
    segments: 16
`

func TestResolvePrecedence(t *testing.T) {
	path := write(t, twoTargets)
	file := func(line int, target string) config.Origin {
		return config.Origin{Source: config.FromFile, File: path, Line: line, Target: target}
	}
	flag, def := config.Origin{Source: config.FromFlag}, config.Origin{Source: config.FromDefault}
	envOf := func(name string) config.Origin { return config.Origin{Source: config.FromEnv, Env: name} }
	cases := []struct {
		name   string
		args   []string
		env    env
		target string
		table  string
		unique []string
		from   map[string]config.Origin
	}{
		{name: "the default target", args: []string{"--config", path},
			target: "local", table: "accounts", unique: []string{"email=T#"},
			from: map[string]config.Origin{"table": file(5, "local"), "unique": file(6, "local"), "endpoint-url": file(4, "local"), "read-only": def}},
		{name: "env over target", args: []string{"--config", path},
			env:    env{"LOCKTABLE_TABLE": "from-env", "LOCKTABLE_UNIQUE": "a=A#, b=B#"},
			target: "local", table: "from-env", unique: []string{"a=A#", "b=B#"},
			from: map[string]config.Origin{"table": envOf("LOCKTABLE_TABLE"), "unique": envOf("LOCKTABLE_UNIQUE"), "sk": def}},
		{name: "flag over env over target", args: []string{"--config", path, "--table", "from-flag", "--unique", "f=F#"},
			env:    env{"LOCKTABLE_TABLE": "from-env", "LOCKTABLE_UNIQUE": "a=A#"},
			target: "local", table: "from-flag", unique: []string{"f=F#"},
			from: map[string]config.Origin{"table": flag, "unique": flag}},
		{name: "--target over LOCKTABLE_TARGET over default", args: []string{"--config", path, "--target", "prod"},
			env:    env{"LOCKTABLE_TARGET": "nosuch"},
			target: "prod", table: "prod-accounts",
			from: map[string]config.Origin{"table": file(8, "prod"), "read-only": file(9, "prod"), "segments": file(10, "prod"), "unique": def, "endpoint-url": def}},
		{name: "LOCKTABLE_TARGET over default", args: []string{"--config", path},
			env:    env{"LOCKTABLE_TARGET": "prod"},
			target: "prod", table: "prod-accounts",
			from: map[string]config.Origin{"table": file(8, "prod")}},
		{name: "LOCKTABLE_CONFIG", env: env{"LOCKTABLE_CONFIG": path},
			target: "local", table: "accounts", unique: []string{"email=T#"},
			from: map[string]config.Origin{"table": file(5, "local")}},
		{name: "no file: built-in defaults", env: env{"XDG_CONFIG_HOME": t.TempDir()},
			table: "accounts",
			from:  map[string]config.Origin{"table": def, "segments": def}},
		{name: "an empty variable is unset", args: []string{"--config", path}, env: env{"LOCKTABLE_TABLE": ""},
			target: "local", table: "accounts", unique: []string{"email=T#"},
			from: map[string]config.Origin{"table": file(5, "local")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFlags(t, c.args...)
			if c.env == nil {
				c.env = env{}
			}
			if _, ok := c.env["XDG_CONFIG_HOME"]; !ok {
				c.env["XDG_CONFIG_HOME"] = t.TempDir() // never the developer's own
			}
			s, err := config.Resolve(f.spec(), c.env.lookup)
			if err != nil {
				t.Fatal(err)
			}
			if got := ""; s.Target != nil {
				got = s.Target.Name
				if got != c.target {
					t.Errorf("target %q, want %q", got, c.target)
				}
			} else if c.target != "" {
				t.Errorf("no target, want %q", c.target)
			}
			if f.table != c.table || !reflect.DeepEqual(f.unique, c.unique) {
				t.Errorf("table %q unique %q, want %q %q", f.table, f.unique, c.table, c.unique)
			}
			for name, want := range c.from {
				if got := s.From[name]; got != want {
					t.Errorf("%s from %v, want %v", name, got, want)
				}
			}
			if len(s.From) != len(f.spec().Flags) {
				t.Errorf("origins for %d flags, want all %d", len(s.From), len(f.spec().Flags))
			}
		})
	}
	// Values the target set count as set, as on the command line (the
	// schema lets a set --table override the layout's default).
	f := newFlags(t, "--config", path, "--target", "prod")
	if _, err := config.Resolve(f.spec(), env{}.lookup); err != nil {
		t.Fatal(err)
	}
	if !f.fs.Changed("table") || !f.readOnly || f.segments != 16 || f.fs.Changed("sk") {
		t.Errorf("after prod: table changed %v, read-only %v, segments %d, sk changed %v", f.fs.Changed("table"), f.readOnly, f.segments, f.fs.Changed("sk"))
	}
}

func TestResolveErrors(t *testing.T) {
	path := write(t, twoTargets)
	dangling := write(t, "theme: dark\ndefault: gone\ntargets:\n  a: {}\n")
	empty := t.TempDir()
	cases := []struct {
		name string
		args []string
		env  env
		want string
	}{
		{"--target unknown", []string{"--config", path, "--target", "nosuch"}, nil, "--target nosuch: no such target in " + path + " (targets: local, prod)"},
		{"LOCKTABLE_TARGET unknown", []string{"--config", path}, env{"LOCKTABLE_TARGET": "nosuch"}, "LOCKTABLE_TARGET=nosuch: no such target"},
		{"default unknown", []string{"--config", dangling}, nil, dangling + `:2: default: no target "gone" (targets: a)`},
		{"--target without a file", []string{"--target", "local"}, nil, "--target local: no config file at " + filepath.Join(empty, "locktable", "config.yaml")},
		{"--config missing", []string{"--config", filepath.Join(empty, "nope.yaml")}, nil, filepath.Join(empty, "nope.yaml") + ": cannot read the config file: no such file or directory"},
		{"LOCKTABLE_CONFIG missing", nil, env{"LOCKTABLE_CONFIG": filepath.Join(empty, "nope.yaml")}, "cannot read the config file"},
		{"bad bool", []string{"--config", path}, env{"LOCKTABLE_READ_ONLY": "maybe"}, `LOCKTABLE_READ_ONLY="maybe": want true or false`},
		{"bad int", []string{"--config", path}, env{"LOCKTABLE_SEGMENTS": "many"}, `LOCKTABLE_SEGMENTS="many": want a whole number`},
		{"bad list", []string{"--config", path}, env{"LOCKTABLE_UNIQUE": `"a`}, `LOCKTABLE_UNIQUE="\"a": want a comma-separated list`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.env == nil {
				c.env = env{}
			}
			c.env["XDG_CONFIG_HOME"] = empty
			_, err := config.Resolve(newFlags(t, c.args...).spec(), c.env.lookup)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestDefaultPath(t *testing.T) {
	if got := config.DefaultPath(env{"XDG_CONFIG_HOME": "/xdg"}.lookup); got != filepath.Join("/xdg", "locktable", "config.yaml") {
		t.Errorf("with XDG_CONFIG_HOME: %s", got)
	}
	// A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/ada")
	dir, err := os.UserConfigDir()
	if err != nil {
		t.Skip(err)
	}
	if got := config.DefaultPath(env{"XDG_CONFIG_HOME": "rel"}.lookup); got != filepath.Join(dir, "locktable", "config.yaml") {
		t.Errorf("relative XDG_CONFIG_HOME: %s, want under %s", got, dir)
	}
}

func TestEnvName(t *testing.T) {
	for flag, want := range map[string]string{"endpoint-url": "LOCKTABLE_ENDPOINT_URL", "read-only": "LOCKTABLE_READ_ONLY", "table": "LOCKTABLE_TABLE"} {
		if got := config.EnvName(flag); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", flag, got, want)
		}
	}
}
