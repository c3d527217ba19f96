package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/pflag"
	yaml "go.yaml.in/yaml/v3"
)

// topKeys are the keys of the file's top mapping.
var topKeys = []string{"default", "targets", "keys", "theme", "mouse", "hide-columns"}

// Parse reads a config file's contents; path names it in errors. Every
// error names the line it is about.
func Parse(path string, data []byte, spec Spec) (*File, error) {
	f := &File{Path: path, Found: true, Theme: ThemeAuto, data: data}
	p := parser{path: path, spec: spec, merging: map[*yaml.Node]bool{}, merged: map[*yaml.Node][]pair{}}
	root, err := p.document(data)
	if err != nil || root == nil {
		return f, err
	}
	f.root = root
	pairs, err := p.pairs(root, "")
	if err != nil {
		return nil, err
	}
	for _, kv := range pairs {
		k, v := kv.key, kv.value
		switch k.Value {
		case "default":
			if isNull(v) {
				continue
			}
			if f.Default, err = p.name(v, "default: want a target name"); err != nil {
				return nil, err
			}
			f.DefaultLine, f.defaultValue = k.Line, kv.raw
		case "targets":
			if f.Targets, err = p.targets(v); err != nil {
				return nil, err
			}
		case "keys", "theme", "mouse", "hide-columns":
			if err := p.preference(f, k, v); err != nil {
				return nil, err
			}
		default:
			return nil, p.errorf(k, "unknown key %q%s (the file holds %s)", k.Value, suggest(k.Value, topKeys), strings.Join(topKeys, ", "))
		}
	}
	return f, nil
}

// preference reads into f one of the terminal UI's preferences: key k,
// of value v.
func (p *parser) preference(f *File, k, v *yaml.Node) error {
	var err error
	switch k.Value {
	case "keys":
		f.Keys, err = p.keys(v)
	case "theme":
		t, err := p.str(v, "theme: want auto, dark or light")
		if err != nil {
			return err
		}
		if f.Theme = Theme(t); !slices.Contains([]Theme{ThemeAuto, ThemeDark, ThemeLight}, f.Theme) {
			return p.errorf(v, "theme: %q is not auto, dark or light", t)
		}
		f.ThemeLine = k.Line
	case "mouse":
		var on bool
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&on) != nil {
			return p.errorf(v, "mouse: want true or false%s", not(v))
		}
		f.Mouse, f.MouseLine = on, k.Line
	case "hide-columns":
		f.HiddenColumns, err = p.hiddenColumns(v)
	}
	return err
}

// parser turns YAML nodes into a File, with errors at their line.
type parser struct {
	path    string
	spec    Spec
	merging map[*yaml.Node]bool   // mappings being merged (<<), against cycles
	merged  map[*yaml.Node][]pair // mappings merged, each expanded once
}

func (p *parser) errorf(n *yaml.Node, format string, a ...any) error {
	return &Error{Path: p.path, Line: n.Line, Msg: fmt.Sprintf(format, a...)}
}

// yamlLine strips the line from the YAML library's syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: (line \d+: )?`)

// document returns the file's top node, nil for an empty file.
func (p *parser) document(data []byte) (*yaml.Node, error) {
	docs, err := documents(data)
	if err != nil {
		msg := "not valid YAML: " + yamlLine.ReplaceAllString(err.Error(), "")
		return nil, &Error{Path: p.path, Line: syntaxLine(data), Msg: msg}
	}
	if len(docs) == 0 {
		return nil, nil
	}
	if len(docs) > 1 {
		return nil, p.errorf(docs[1], "a second YAML document: the config is one")
	}
	doc := docs[0]
	if len(doc.Content) == 0 {
		return nil, nil
	}
	root := deref(doc.Content[0])
	if isNull(root) {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, p.errorf(root, "want a mapping of %s", strings.Join(topKeys, ", "))
	}
	return root, nil
}

// documents parses every YAML document in data.
func documents(data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return docs, nil
		} else if err != nil {
			return nil, err
		}
		docs = append(docs, &doc)
	}
}

// syntaxLine finds the line of a syntax error. The YAML library's message
// names the line where the enclosing block began, not the offending one;
// the offending line is the one after the last prefix of the file that
// parses (a prefix that stops inside a flow list fails, but a later one
// that closes it parses again). Config files are short: a parse per line
// costs nothing.
func syntaxLine(data []byte) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	lastGood := 0
	for n := 1; n <= len(lines); n++ {
		if _, err := documents(bytes.Join(lines[:n], nil)); err == nil {
			lastGood = n
		}
	}
	return min(lastGood+1, len(lines))
}

// pair is one key and its value (aliases followed; raw as written).
type pair struct{ key, value, raw *yaml.Node }

// pairs returns a mapping's pairs in order, merge keys (<<: *base)
// expanded; keys written out win over merged ones. A key written twice is
// an error: YAML says so, and a silent winner would hide a typo. within
// prefixes errors ("target \"prod\": ").
func (p *parser) pairs(m *yaml.Node, within string) ([]pair, error) {
	var out, merged []pair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, raw := m.Content[i], m.Content[i+1]
		v := deref(raw)
		if k.Tag == "!!merge" {
			more, err := p.merge(v, within)
			if err != nil {
				return nil, err
			}
			merged = append(merged, more...)
			continue
		}
		if k = deref(k); k.Kind != yaml.ScalarNode || isNull(k) || k.Value == "" {
			return nil, p.errorf(k, "%sa key must be a name", within)
		}
		if first, ok := seen[k.Value]; ok {
			return nil, p.errorf(k, "%s%q is written twice (first at line %d)", within, k.Value, first.Line)
		}
		seen[k.Value] = k
		out = append(out, pair{k, v, raw})
	}
	for _, kv := range merged {
		if _, ok := seen[kv.key.Value]; !ok {
			seen[kv.key.Value] = kv.key
			out = append(out, kv)
		}
	}
	return out, nil
}

// merge expands the value of a merge key: a mapping or a list of them.
// A mapping that merges itself, directly or not, is an error; one merged
// many times is expanded once (aliases of aliases could otherwise make a
// small file take exponential time).
func (p *parser) merge(v *yaml.Node, within string) ([]pair, error) {
	switch v.Kind {
	case yaml.MappingNode:
		if done, ok := p.merged[v]; ok {
			return done, nil
		}
		if p.merging[v] {
			return nil, p.errorf(v, "%s<< merges a mapping into itself", within)
		}
		p.merging[v] = true
		defer delete(p.merging, v)
		out, err := p.pairs(v, within)
		p.merged[v] = out
		return out, err
	case yaml.SequenceNode:
		var out []pair
		for _, n := range v.Content {
			if n = deref(n); n.Kind != yaml.MappingNode {
				return nil, p.errorf(n, "%s<< takes a mapping or a list of them", within)
			}
			more, err := p.merge(n, within)
			if err != nil {
				return nil, err
			}
			out = append(out, more...)
		}
		return out, nil
	}
	return nil, p.errorf(v, "%s<< takes a mapping or a list of them", within)
}

// section returns the pairs of a top-level mapping (targets, keys); null
// is an empty one. want says what it maps.
func (p *parser) section(v *yaml.Node, name, want string) ([]pair, error) {
	if isNull(v) {
		return nil, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, p.errorf(v, "%s: want a mapping of %s", name, want)
	}
	return p.pairs(v, name+": ")
}

func (p *parser) targets(v *yaml.Node) ([]Target, error) {
	pairs, err := p.section(v, "targets", "target names to settings")
	if err != nil {
		return nil, err
	}
	var out []Target
	for _, kv := range pairs {
		t := Target{Name: kv.key.Value, Line: kv.key.Line}
		within := fmt.Sprintf("target %q: ", t.Name)
		switch {
		case isNull(kv.value):
		case kv.value.Kind != yaml.MappingNode:
			return nil, p.errorf(kv.value, "%swant a mapping of flag names to values", within)
		default:
			if t.Settings, err = p.settings(kv.value, within); err != nil {
				return nil, err
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// settings reads a target's keys: long flag names, each value of the type
// its flag takes.
func (p *parser) settings(m *yaml.Node, within string) ([]Setting, error) {
	pairs, err := p.pairs(m, within)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, f := range p.spec.Flags {
		names = append(names, f.Name)
	}
	var out []Setting
	for _, kv := range pairs {
		k, v := kv.key, kv.value
		kind, ok := p.spec.kind(k.Value)
		if !ok {
			for _, f := range []string{flagName(p.spec.Config), flagName(p.spec.Target)} {
				if k.Value == f && f != "" {
					return nil, p.errorf(k, "%s%q cannot be set in a target", within, k.Value)
				}
			}
			return nil, p.errorf(k, "%sunknown key %q%s", within, k.Value, suggest(k.Value, names))
		}
		s := Setting{Name: k.Value, Line: k.Line}
		if s.Values, err = p.value(v, kind, within+k.Value+": "); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// value reads a setting's value as the flag's text, one per list element.
func (p *parser) value(v *yaml.Node, kind Kind, within string) ([]string, error) {
	switch kind {
	case Bool:
		var b bool
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
			return nil, p.errorf(v, "%swant true or false%s", within, not(v))
		}
		return []string{strconv.FormatBool(b)}, nil
	case Int:
		var n int64
		if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&n) != nil {
			return nil, p.errorf(v, "%swant a whole number%s", within, not(v))
		}
		return []string{strconv.FormatInt(n, 10)}, nil
	case List:
		if v.Kind != yaml.SequenceNode {
			if v.Kind == yaml.ScalarNode && !isNull(v) {
				return nil, p.errorf(v, "%swant a list, like [%s]", within, v.Value)
			}
			return nil, p.errorf(v, "%swant a list of strings", within)
		}
		out := []string{}
		for _, e := range v.Content {
			s, err := p.str(deref(e), within+"want a list of strings")
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	s, err := p.str(v, within+"want a string")
	return []string{s}, err
}

// keys reads `keys:`, binding names to lists of keys.
func (p *parser) keys(v *yaml.Node) ([]Binding, error) {
	pairs, err := p.section(v, "keys", "binding names to lists of keys")
	if err != nil {
		return nil, err
	}
	var out []Binding
	for _, kv := range pairs {
		k, v := kv.key, kv.value
		if p.spec.Bindings != nil && !slices.Contains(p.spec.Bindings, k.Value) {
			return nil, p.errorf(k, "keys: unknown binding %q%s", k.Value, suggestBinding(k.Value, p.spec.Bindings))
		}
		b := Binding{Name: k.Value, Line: k.Line}
		within := "keys: " + k.Value + ": "
		if b.Keys, err = p.value(v, List, within); err != nil {
			return nil, err
		}
		if len(b.Keys) == 0 {
			return nil, p.errorf(v, "%swant at least one key", within)
		}
		if i := slices.Index(b.Keys, ""); i >= 0 {
			return nil, p.errorf(v.Content[i], "%sa key cannot be empty", within)
		}
		out = append(out, b)
	}
	return out, nil
}

// str reads a string scalar; a number, boolean or null is an error (want
// says what was expected), since a string flag given 2024 most likely
// meant "2024" and should say so.
func (p *parser) str(v *yaml.Node, want string) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		if v.Kind == yaml.ScalarNode && !isNull(v) {
			return "", p.errorf(v, "%s (quote it: %q)", want, v.Value)
		}
		return "", p.errorf(v, "%s", want)
	}
	return v.Value, nil
}

// name reads a target name: any non-empty scalar's text.
func (p *parser) name(v *yaml.Node, want string) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Value == "" {
		return "", p.errorf(v, "%s", want)
	}
	return v.Value, nil
}

// not quotes a scalar that was not what was wanted: `, not "yes"`.
func not(v *yaml.Node) string {
	if v.Kind != yaml.ScalarNode || isNull(v) {
		return ""
	}
	return fmt.Sprintf(", not %q", v.Value)
}

func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func flagName(f *pflag.Flag) string {
	if f == nil {
		return ""
	}
	return f.Name
}

// suggestBinding is suggest for a binding name, or else the widgets'
// bindings of that name: down is accounts.down, locks.down ...
func suggestBinding(s string, names []string) string {
	if hint := suggest(s, names); hint != "" {
		return hint
	}
	var named []string
	for _, n := range names {
		if _, b, ok := strings.Cut(n, "."); ok && b == s {
			named = append(named, strconv.Quote(n))
		}
	}
	if len(named) == 0 {
		return ""
	}
	return " (a view's bindings are named after it: " + strings.Join(named, ", ") + ")"
}

// suggest returns ` (did you mean "x"?)` for the candidate closest to s,
// when one is close enough to be a typo.
func suggest(s string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := levenshtein.ComputeDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}
