package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locktable/locktable/config"
)

// TestAddTarget: a new file is created with the target; an existing one
// keeps its targets and comments and gains the new one; a name already
// there is refused and the file left as it was.
func TestAddTarget(t *testing.T) {
	spec := newFlags(t).spec()
	entries := []config.Entry{{Key: "table", Values: []string{"accounts"}}, {Key: "unique", Values: []string{"email=UNIQ#EMAIL#"}, List: true}}

	fresh := filepath.Join(t.TempDir(), "dir", "config.yaml")
	if err := config.AddTarget(fresh, "local", entries, spec); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(fresh, true, spec)
	if err != nil || f.Target("local") == nil {
		t.Fatalf("the new file: %v", err)
	}

	existing := filepath.Join(t.TempDir(), "config.yaml")
	text := "# where my tables are\ndefault: prod\ntargets:\n  prod:\n    table: users # the big one\n"
	if err := os.WriteFile(existing, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := config.AddTarget(existing, "local", entries, spec); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(existing)
	for _, want := range []string{"# where my tables are", "# the big one", "default: prod", "  local:\n    table: accounts\n    unique: [email=UNIQ#EMAIL#]"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the file lost or lacks %q:\n%s", want, data)
		}
	}
	if f, err := config.Load(existing, true, spec); err != nil || f.Target("prod") == nil || f.Target("local") == nil {
		t.Fatalf("reading it back: %v", err)
	}
	err = config.AddTarget(existing, "prod", entries, spec)
	if after, _ := os.ReadFile(existing); err == nil || !strings.Contains(err.Error(), "is there already") || string(after) != string(data) {
		t.Fatalf("a second prod: %v", err)
	}
}

// TestAddTargetLayouts: what AddTarget writes, byte for byte, into files
// laid out in the ways it handles apart, and what it refuses.
func TestAddTargetLayouts(t *testing.T) {
	spec := newFlags(t).spec()
	entries := []config.Entry{{Key: "table", Values: []string{"accounts"}}, {Key: "unique", Values: []string{"email=UNIQ#EMAIL#", "username=UNIQ#HANDLE#"}}}
	cases := []struct{ name, before, after, err string }{
		{name: "comments only: kept above, a newline added",
			before: "# no targets yet",
			after:  "# no targets yet\ntargets:\n  local:\n    table: accounts\n    unique: [email=UNIQ#EMAIL#, username=UNIQ#HANDLE#]\n"},
		{name: "a flow mapping of targets: written in block style",
			before: "targets: {prod: {table: users}}\n",
			after:  "targets:\n  prod: {table: users}\n  local:\n    table: accounts\n    unique: [email=UNIQ#EMAIL#, username=UNIQ#HANDLE#]\n"},
		{name: "no targets yet: the key added",
			before: "theme: dark\n",
			after:  "theme: dark\ntargets:\n  local:\n    table: accounts\n    unique: [email=UNIQ#EMAIL#, username=UNIQ#HANDLE#]\n"},
		{name: "not a mapping", before: "- prod\n", err: "want a mapping of default, targets"},
		{name: "targets not a mapping", before: "targets: [prod]\n", err: "targets: want a mapping of target names"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(path, []byte(c.before), 0o600); err != nil {
				t.Fatal(err)
			}
			err := config.AddTarget(path, "local", entries, spec)
			got, _ := os.ReadFile(path)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || string(got) != c.before {
					t.Fatalf("err %v, want one saying %q and the file left as it was:\n%s", err, c.err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.after {
				t.Errorf("file after:\n%s\nwant:\n%s", got, c.after)
			}
		})
	}
}
