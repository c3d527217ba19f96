package cli

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locktable/locktable/model"
)

// TestPartOfAnotherSchemaNamesTheFlags: a part written with one schema
// and merged with another is refused, naming the flags that differ.
func TestPartOfAnotherSchemaNamesTheFlags(t *testing.T) {
	written := model.DefaultSchema(model.LayoutSingle)
	path := filepath.Join(t.TempDir(), "a.part.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if err := model.NewCensus(&written, 0).WritePart(zw, 1, 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	merging := written
	merging.OwnerAttr, merging.Table = "by", "users"
	_, err = readParts(&merging, []string{path}, 0)
	if want := "part 1 was read with other schema flags: --table, --owner-attr differ"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("merged with another schema: %v, want an error saying %q", err, want)
	}
	if _, err := readParts(&written, []string{path}, 0); err != nil {
		t.Errorf("merged with its own schema: %v", err)
	}
}
