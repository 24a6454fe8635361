package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// Exit codes (DESIGN.md §12).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError is a bad command line: exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = `usage:
  mcptray [run] [--config F] [--data D] [--log FILE]
                                            tray app
  mcptray daemon [--config F] [--data D] [--log FILE]
                                            headless core
  mcptray status [--json]                   servers and their states
  mcptray toggle NAME on|off                enable or disable a server in mcp.json
  mcptray restart NAME                      restart one server
  mcptray logs NAME [-f]                    a server's log
  mcptray events [--json] [--all] [--server NAME] [--since ID] [--limit N]
                                            events the servers pushed
  mcptray events ack ID...|--all [--server NAME]
                                            acknowledge events
  mcptray history [--json] [--limit N]      the last tool calls
  mcptray connect [--server NAME] [--tools live|stable|dynamic]
                                            stdio MCP endpoint for an assistant
  mcptray token                             the HTTP endpoint's bearer token
  mcptray inbox [--json]                    requests waiting for an answer
  mcptray inbox answer ID [--field NAME=VALUE]... [--yes|--decline|--cancel]
  mcptray inbox watch                       answer requests as they come
  mcptray inputs forget ID                  forget a ${input:ID} value
  mcptray ssh alias list|add|remove|test    the SSH server's aliases (in the keyring)
  mcptray serve ssh                         the built-in SSH MCP server (stdio)
  mcptray auth google client|add|list|remove
                                            Google accounts for gcal and gmail
`

// Options are what only package main may give the commands.
type Options struct {
	// NewDesktop makes the tray app's UI for `mcptray run`; nil in a build
	// without the desktop UI (`go build -tags headless`), where run works
	// like daemon.
	NewDesktop func() Desktop
}

// Desktop is the tray app's UI, as `mcptray run` drives it.
type Desktop interface {
	// Notifier shows events as desktop notifications.
	Notifier() app.Notifier
	// Run blocks on the main goroutine until the UI quits or ctx ends.
	Run(ctx context.Context, core *app.Core) error
}

// Main runs one command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer, opts Options) int {
	cmd := "run"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "run", "daemon", "connect", "serve": // the ones that stay
		downstream.ReleaseHugeCodeMappings()
		leanRuntime(cmd != "serve")
		defer startProfile(cmd)()
	}
	var err error
	switch cmd {
	case "run":
		err = cmdRun(ctx, args, stderr, true, opts.NewDesktop)
	case "daemon":
		err = cmdRun(ctx, args, stderr, false, nil)
	case "status":
		err = cmdStatus(ctx, args, stdout)
	case "toggle":
		err = cmdToggle(ctx, args, stdout)
	case "restart":
		err = cmdRestart(ctx, args, stdout)
	case "logs":
		err = cmdLogs(ctx, args, stdout)
	case "events":
		err = cmdEvents(ctx, args, stdout)
	case "history":
		err = cmdHistory(ctx, args, stdout)
	case "connect":
		err = cmdConnect(ctx, args, os.Stdin, stdout, stderr)
	case "token":
		err = cmdToken(args, stdout)
	case "inbox":
		err = cmdInbox(ctx, args, os.Stdin, stdout, stderr)
	case "inputs":
		err = cmdInputs(ctx, args, stdout)
	case "serve":
		err = cmdServe(ctx, args)
	case "ssh":
		err = cmdSSH(ctx, args, os.Stdin, stdout, stderr)
	case "auth":
		err = cmdAuth(ctx, args, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		err = usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "mcptray: %s\n%s", escapeText(err.Error()), usage)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "mcptray: %s\n", escapeText(err.Error()))
		return exitFailure
	}
}
