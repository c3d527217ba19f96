package cli

import (
	"os"

	"github.com/spf13/cobra"
)

// Command returns locktable's command tree without running it: what its
// man pages and shell completions are generated from.
func Command(build BuildInfo) *cobra.Command {
	a := &app{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	return a.rootCommand(build)
}
