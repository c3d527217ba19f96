// Command locktable shows and fixes the uniqueness locks of DynamoDB tables
// that use the lock-item pattern.
package main

import (
	"context"
	"os"

	"github.com/locktable/locktable/cli"
)

// Set at release time: -ldflags "-X main.version=1.2.3 -X main.commit=...
// -X main.date=...". Left empty (go install, go build), locktable reads
// them from the binary's build information.
var version, commit, date string

func main() {
	ctx, stop := cli.SignalContext(context.Background())
	code := cli.Main(ctx, cli.BuildInfo{Version: version, Commit: commit, Date: date}, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
