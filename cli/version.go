package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// BuildInfo says which build of locktable is running. Releases set
// Version, Commit and Date with the linker; what is left empty Main reads
// from the build information Go records in every binary.
type BuildInfo struct {
	Version string `json:"version"` // 1.2.3, without the tag's "v"
	Commit  string `json:"commit"`  // the full commit hash, or a 12-digit prefix of it
	Date    string `json:"date"`    // the commit's time, RFC 3339 in UTC
	Go      string `json:"go"`      // the Go release it was built with
}

// resolved is b completed from the running binary's build information.
func (b BuildInfo) resolved() BuildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return b.resolve(info)
}

// resolve fills what the linker did not set from info (nil when the
// binary carries none): the module version of a `go install`, and the
// revision and time of a build in a git checkout, or failing those, of a
// pseudo-version. A version known nowhere is "dev"; commit and date
// known nowhere stay empty.
func (b BuildInfo) resolve(info *debug.BuildInfo) BuildInfo {
	b.Go = runtime.Version()
	if info == nil {
		if b.Version == "" {
			b.Version = "dev"
		}
		return b
	}
	if info.GoVersion != "" {
		b.Go = info.GoVersion
	}
	if b.Version == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.Version = strings.TrimPrefix(info.Main.Version, "v")
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && b.Commit == "":
			b.Commit = s.Value
		case s.Key == "vcs.time" && b.Date == "":
			b.Date = s.Value
		}
	}
	// A module fetched from a proxy carries no VCS settings, but a
	// pseudo-version (what @latest is before the first tag) names both.
	if m := pseudoVersion.FindStringSubmatch(info.Main.Version); m != nil {
		if b.Commit == "" {
			b.Commit = m[2]
		}
		if t, err := time.Parse("20060102150405", m[1]); err == nil && b.Date == "" {
			b.Date = t.UTC().Format(time.RFC3339)
		}
	}
	return b
}

// pseudoVersion matches the end of a Go pseudo-version
// (v0.0.0-20261130132900-f6f4d95abcde, v1.2.4-0.20261130132900-f6f4d95abcde),
// build metadata such as +dirty allowed: the commit's time and revision.
var pseudoVersion = regexp.MustCompile(`[-.](\d{14})-([0-9a-f]{12})(\+[0-9A-Za-z.-]+)?$`)

// String is what --version and `locktable version` print.
func (b BuildInfo) String() string {
	unknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	return fmt.Sprintf("locktable version %s\ncommit %s\ndate   %s\ngo     %s %s/%s",
		b.Version, unknown(b.Commit), unknown(b.Date), b.Go, runtime.GOOS, runtime.GOARCH)
}

func (a *app) versionCommand(build BuildInfo) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print locktable's version, commit and build date",
		Example: "  locktable version\n  locktable version --json | jq -r .commit",
		GroupID: "setup",
		Args:    cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if !asJSON {
				_, err := fmt.Fprintln(a.stdout, build)
				return err
			}
			out, err := json.Marshal(build)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "%s\n", out)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"version","commit","date","go"} as one JSON object`)
	return cmd
}
