package config

import (
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// ColumnViews are the terminal UI's list views whose columns
// hide-columns hides.
var ColumnViews = []string{"accounts", "locks", "problems", "items"}

// HiddenColumns are the columns the terminal UI hides in one of its views
// (ColumnViews): a constraint's attribute (email), owner, expires,
// attribute, holders, attributes, status. The UI ignores a name its view
// does not show (the accounts view's depend on the table's schema).
type HiddenColumns struct {
	View    string
	Columns []string
	Line    int
}

// hiddenColumns reads hide-columns: a mapping of views to lists of column
// names.
func (p *parser) hiddenColumns(v *yaml.Node) ([]HiddenColumns, error) {
	pairs, err := p.section(v, "hide-columns", "views ("+strings.Join(ColumnViews, ", ")+") to lists of columns")
	if err != nil {
		return nil, err
	}
	var out []HiddenColumns
	for _, kv := range pairs {
		k, v := kv.key, kv.value
		if !slices.Contains(ColumnViews, k.Value) {
			return nil, p.errorf(k, "hide-columns: unknown view %q%s (the views are %s)", k.Value, suggest(k.Value, ColumnViews), strings.Join(ColumnViews, ", "))
		}
		within := "hide-columns: " + k.Value + ": "
		h := HiddenColumns{View: k.Value, Line: k.Line}
		if h.Columns, err = p.value(v, List, within); err != nil {
			return nil, err
		}
		for i, c := range h.Columns {
			if c == "" || strings.TrimSpace(c) != c {
				return nil, p.errorf(v.Content[i], "%s%q is not a column name", within, c)
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// Hidden are the columns hidden by view, the last entry of a view
// written twice winning.
func (f *File) Hidden() map[string][]string {
	out := map[string][]string{}
	for _, h := range f.HiddenColumns {
		out[h.View] = h.Columns
	}
	return out
}

// SetHiddenColumns writes into the config file at path that the terminal
// UI hides the columns hidden in view (one of ColumnViews; none: the
// view's entry goes), creating the file where there is none. As
// AddTarget does, it encodes the file's node tree again: its comments
// stay, its layout may not.
func SetHiddenColumns(path, view string, hidden []string, spec Spec) error {
	if !slices.Contains(ColumnViews, view) {
		return &Error{Path: path, Msg: fmt.Sprintf("hide-columns: unknown view %q", view)}
	}
	data, doc, prefix, err := readForAdd(path, "", spec)
	if err != nil {
		return err
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return &Error{Path: path, Msg: "the file is not a mapping"}
	}
	views := mappingOf(root, "hide-columns")
	if views.Kind != yaml.MappingNode { // null: hide-columns: with nothing after it
		*views = yaml.Node{Kind: yaml.MappingNode}
	}
	views.Style = yaml.FlowStyle
	for i := 0; i+1 < len(views.Content); i += 2 {
		if views.Content[i].Value == view {
			views.Content = slices.Delete(views.Content, i, i+2)
			i -= 2
		}
	}
	if len(hidden) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, c := range hidden {
			list.Content = append(list.Content, str(c))
		}
		views.Content = append(views.Content, str(view), list)
	}
	return writeDoc(path, data, prefix, doc, spec, "the columns")
}
