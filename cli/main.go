package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/remote"
	"github.com/mcptray/mcptray/mcp/downstream"
)

// Exit codes (DESIGN.md §12).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// trustConfigEdits is app.Options.TrustConfigEdits of run and daemon:
// false in mcptray. The tests' TestMain sets it for the daemons it runs,
// which add entries by writing mcp.json (unless MCPTRAY_TEST_ASK_EDITS=1).
var trustConfigEdits bool

// usageError is a bad command line: exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// Options are what only package main may give the commands.
type Options struct {
	// NewDesktop makes the tray app's UI for `mcptray run`; nil in a build
	// without the desktop UI (`go build -tags headless`), where run works
	// like daemon.
	NewDesktop func() Desktop
	// ServeGoogle runs `serve gcal|gmail ARGS…` (args without "serve") in
	// this process; nil for mcptray's way, an exec of mcptray-google.
	// Test binaries, which link the Google servers, set it.
	ServeGoogle func(ctx context.Context, args []string) error
}

// Desktop is the tray app's UI, as `mcptray run` drives it.
type Desktop interface {
	// Notifier shows events as desktop notifications.
	Notifier() events.Notifier
	// Run blocks on the main goroutine until the UI quits or ctx ends.
	// The window and the popup it opens are `mcptray window` and
	// `mcptray popup` on config and data.
	Run(ctx context.Context, core *app.Core, config, data string) error
	// Window (`mcptray window`) and Popup (`mcptray popup`) block on the
	// main goroutine until the window closes or ctx ends.
	Window(ctx context.Context, core *remote.Core, o WindowOptions) error
	Popup(ctx context.Context, core *remote.Core) error
}

// WindowOptions are `mcptray window`'s flags.
type WindowOptions struct {
	Tab         string // the tab to open on
	NeedAccount string // gcal or gmail was turned on with no Google account
	NoTray      string // why there is no tray: closing the window quits mcptray
}

// Main runs one command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer, opts Options) int {
	switch {
	case len(args) > 0 && isHelpFlag(args[0]):
		writeUsage(stdout)
		return exitOK
	case len(args) > 0 && (args[0] == "--version" || args[0] == "-version"):
		args = append([]string{"version"}, args[1:]...)
	case len(args) > 0 && args[0] == "help":
		return cmdHelp(args[1:], stdout, stderr, opts)
	}
	cmd := "run"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	path := resolve(append([]string{cmd}, args...))
	if c, ok := findCommand(path); ok && c.group() && !c.alsoCommand && asksHelp(args) {
		writeHelp(stdout, c, nil) // a group has no flags of its own
		return exitOK
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !asksHelp(args) {
		switch cmd {
		case "run", "daemon", "connect", "serve": // the ones that stay
			downstream.ReleaseHugeCodeMappings()
			if cmd == "run" || cmd == "daemon" { // the instance
				downstream.EvictCodeCache()
			}
			leanRuntime(cmd != "serve")
			defer startProfile(cmd)()
		}
		defer startMemstats(cmd)()
	}
	err := dispatch(ctx, cmd, args, stdout, stderr, opts)
	var (
		ue usageError
		hr helpRequest
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &hr):
		c, ok := findCommand(path)
		if !ok {
			c, _ = findCommand(cmd)
		}
		writeHelp(stdout, c, hr.flags)
		return exitOK
	case errors.Is(err, errUnknownCommand):
		if c, ok := findCommand(path); ok && asksHelp(args) {
			writeHelp(stdout, c, nil) // documented, not in this build yet
			return exitOK
		}
		fmt.Fprintf(stderr, "mcptray: unknown command %q\n%s\n", escapeText(cmd), usagePointer(""))
		return exitUsage
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "mcptray: %s\n%s\n", oneLine(err.Error()), usagePointer(path))
		return exitUsage
	default:
		fmt.Fprintf(stderr, "mcptray: %s\n", escapeText(err.Error()))
		return exitFailure
	}
}

// dispatch runs command cmd with the rest of the command line.
func dispatch(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer, opts Options) error {
	switch cmd {
	case "run":
		return cmdRun(ctx, "run", args, stderr, true, opts.NewDesktop)
	case "daemon":
		return cmdRun(ctx, "daemon", args, stderr, false, nil)
	case "window", "popup":
		return cmdWindow(ctx, cmd, args, opts.NewDesktop)
	case "status":
		return cmdStatus(ctx, args, stdout)
	case "toggle":
		return cmdToggle(ctx, args, stdout)
	case "restart":
		return cmdRestart(ctx, args, stdout)
	case "add":
		return cmdAdd(ctx, args, os.Stdin, stdout, stderr)
	case "remove":
		return cmdRemove(ctx, args, stdout)
	case "tools":
		return cmdTools(ctx, args, stdout)
	case "approve":
		return cmdApprove(ctx, args, stdout)
	case "logs":
		return cmdLogs(ctx, args, stdout)
	case "events":
		return cmdEvents(ctx, args, stdout)
	case "history":
		return cmdHistory(ctx, args, stdout)
	case "connect":
		return cmdConnect(ctx, args, os.Stdin, stdout, stderr)
	case "setup":
		return cmdSetup(ctx, args, os.Stdin, stdout, stderr)
	case "import":
		return cmdImport(ctx, args, os.Stdin, stdout, stderr)
	case "token":
		return cmdToken(args, stdout)
	case "inbox":
		return cmdInbox(ctx, args, os.Stdin, stdout, stderr)
	case "inputs":
		return cmdInputs(ctx, args, stdout)
	case "serve":
		return cmdServe(ctx, args, opts.ServeGoogle)
	case "ssh":
		return cmdSSH(ctx, args, os.Stdin, stdout, stderr)
	case "secret":
		return cmdSecret(ctx, args, os.Stdin, stdout, stderr)
	case "auth":
		return cmdAuth(ctx, args, os.Stdin, stdout, stderr)
	case "version":
		return cmdVersion(args, stdout)
	}
	return errUnknownCommand
}

// cmdHelp is `mcptray help [COMMAND...]`: the list of commands, or what
// `mcptray COMMAND... --help` prints.
func cmdHelp(args []string, stdout, stderr io.Writer, opts Options) int {
	switch {
	case len(args) == 0:
		writeUsage(stdout)
		return exitOK
	case args[0] == "help" || asksHelp(args):
		c, _ := findCommand("help")
		writeHelp(stdout, c, nil)
		return exitOK
	}
	path := resolve(args)
	if path == "" || path != strings.Join(args, " ") {
		known := ""
		if path != "" {
			known = path
		}
		fmt.Fprintf(stderr, "mcptray: no command %q\n%s\n", escapeText(strings.Join(args, " ")), usagePointer(known))
		return exitUsage
	}
	return Main(append(args, "--help"), stdout, stderr, opts)
}
