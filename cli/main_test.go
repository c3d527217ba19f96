package cli_test

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps the default audit log of commands run without
// --audit-log (seed, the refusals) out of the developer's home.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "locktable-cli-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
