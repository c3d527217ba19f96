package config

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Source is where a value came from.
type Source string

// The sources, strongest first.
const (
	FromFlag    Source = "flag"
	FromEnv     Source = "env"
	FromFile    Source = "file"
	FromDefault Source = "default"
)

// Origin is where a value came from: the command line, an environment
// variable, a line of the config file (in a target, or at the top), or the
// built-in default.
type Origin struct {
	Source Source `json:"source"`
	Env    string `json:"env,omitempty"`
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Target string `json:"target,omitempty"`
}

// String renders the origin as `config show` prints it: "flag", "env
// LOCKTABLE_REGION", "/home/ada/.config/locktable/config.yaml:4 (target
// local)", "default".
func (o Origin) String() string {
	switch o.Source {
	case FromEnv:
		return "env " + o.Env
	case FromFile:
		s := fmt.Sprintf("%s:%d", o.File, o.Line)
		if o.Target != "" {
			s += " (target " + o.Target + ")"
		}
		return s
	}
	return string(o.Source)
}

// Settings is what settling the flags found: the config file, the target
// chosen, and where every flag's value came from.
type Settings struct {
	File       *File
	FileFrom   Origin  // how the file was chosen: flag, env or default
	Target     *Target // nil: no target
	TargetFrom Origin
	From       map[string]Origin // by flag name, for every flag of the spec
}

// Resolve reads the config file (--config, LOCKTABLE_CONFIG, else
// DefaultPath), chooses the target (--target, LOCKTABLE_TARGET, else the
// file's default), and gives every flag of spec that the command line
// left unset its value from its environment variable, else from the
// target; what neither sets keeps its default. Set flags count as changed,
// as if given on the command line.
func Resolve(spec Spec, env Env) (*Settings, error) {
	s := &Settings{From: map[string]Origin{}}
	file, from, err := Open(spec, env)
	if err != nil {
		return nil, err
	}
	s.File, s.FileFrom = file, from

	name, from := choose(spec.Target, env)
	if from.Source == FromDefault && file.Default != "" {
		name, from = file.Default, Origin{Source: FromFile, File: file.Path, Line: file.DefaultLine}
	}
	s.TargetFrom = from
	if name != "" {
		if s.Target = file.Target(name); s.Target == nil {
			return nil, noTarget(file, name, from)
		}
	}
	for _, f := range spec.Flags {
		if err := s.settle(f, env); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Open reads the config file that --config, else LOCKTABLE_CONFIG, names
// (it must exist), else the one at DefaultPath (it may be missing), and
// says which it was.
func Open(spec Spec, env Env) (*File, Origin, error) {
	path, from := choose(spec.Config, env)
	if from.Source == FromDefault {
		path = DefaultPath(env)
	}
	file, err := Load(path, from.Source != FromDefault, spec)
	return file, from, err
}

// choose returns the value of --config or --target from the command line,
// else from its environment variable, else "" and FromDefault.
func choose(f *pflag.Flag, env Env) (string, Origin) {
	if f == nil {
		return "", Origin{Source: FromDefault}
	}
	if f.Changed {
		return f.Value.String(), Origin{Source: FromFlag}
	}
	if v, _ := env(EnvName(f.Name)); v != "" {
		return v, Origin{Source: FromEnv, Env: EnvName(f.Name)}
	}
	return "", Origin{Source: FromDefault}
}

// noTarget says that the target name, chosen as from says, is not in the
// file.
func noTarget(f *File, name string, from Origin) error {
	var have string
	switch {
	case f.Path == "":
		have = "no config file (set XDG_CONFIG_HOME or pass --config)"
	case !f.Found:
		have = "no config file at " + f.Path
	default:
		have = fmt.Sprintf("no such target in %s (%s)", f.Path, f.targetList())
	}
	switch from.Source {
	case FromFile:
		return &Error{Path: f.Path, Line: from.Line, Msg: fmt.Sprintf("default: no target %q (%s)", name, f.targetList())}
	case FromEnv:
		return fmt.Errorf("%s=%s: %s", from.Env, name, have)
	}
	return fmt.Errorf("--target %s: %s", name, have)
}

// targetList says which targets the file has.
func (f *File) targetList() string {
	if len(f.Targets) == 0 {
		return "the file has no targets"
	}
	return "targets: " + strings.Join(f.Names(), ", ")
}

// settle gives flag f its value by precedence and records where it came
// from.
func (s *Settings) settle(f *pflag.Flag, env Env) error {
	if f.Changed {
		s.From[f.Name] = Origin{Source: FromFlag}
		return nil
	}
	name := EnvName(f.Name)
	if v, _ := env(name); v != "" {
		values, err := envValues(KindOf(f), v)
		if err == nil {
			err = set(f, values)
		}
		if err != nil {
			return fmt.Errorf("%s=%q: %v", name, v, err)
		}
		s.From[f.Name] = Origin{Source: FromEnv, Env: name}
		return nil
	}
	if st := s.Target.Setting(f.Name); st != nil && len(st.Values) > 0 {
		if err := set(f, st.Values); err != nil {
			return &Error{Path: s.File.Path, Line: st.Line, Msg: fmt.Sprintf("target %q: %s: %v", s.Target.Name, f.Name, err)}
		}
		s.From[f.Name] = Origin{Source: FromFile, File: s.File.Path, Line: st.Line, Target: s.Target.Name}
		return nil
	}
	s.From[f.Name] = Origin{Source: FromDefault}
	return nil
}

// envValues reads an environment variable's value as the flag's text: a
// list is comma-separated (CSV: quote an element that holds a comma).
func envValues(kind Kind, v string) ([]string, error) {
	switch kind {
	case Bool:
		if _, err := strconv.ParseBool(v); err != nil {
			return nil, fmt.Errorf("want true or false")
		}
	case Int:
		if _, err := strconv.ParseInt(v, 0, 64); err != nil {
			return nil, fmt.Errorf("want a whole number")
		}
	case List:
		r := csv.NewReader(strings.NewReader(v))
		r.TrimLeadingSpace = true
		values, err := r.Read()
		if err != nil {
			return nil, fmt.Errorf("want a comma-separated list: %v", err)
		}
		for i := range values {
			values[i] = strings.TrimSpace(values[i])
		}
		return values, nil
	}
	return []string{v}, nil
}

// set sets the flag to values (one per element of a list) and marks it
// changed, as the command line would.
func set(f *pflag.Flag, values []string) error {
	for _, v := range values {
		if err := f.Value.Set(v); err != nil {
			return err
		}
	}
	f.Changed = true
	return nil
}
