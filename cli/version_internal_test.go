package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestBuildInfoResolve(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	const rev = "f6f4d95abcde0123456789abcdef0123456789ab"
	tests := []struct {
		name  string
		build BuildInfo
		info  *debug.BuildInfo
		want  BuildInfo
	}{
		{"no build information", BuildInfo{}, nil,
			BuildInfo{Version: "dev", Go: runtime.Version()}},
		{"go build without VCS stamping", BuildInfo{},
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			BuildInfo{Version: "dev", Go: "go1.26.8"}},
		{"go install of a tag from the module proxy", BuildInfo{},
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			BuildInfo{Version: "1.2.3", Go: "go1.26.8"}},
		{"go install @latest before the first tag", BuildInfo{},
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261130132900-f6f4d95abcde"}},
			BuildInfo{Version: "0.0.0-20261130132900-f6f4d95abcde", Commit: "f6f4d95abcde", Date: "2026-11-30T13:29:00Z", Go: "go1.26.8"}},
		{"go install of a commit after a tag", BuildInfo{},
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.4-0.20261130132900-f6f4d95abcde"}},
			BuildInfo{Version: "1.2.4-0.20261130132900-f6f4d95abcde", Commit: "f6f4d95abcde", Date: "2026-11-30T13:29:00Z", Go: "go1.26.8"}},
		{"go build in a modified checkout", BuildInfo{},
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261130132900-f6f4d95abcde+dirty"},
				Settings: vcs("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-30T13:29:00Z", "vcs.modified", "true")},
			BuildInfo{Version: "0.0.0-20261130132900-f6f4d95abcde+dirty", Commit: rev, Date: "2026-11-30T13:29:00Z", Go: "go1.26.8"}},
		{"go build in a checkout at a tag", BuildInfo{},
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"},
				Settings: vcs("vcs.revision", rev, "vcs.time", "2026-11-30T13:29:00Z")},
			BuildInfo{Version: "1.2.3", Commit: rev, Date: "2026-11-30T13:29:00Z", Go: "go1.26.8"}},
		{"a release: the linker's values win", BuildInfo{Version: "1.3.0", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-12-01T10:00:00Z"},
			&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261130132900-f6f4d95abcde"},
				Settings: vcs("vcs.revision", rev, "vcs.time", "2026-11-30T13:29:00Z")},
			BuildInfo{Version: "1.3.0", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-12-01T10:00:00Z", Go: "go1.26.8"}},
		{"a release without build information", BuildInfo{Version: "1.3.0", Commit: "abc", Date: "2026-12-01T10:00:00Z"}, nil,
			BuildInfo{Version: "1.3.0", Commit: "abc", Date: "2026-12-01T10:00:00Z", Go: runtime.Version()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.build.resolve(tt.info); got != tt.want {
				t.Errorf("resolve:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestBuildInfoString(t *testing.T) {
	got := BuildInfo{Version: "0.0.0-20261130132900-f6f4d95abcde", Go: "go1.26.8"}.String()
	want := "locktable version 0.0.0-20261130132900-f6f4d95abcde\ncommit unknown\ndate   unknown\ngo     go1.26.8 " + runtime.GOOS + "/" + runtime.GOARCH
	if got != want {
		t.Errorf("String:\n got %q\nwant %q", got, want)
	}
}
