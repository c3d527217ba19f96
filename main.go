// Command locktable shows and fixes the uniqueness locks of DynamoDB tables
// that use the lock-item pattern.
package main

import (
	"context"
	"os"

	"github.com/locktable/locktable/cli"
)

// version is set at release time (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	ctx, stop := cli.SignalContext(context.Background())
	code := cli.Main(ctx, version, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
