package export

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFormatOf: the extension says the format, in any case; another is
// refused.
func TestFormatOf(t *testing.T) {
	for path, want := range map[string]Format{"a.csv": CSV, "A.CSV": CSV, "a.json": JSON, "d/a.jsonl": JSON, "a.txt": "", "csv": ""} {
		got, err := FormatOf(path)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("FormatOf(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
}

// TestWrite: one row a line, JSON columns as JSON (null where empty),
// text as it is ("<" stays), what a terminal hides escaped; a file that
// exists is kept unless force.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	tab := Table{Columns: []Column{{Name: "key"}, {Name: "holders", JSON: true}}}
	tab.Add("a<b\u202e", List([]string{"x\"y"}))
	tab.Add("c", "")
	for _, c := range []struct{ file, want string }{
		{"t.json", "{\"key\":\"a<b\\u202e\",\"holders\":[\"x\\\"y\"]}\n{\"key\":\"c\",\"holders\":null}\n"},
		{"t.csv", "key,holders\na<b\u202e,\"[\"\"x\\\"\"y\"\"]\"\nc,\n"},
	} {
		path := filepath.Join(dir, c.file)
		if err := Write(path, tab, false); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != c.want {
			t.Errorf("%s holds\n%q, want\n%q", c.file, b, c.want)
		}
		if err := Write(path, Table{Columns: Columns("x")}, false); !errors.Is(err, ErrExists) {
			t.Errorf("writing over %s: %v, want ErrExists", c.file, err)
		}
		if err := Write(path, Table{Columns: Columns("x")}, true); err != nil {
			t.Errorf("writing over %s with force: %v", c.file, err)
		}
	}
}
