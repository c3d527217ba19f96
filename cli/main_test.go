package cli_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/locktable/locktable/internal/testseed"
)

// TestMain keeps the default audit log of commands run without
// --audit-log (seed, the refusals) out of the developer's home, and the
// developer's own config file and LOCKTABLE_<FLAG> variables out of the
// tests: each test that wants a config writes its own. The seed a test
// is asked to replay stays.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "locktable-cli-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	os.Setenv("XDG_CONFIG_HOME", dir)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "LOCKTABLE_") && !strings.HasPrefix(k, "LOCKTABLE_TEST_") && k != testseed.Env {
			os.Unsetenv(k)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
