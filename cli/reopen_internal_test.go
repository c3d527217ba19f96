package cli

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/ui"
)

// settled returns an app whose flags are args, settled from the config
// file cfg.
func settled(t *testing.T, cfg string, args ...string) *app {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	a := &app{clock: clock.System(), stdout: io.Discard, stderr: io.Discard}
	root := a.rootCommand(BuildInfo{})
	if err := root.ParseFlags(append([]string{"--config", path}, args...)); err != nil {
		t.Fatal(err)
	}
	if err := a.settle(); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestReopenArgs: :table reruns the command line with its --table
// replaced; :target reruns with --target, the config file and the safety
// and output flags alone, so that the rest is the target's. What a target
// set is never passed on as if typed.
func TestReopenArgs(t *testing.T) {
	const cfg = "default: local\ntargets:\n  local: {endpoint-url: http://localhost:8000, table: accounts}\n  prod: {region: eu-west-1}\n"
	a := settled(t, cfg, "--table", "old", "--unique", "email=E#", "--unique", "nick=N#", "--read-only", "--accounts-index", "gsi1")
	got := a.reopenArgs(ui.Reopen{Table: "orders"})
	for _, want := range []string{"--table=orders", "--unique=email=E#", "--unique=nick=N#", "--read-only=true", "--accounts-index=gsi1"} {
		if !slices.Contains(got, want) {
			t.Errorf(":table orders: %q lacks %q", got, want)
		}
	}
	for _, not := range []string{"--table=old", "--endpoint-url=http://localhost:8000"} {
		if slices.Contains(got, not) {
			t.Errorf(":table orders: %q has %q", got, not)
		}
	}
	got = a.reopenArgs(ui.Reopen{Target: "prod"})
	if len(got) != 3 || got[len(got)-1] != "--target=prod" || !slices.Contains(got, "--read-only=true") || got[0][:9] != "--config=" {
		t.Errorf(":target prod: %q, want --config, --read-only and --target alone", got)
	}
}
