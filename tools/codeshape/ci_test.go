package codeshape

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeTestReplaysOnly: make test ran every fuzz target for 2 s of
// exploration, so a fresh clone could go red on one run and green on the
// next (issue 37: FuzzNormalize found a casefold defect by chance). The
// commands make test runs replay the seeds and committed findings only:
// no -fuzz flag, no reliability/fuzz. And CI lints as it tests.
func TestMakeTestReplaysOnly(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	// -n prints the recipe without running it (nor any prerequisite's).
	out, err := exec.Command("make", "-n", "-C", root, "test").CombinedOutput()
	if err != nil {
		t.Fatalf("make -n test: %v\n%s", err, out)
	}
	recipe := string(out)
	if !strings.Contains(recipe, "go test") {
		t.Fatalf("make -n test runs no go test:\n%s", recipe)
	}
	for _, explores := range []string{"-fuzz ", "-fuzz=", "-fuzztime", "reliability/fuzz"} {
		if strings.Contains(recipe, explores) {
			t.Errorf("make test explores (%q) instead of replaying:\n%s", explores, recipe)
		}
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"make test", "make lint"} {
		if !strings.Contains(string(ci), want) {
			t.Errorf(".ci/run does not run %q", want)
		}
	}
}
