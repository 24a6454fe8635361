// Command mcptray supervises local MCP servers, gives AI assistants one
// endpoint for all of them, and asks the person — not the model — for
// secrets. See README.md and docs/architecture.md.
//
// This package is the dispatch into package cli (every subcommand) and the
// wiring of what only main may import: the tray app's UI, in the
// build-tagged desktop*.go.
package main

import (
	"io"
	"os"

	"github.com/mcptray/mcptray/cli"
	"github.com/mcptray/mcptray/mcp/downstream"
)

func main() {
	downstream.RunWatchdogIfRequested()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs one command line with this build's desktop UI (nil in a
// headless build) and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Main(args, stdout, stderr, cli.Options{NewDesktop: newDesktop})
}
