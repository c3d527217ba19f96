package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/locktable/locktable/config"
)

// TestHiddenColumnsRoundTrip: the columns hidden in a view are written
// into the file, read back as written, beside the other views' and the
// file's targets and comments; none hidden takes the view's entry out.
func TestHiddenColumnsRoundTrip(t *testing.T) {
	path := write(t, "# mine\ntargets:\n  prod:\n    table: users # the big one\nhide-columns: {locks: [expires]}\n")
	spec := newFlags(t).spec()
	if err := config.SetHiddenColumns(path, "accounts", []string{"username", "status"}, spec); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(path, true, spec)
	if err != nil {
		t.Fatal(err)
	}
	hidden := f.Hidden()
	if !slices.Equal(hidden["accounts"], []string{"username", "status"}) || !slices.Equal(hidden["locks"], []string{"expires"}) {
		t.Errorf("read back %v", hidden)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"# mine", "# the big one", "table: users"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the file lost %q:\n%s", want, data)
		}
	}
	if err := config.SetHiddenColumns(path, "locks", nil, spec); err != nil {
		t.Fatal(err)
	}
	f, _ = config.Load(path, true, spec)
	if hidden := f.Hidden(); hidden["locks"] != nil || len(hidden["accounts"]) != 2 {
		t.Errorf("with the locks' shown again: %v", hidden)
	}

	fresh := filepath.Join(t.TempDir(), "new", "config.yaml")
	if err := config.SetHiddenColumns(fresh, "problems", []string{"holders"}, spec); err != nil {
		t.Fatal(err)
	}
	if f, err := config.Load(fresh, true, spec); err != nil || !slices.Equal(f.Hidden()["problems"], []string{"holders"}) {
		t.Errorf("a new file: %v, %v", err, f)
	}
	if err := config.SetHiddenColumns(fresh, "lockz", []string{"owner"}, spec); err == nil {
		t.Errorf("a view that is none was written")
	}
}
