// Package export writes the rows a view shows to a file (:export), as
// CSV or as JSON Lines by the file's extension: one row a line, under a
// header row (CSV) or as one object a line whose keys are the columns
// (JSON), every key and value exact, as the table holds it. The views
// say what their rows are (Table); this package only writes them.
package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/locktable/locktable/model"
)

// Column is one column of a view's rows. JSON says its values are JSON
// documents (a list of keys, an item as DynamoDB JSON): a JSON export
// holds them as such, a CSV export as their text.
type Column struct {
	Name string
	JSON bool
}

// Table is the rows of a view as an export writes them: each row has one
// value per column, "" where the row has none.
type Table struct {
	Columns []Column
	Rows    [][]string
}

// Add appends a row, its values in the columns' order.
func (t *Table) Add(values ...string) { t.Rows = append(t.Rows, values) }

// Columns names columns whose values are text.
func Columns(names ...string) []Column {
	cs := make([]Column, len(names))
	for i, n := range names {
		cs[i] = Column{Name: n}
	}
	return cs
}

// Format is what a file's extension asks for.
type Format string

// The formats.
const (
	CSV  Format = "csv"
	JSON Format = "json" // JSON Lines: one object a line
)

// FormatOf is the format of path by its extension (.csv; .json or
// .jsonl), or why there is none.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return CSV, nil
	case ".json", ".jsonl":
		return JSON, nil
	}
	return "", fmt.Errorf("%s: the file's extension says the format: .csv or .json", model.Quote(path))
}

// ErrExists is why a file is not written over: it is there already, and
// overwriting was not asked for.
var ErrExists = errors.New("the file exists")

// Write writes t to path in the format its extension says. It refuses
// to write over a file that exists unless force (ErrExists).
func Write(path string, t Table, force bool) error {
	f, err := FormatOf(path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if f == CSV {
		err = writeCSV(&b, t)
	} else {
		err = writeJSON(&b, t)
	}
	if err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	out, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, os.ErrExist) {
		return ErrExists
	}
	if err != nil {
		return err
	}
	if _, err := out.Write(b.Bytes()); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// writeCSV writes the header row, then one record a row.
func writeCSV(b *bytes.Buffer, t Table) error {
	w := csv.NewWriter(b)
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.Name
	}
	if err := w.Write(head); err != nil {
		return err
	}
	if err := w.WriteAll(t.Rows); err != nil {
		return fmt.Errorf("write CSV: %w", err)
	}
	return nil
}

// writeJSON writes one object a row, its keys in the columns' order,
// escaped as check --json escapes its report (model.EscapeJSON): what a
// terminal would hide or reorder is a \u escape, the same value.
func writeJSON(b *bytes.Buffer, t Table) error {
	for _, row := range t.Rows {
		var line bytes.Buffer
		line.WriteByte('{')
		for i, c := range t.Columns {
			if i > 0 {
				line.WriteByte(',')
			}
			line.Write(quote(c.Name))
			line.WriteByte(':')
			switch {
			case c.JSON && row[i] != "":
				if !json.Valid([]byte(row[i])) {
					return fmt.Errorf("column %s: not JSON: %s", c.Name, model.Quote(row[i]))
				}
				line.WriteString(row[i])
			case c.JSON:
				line.WriteString("null")
			default:
				line.Write(quote(row[i]))
			}
		}
		line.WriteString("}\n")
		b.WriteString(model.EscapeJSON(line.String()))
	}
	return nil
}

// quote is s as a JSON string, with "<", ">" and "&" left as they are.
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimRight(b.Bytes(), "\n")
}

// Text is attribute name of it exactly: a string or a number as stored,
// "" when absent, any other type as DynamoDB JSON.
func Text(it model.Item, name string) string {
	v, ok := it[name]
	switch {
	case !ok:
		return ""
	case v.Kind == model.KindS || v.Kind == model.KindN:
		return v.S
	}
	return v.DynamoJSON()
}

// Epoch is a TTL in epoch seconds, "" for none.
func Epoch(at int64) string {
	if at == 0 {
		return ""
	}
	return strconv.FormatInt(at, 10)
}

// List is keys as a JSON array, for a Column of JSON.
func List(keys []string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = string(quote(k))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// LockKey is a lock's key as a row shows it, exactly: its partition key
// in the account table, or TABLE/value for a lock table.
func LockKey(sc *model.Schema, table string, key map[string]string, value string) string {
	if table != sc.Table {
		return table + "/" + value
	}
	return key[sc.PK]
}
