package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// SetDefault makes name the default target of the config file at path,
// leaving every other byte of the file as it was: comments, blank lines,
// order, quoting. It edits the text where the YAML parser placed
// `default:` (or inserts the line above the first key); a file too
// unusual for that is re-encoded from its node tree, which keeps the
// comments but not the layout. name must be a target of the file.
func SetDefault(path, name string, spec Spec) error {
	f, err := Load(path, true, spec)
	if err != nil {
		return err
	}
	if f.Target(name) == nil {
		return &Error{Path: path, Msg: fmt.Sprintf("no target %q (%s)", name, f.targetList())}
	}
	if f.Default == name {
		return nil
	}
	out, ok := f.spliceDefault(name)
	if ok {
		g, err := Parse(path, out, spec)
		ok = err == nil && g.Default == name
	}
	if !ok {
		if out, err = f.reencodeDefault(name); err != nil {
			return &Error{Path: path, Msg: "cannot rewrite the file: " + err.Error()}
		}
	}
	return writeFile(path, out)
}

// spliceDefault returns the file's text with `default:` set to name, or
// false when the file is laid out in a way the text edit does not handle.
func (f *File) spliceDefault(name string) ([]byte, bool) {
	scalar, err := yaml.Marshal(name)
	if err != nil || bytes.Count(scalar, []byte("\n")) != 1 {
		return nil, false
	}
	scalar = bytes.TrimSuffix(scalar, []byte("\n"))
	lines := bytes.SplitAfter(f.data, []byte("\n"))
	if f.defaultValue != nil {
		return replaceDefault(lines, f.defaultValue, scalar)
	}
	return f.insertDefault(lines, scalar)
}

// replaceDefault returns lines with the value v of `default:` replaced by
// scalar, or false where v is not a plain or quoted scalar on one line:
// an anchor, a tag or a block scalar would need more than that line.
func replaceDefault(lines [][]byte, v *yaml.Node, scalar []byte) ([]byte, bool) {
	if v.Kind != yaml.ScalarNode || v.Anchor != "" || v.Style&(yaml.TaggedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 || v.Line < 1 || v.Line > len(lines) {
		return nil, false
	}
	line := lines[v.Line-1]
	start := byteOffset(line, v.Column-1)
	end := scalarEnd(line, start, v)
	if start < 0 || end < 0 {
		return nil, false
	}
	edited := concat(line[:start], scalar, line[end:])
	return join(lines[:v.Line-1], edited, lines[v.Line:]), true
}

// insertDefault returns lines with `default: scalar` added above the
// file's first key, at its indentation, and above the comments that
// belong to that key; false where the top mapping is in flow style or
// its first key does not start its line.
func (f *File) insertDefault(lines [][]byte, scalar []byte) ([]byte, bool) {
	if f.root == nil || f.root.Style&yaml.FlowStyle != 0 || len(f.root.Content) == 0 {
		return nil, false
	}
	first := f.root.Content[0]
	at := first.Line - 1
	if at < 0 || at >= len(lines) || first.Column < 1 {
		return nil, false
	}
	col := byteOffset(lines[at], first.Column-1)
	if col < 0 || len(bytes.Trim(lines[at][:col], " ")) != 0 {
		return nil, false
	}
	indent := lines[at][:col]
	for at > 0 && bytes.HasPrefix(bytes.TrimLeft(lines[at-1], " \t"), []byte("#")) {
		at--
	}
	newline := []byte("\n")
	if bytes.HasSuffix(lines[at], []byte("\r\n")) {
		newline = []byte("\r\n")
	}
	added := concat(indent, []byte("default: "), scalar, newline)
	return join(lines[:at], added, lines[at:]), true
}

// scalarEnd returns where the one-line scalar v that starts at start in
// line ends, or -1 when it does not end on this line.
func scalarEnd(line []byte, start int, v *yaml.Node) int {
	if start < 0 || start >= len(line) {
		return -1
	}
	text := bytes.TrimRight(line, "\r\n")
	switch {
	case v.Style&yaml.DoubleQuotedStyle != 0:
		for i := start + 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case v.Style&yaml.SingleQuotedStyle != 0:
		for i := start + 1; i < len(text); i++ {
			if text[i] == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					i++
					continue
				}
				return i + 1
			}
		}
	default:
		end := len(text)
		if i := bytes.Index(text[start:], []byte(" #")); i >= 0 {
			end = start + i
		}
		end = start + len(bytes.TrimRight(text[start:end], " \t"))
		if string(text[start:end]) == v.Value {
			return end
		}
	}
	return -1
}

// reencodeDefault sets `default:` in the node tree and encodes it again.
func (f *File) reencodeDefault(name string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(f.data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the file is not a mapping")
	}
	root := doc.Content[0]
	value := str(name)
	replaced := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "default" {
			root.Content[i+1] = value
			replaced = true
		}
	}
	if !replaced {
		root.Content = append([]*yaml.Node{str("default"), value}, root.Content...)
	}
	return encode(&doc)
}

// writeFile replaces the file's contents atomically (a temporary file
// beside it, renamed over it), keeping its mode; a symbolic link (a
// dotfiles manager's) stays a link, and its target is what changes.
func writeFile(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	info, err := os.Stat(path)
	if err != nil {
		return &Error{Path: path, Msg: unwrapPath(err)}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return &Error{Path: path, Msg: "cannot write beside it: " + unwrapPath(err)}
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(info.Mode().Perm())
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return &Error{Path: path, Msg: "cannot write: " + unwrapPath(err)}
	}
	return nil
}

// byteOffset returns the byte offset of the col'th character (0-based)
// of line: the parser counts columns in characters. -1 past the end.
func byteOffset(line []byte, col int) int {
	off := 0
	for ; col > 0; col-- {
		if off >= len(line) {
			return -1
		}
		_, size := utf8.DecodeRune(line[off:])
		off += size
	}
	return off
}

// concat concatenates byte slices into a new one.
func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// join concatenates lines before, one edited line, and lines after.
func join(before [][]byte, line []byte, after [][]byte) []byte {
	var b strings.Builder
	for _, l := range before {
		b.Write(l)
	}
	b.Write(line)
	for _, l := range after {
		b.Write(l)
	}
	return []byte(b.String())
}
