package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// versionOf runs `locktable version --json` and checks that --version and
// `locktable version` print the same text, naming what the JSON does.
func versionOf(t *testing.T, bin string) map[string]string {
	t.Helper()
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("locktable %v: %v", args, err)
		}
		return string(out)
	}
	var v map[string]string
	out := run("version", "--json")
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v) != 4 || strings.Count(out, "\n") != 1 {
		t.Fatalf("version --json: %q (%v); want one line with version, commit, date and go", out, err)
	}
	text := run("version")
	if flag := run("--version"); flag != text {
		t.Errorf("--version prints %q, version %q", flag, text)
	}
	unknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	want := "locktable version " + v["version"] + "\ncommit " + unknown(v["commit"]) + "\ndate   " + unknown(v["date"]) +
		"\ngo     " + v["go"] + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	if text != want {
		t.Errorf("version:\n%s\nwant\n%s", text, want)
	}
	return v
}

// TestE2EVersionRelease builds the binary the way a release does, the
// version, commit and date set by the linker.
func TestE2EVersionRelease(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "locktable")
	const commit = "0123456789abcdef0123456789abcdef01234567"
	ldflags := "-X main.version=1.3.0 -X main.commit=" + commit + " -X main.date=2026-12-01T10:00:00Z"
	build := exec.Command("go", "build", "-ldflags", ldflags, "-o", bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -ldflags %q: %v\n%s", ldflags, err, out)
	}
	v := versionOf(t, bin)
	if v["version"] != "1.3.0" || v["commit"] != commit || v["date"] != "2026-12-01T10:00:00Z" || !strings.HasPrefix(v["go"], "go1.") {
		t.Errorf("version --json: %v", v)
	}
}

// TestE2EVersionBuildInfo checks the binary built without ldflags against
// what `go version -m` reads from it: the module version (dev when Go
// stamped none, as in a git worktree or with -buildvcs=false) and the VCS
// revision and time when there are some.
func TestE2EVersionBuildInfo(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "version", "-m", binary).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	want := map[string]string{"version": "dev"}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(strings.TrimSpace(sc.Text()), "\t")
		switch {
		case len(f) >= 3 && f[0] == "mod" && f[2] != "(devel)":
			want["version"] = strings.TrimPrefix(f[2], "v")
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			want["commit"] = strings.TrimPrefix(f[1], "vcs.revision=")
		case len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.time="):
			want["date"] = strings.TrimPrefix(f[1], "vcs.time=")
		}
	}
	v := versionOf(t, binary)
	for k, w := range want {
		if v[k] != w {
			t.Errorf("version --json: %s %q, want %q (go version -m says:\n%s)", k, v[k], w, out)
		}
	}
}
