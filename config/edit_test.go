package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locktable/locktable/config"
)

func TestSetDefault(t *testing.T) {
	const targets = `targets:
  # the emulator
  local:
    endpoint-url: http://localhost:8000   # dynoxide

  prod: {read-only: true}
keys: { quit: [q, ctrl+c] }
`
	cases := []struct{ name, before, after string }{
		{"replaces a plain value, keeping its comment",
			"default: local   # what target use writes\n" + targets,
			"default: prod   # what target use writes\n" + targets},
		{"replaces a quoted value",
			"default: \"local\"\n" + targets,
			"default: prod\n" + targets},
		{"replaces a single-quoted value at the end",
			targets + "default: 'lo''cal'\n",
			targets + "default: prod\n"},
		{"inserts above the first key and its comments",
			"# locktable targets\n\n# every target\n" + targets,
			"# locktable targets\n\ndefault: prod\n# every target\n" + targets},
		{"inserts at the indentation of the top mapping",
			"  theme: dark\n  targets: {prod: {}}\n",
			"  default: prod\n  theme: dark\n  targets: {prod: {}}\n"},
		{"keeps CRLF line ends",
			"theme: dark\r\ntargets:\r\n  prod: {}\r\n",
			"default: prod\r\ntheme: dark\r\ntargets:\r\n  prod: {}\r\n"},
		{"re-encodes a tagged value",
			"default: !!str local # tagged\ntargets:\n  prod: {}\n  local: {}\n",
			"default: prod\ntargets:\n  prod: {}\n  local: {}\n"},
		{"re-encodes a first key that does not start its line",
			"? theme\n: dark\ntargets:\n  prod: {}\n",
			"default: prod\ntheme: dark\ntargets:\n  prod: {}\n"},
		{"re-encodes a flow mapping",
			"{targets: {prod: {}, local: {}}, default: local}\n",
			"{targets: {prod: {}, local: {}}, default: prod}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := write(t, c.before)
			if err := config.SetDefault(path, "prod", newFlags(t).spec()); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != c.after {
				t.Errorf("file after:\n%s\nwant:\n%s", got, c.after)
			}
			f, err := config.Load(path, true, newFlags(t).spec())
			if err != nil || f.Default != "prod" {
				t.Fatalf("reads back default %q, %v", f.Default, err)
			}
			if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600 kept", info.Mode().Perm())
			}
		})
	}
}

func TestSetDefaultNeedsTheTarget(t *testing.T) {
	const text = "default: local\ntargets:\n  local: {}\n"
	path := write(t, text)
	err := config.SetDefault(path, "prod", newFlags(t).spec())
	if err == nil || !strings.Contains(err.Error(), `no target "prod" (targets: local)`) {
		t.Errorf("error %v, want no target prod", err)
	}
	if got, _ := os.ReadFile(path); string(got) != text {
		t.Errorf("the file changed: %q", got)
	}
	if err := config.SetDefault(filepath.Join(t.TempDir(), "none.yaml"), "prod", newFlags(t).spec()); err == nil {
		t.Error("no error for a missing file")
	}
}

// A config kept in a dotfiles repository is often a symbolic link: the
// link stays, its target changes.
func TestSetDefaultThroughASymlink(t *testing.T) {
	real := write(t, "targets:\n  prod: {}\n")
	link := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if err := config.SetDefault(link, "prod", newFlags(t).spec()); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(real); string(got) != "default: prod\ntargets:\n  prod: {}\n" {
		t.Errorf("target file: %q", got)
	}
}
