package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	yaml "go.yaml.in/yaml/v3"
)

// Entry is one key of a target as AddTarget writes it: a long flag name
// and its value, or values for a repeatable flag.
type Entry struct {
	Key    string
	Values []string
	List   bool // a repeatable flag: written as a list even with one value
}

// AddTarget writes a new target name with entries into the config file at
// path, creating the file (and its directory, 0700) when there is none.
// An existing file keeps its targets, and its comments; a target of that
// name already there is an error, as is a result that does not parse.
func AddTarget(path, name string, entries []Entry, spec Spec) error {
	data, doc, prefix, err := readForAdd(path, name, spec)
	if err != nil {
		return err
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return &Error{Path: path, Msg: "the file is not a mapping"}
	}
	targets := targetsOf(root)
	if targets.Kind != yaml.MappingNode {
		return &Error{Path: path, Msg: "targets: is not a mapping"}
	}
	targets.Style = 0 // block style, whatever it was
	targets.Content = append(targets.Content, str(name), targetNode(entries))
	return writeDoc(path, data, prefix, doc, spec, "the new target")
}

// writeDoc writes the node tree doc, under prefix, as the config file at
// path (data: its text, nil where there was none: it is created), once it
// reads back; what names what changed, for the error where it does not.
func writeDoc(path string, data, prefix []byte, doc *yaml.Node, spec Spec, what string) error {
	body, err := encode(doc)
	if err != nil {
		return &Error{Path: path, Msg: err.Error()}
	}
	out := append(prefix, body...)
	if _, err := Parse(path, out, spec); err != nil {
		return &Error{Path: path, Msg: what + " does not read back: " + err.Error()}
	}
	if data == nil {
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			return &Error{Path: path, Msg: unwrapPath(err)}
		}
	}
	return writeFile(path, out)
}

// readForAdd reads the config file at path, refusing one that does not
// parse or already has a target name, into its node tree doc. data is
// nil where there is no file yet (its directory is made then); prefix is
// the text of a file of nothing but comments, which the encoder would
// drop, to be kept above the new document.
func readForAdd(path, name string, spec Spec) (data []byte, doc *yaml.Node, prefix []byte, err error) {
	data, err = os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, nil, nil, &Error{Path: path, Msg: unwrapPath(err)}
		}
		return nil, emptyDoc(), nil, nil
	case err != nil:
		return nil, nil, nil, &Error{Path: path, Msg: unwrapPath(err)}
	}
	f, err := Parse(path, data, spec)
	if err != nil {
		return nil, nil, nil, err
	}
	if f.Target(name) != nil {
		return nil, nil, nil, &Error{Path: path, Msg: fmt.Sprintf("a target %q is there already: choose another name, or edit it", name)}
	}
	doc = &yaml.Node{}
	if err := yaml.Unmarshal(data, doc); err != nil {
		return nil, nil, nil, &Error{Path: path, Msg: err.Error()}
	}
	if len(doc.Content) == 0 { // nothing but comments: keep them above
		prefix = data
		if len(prefix) > 0 && !bytes.HasSuffix(prefix, []byte("\n")) {
			prefix = append(prefix, '\n')
		}
		return data, emptyDoc(), prefix, nil
	}
	return data, doc, nil, nil
}

// emptyDoc is a document of one empty mapping.
func emptyDoc() *yaml.Node {
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
}

// str is a node of the string v, tagged so that a value such as "true"
// or "8000" stays a string.
func str(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

// targetsOf is the value of the root mapping's targets key (the last one,
// as the parser reads it), added empty where there is none.
func targetsOf(root *yaml.Node) *yaml.Node { return mappingOf(root, "targets") }

// mappingOf is the value of the root mapping's key (the last one, as the
// parser reads it), added as an empty mapping where there is none.
func mappingOf(root *yaml.Node, key string) *yaml.Node {
	var v *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			v = root.Content[i+1]
		}
	}
	if v == nil {
		v = &yaml.Node{Kind: yaml.MappingNode}
		root.Content = append(root.Content, str(key), v)
	}
	return v
}

// targetNode is the mapping of a target's entries, a repeatable flag's as
// a one-line list.
func targetNode(entries []Entry) *yaml.Node {
	target := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range entries {
		var v *yaml.Node
		if e.List || len(e.Values) != 1 {
			v = &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, s := range e.Values {
				v.Content = append(v.Content, str(s))
			}
		} else {
			v = str(e.Values[0])
		}
		target.Content = append(target.Content, str(e.Key), v)
	}
	return target
}

// encode is doc as text, indented by two spaces as config files are.
func encode(doc *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
