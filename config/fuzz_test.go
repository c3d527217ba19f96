package config

import (
	"errors"
	"testing"
)

// FuzzParse: any bytes either parse or fail with an *Error inside the
// file, and never panic; a file that parses with a target takes
// `default:` for it by the in-place edit, or says it cannot (the caller
// then re-encodes), never by corrupting the file.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"default: local\ntargets:\n  local:\n    table: accounts\n",
		"# c\n\ntargets:\n  a: {}\n  b:\n    unique: [x=X#]\n",
		"  targets: {p: {}}\n",
		"default: 'a''b'   # c\ntargets: {a'b: {}}\n",
		"targets:\n  base: &b {table: t}\n  x:\n    <<: *b\n",
		"default: \"x\\\"y\"\r\ntargets:\r\n  x: {}\r\n",
		"targets:\n\tp: {}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("c.yaml", data, Spec{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line < 0 {
				t.Fatalf("error %v (%T) is not an *Error at a line", err, err)
			}
			return
		}
		for _, target := range file.Targets {
			out, ok := file.spliceDefault(target.Name)
			if !ok {
				continue
			}
			// SetDefault checks the edit by parsing it again, and falls
			// back when it does not read as intended; the edit must at
			// least leave a file that an error does not hide.
			if g, err := Parse("c.yaml", out, Spec{}); err == nil && g.Default != target.Name && len(g.Targets) != len(file.Targets) {
				t.Fatalf("the edit for %q lost targets:\n%s\n->\n%s", target.Name, data, out)
			}
		}
	})
}
