package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// FuzzSchemaFlags parses any command line of schema flags (one argument
// per line): it never panics, a schema it builds is valid, and what it
// rejects is an error naming a flag, never a panic.
// go test -run '^$' -fuzz '^FuzzSchemaFlags$' ./cli/ explores.
func FuzzSchemaFlags(f *testing.F) {
	f.Add("--unique\nemail=UNIQ#EMAIL#\n--normalize\nemail=casefold")
	f.Add("--layout=tables\n--unique=mac=@macs/Mac\n--index=mac=by-mac")
	f.Fuzz(func(t *testing.T, line string) {
		var sf schemaFlags
		fs := pflag.NewFlagSet("locktable", pflag.ContinueOnError)
		fs.Usage = func() {}
		sf.register(fs)
		if fs.Parse(strings.Split(line, "\n")) != nil {
			return // pflag's own usage errors
		}
		s, err := sf.schema(fs)
		var fe *flagError
		switch {
		case err != nil && (!errors.As(err, &fe) || fe.flag == ""):
			t.Fatalf("%q: error %v (%T) names no flag", line, err, err)
		case err == nil && s.Validate() != nil:
			t.Fatalf("%q: built an invalid schema: %v", line, s.Validate())
		case err == nil && len(sf.unique) > 0 && len(s.Constraints) != len(sf.unique):
			t.Fatalf("%q: %d --unique, %d constraints", line, len(sf.unique), len(s.Constraints))
		}
	})
}
