// Command locktable shows and fixes the uniqueness locks of DynamoDB tables
// that use the lock-item pattern.
package main

import (
	"context"
	"os"

	"github.com/locktable/locktable/cli"
	"github.com/locktable/locktable/internal/clock"
	"github.com/locktable/locktable/internal/startuptrace"
)

// Set at release time: -ldflags "-X main.version=1.2.3 -X main.commit=...
// -X main.date=...". Left empty (go install, go build), locktable reads
// them from the binary's build information.
var version, commit, date string

func main() {
	startuptrace.Mark("main") // every package's init has run
	// The signals stay caught until the process exits: a third Ctrl-C or
	// SIGTERM while it is reporting must not kill it with another status.
	ctx, _ := cli.SignalContext(context.Background())
	// The one clock of the process: every judgement of time reads it.
	args := cli.BootstrapArgs(os.Args, os.Getenv) // started by the Lambda runtime: watch --lambda
	os.Exit(cli.Main(ctx, clock.System(), cli.BuildInfo{Version: version, Commit: commit, Date: date}, args, os.Stdout, os.Stderr))
}
