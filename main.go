// Command mcptray supervises local MCP servers, gives AI assistants one
// endpoint for all of them, and asks the person — not the model — for
// secrets. See README.md and docs/architecture.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/mcp"
)

// Exit codes (DESIGN.md §12).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	mcp.RunWatchdogIfRequested()
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

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
`

// Main runs one command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	cmd := "run"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "run", "daemon", "connect", "serve": // the ones that stay
		mcp.ReleaseHugeCodeMappings()
		leanRuntime(cmd != "serve")
		defer startProfile(cmd)()
	}
	var err error
	switch cmd {
	case "run":
		err = cmdRun(ctx, args, stderr, true)
	case "daemon":
		err = cmdRun(ctx, args, stderr, false)
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

// cmdRun starts the core, and the tray UI when gui is set and a display is
// there; without a display the tray app runs headless, like `daemon`.
func cmdRun(ctx context.Context, args []string, stderr io.Writer, gui bool) error {
	fs := newFlags("run")
	logPath := fs.String("log", "", "log to FILE (stdout and stderr too), rotated at 5 MB to FILE.1")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	configPath, data, err := fs.paths()
	if err != nil {
		return err
	}
	why := ""
	switch {
	case gui && !hasDesktopUI:
		why = "this mcptray is built without the desktop UI: running headless (as `mcptray daemon`)"
	case gui && !hasDisplay():
		why = "no display found: running headless (as `mcptray daemon`)"
	}
	opts := app.Options{ConfigPath: configPath, DataDir: data}
	if *logPath != "" {
		w, err := app.OpenDaemonLog(*logPath, daemonLogMax)
		if err != nil {
			return fmt.Errorf("opening the log: %w", err)
		}
		opts.Logger = slog.New(slog.NewTextHandler(w, nil))
		stderr = w
	}
	var desk desktopUI
	if gui && why == "" {
		desk = newDesktopUI() // the tray app shows events as desktop notifications
		opts.Notifier = desk.notifier()
	}
	core, err := app.New(opts)
	if err != nil {
		return err
	}
	defer core.Close()
	if why != "" {
		fmt.Fprintln(stderr, "mcptray: "+why)
		gui = false
	}
	if !gui {
		return core.Run(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- core.Run(ctx) }()
	uiErr := desk.run(ctx, core) // blocks on the main goroutine until Quit or ctx ends
	cancel()
	return errors.Join(uiErr, <-done)
}

// daemonLogMax is where --log's file rotates (tests make it small).
var daemonLogMax int64 = app.MaxLogSize

func hasDisplay() bool {
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// cmdServe runs a built-in stdio MCP server. gcal and gmail are not built
// in yet: the default config's entries report this reason in `mcptray
// status`.
func cmdServe(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return usageError{"serve takes one of ssh, gcal, gmail"}
	}
	switch args[0] {
	case "ssh":
		return cmdServeSSH(ctx)
	case "gcal", "gmail":
		return fmt.Errorf("the built-in %s server is not in this version of mcptray yet", args[0])
	default:
		return usageError{fmt.Sprintf("no built-in server %q (ssh, gcal, gmail)", args[0])}
	}
}
