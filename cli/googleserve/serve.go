package googleserve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/mcptray/mcptray/app/config"
	"github.com/mcptray/mcptray/app/googlekeys"
	"github.com/mcptray/mcptray/mcp/downstream"
	"github.com/mcptray/mcptray/mcp/servers/google/calendar"
	"github.com/mcptray/mcptray/mcp/servers/google/gmail"
)

// Servers are the servers mcptray-google runs.
var Servers = []string{"gcal", "gmail"}

const usage = `usage: mcptray-google serve gcal|gmail [--account EMAIL] [--config FILE] [--data DIR]

mcptray-google runs mcptray's Google servers on stdio. mcptray starts it
for the mcp.json entries {"command": "${self}", "args": ["serve", "gcal"]}
and {"command": "${self}", "args": ["serve", "gmail"]}; see mcptray help serve.
`

// usageError is a command line that is not one of Serve's.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// Main runs mcptray-google's command line (os.Args[1:]) and returns the
// exit code: 0, 1 for a failure, 2 for a usage error, each with one line
// on stderr.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprint(stderr, "mcptray-google: expected serve gcal|gmail\n"+usage)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := Serve(ctx, args[1:])
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "mcptray-google: %s\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "mcptray-google: %s\n", err)
		return 1
	}
}

// Serve runs the Google server args[0] ("gcal" or "gmail") with the
// flags that follow on stdin and stdout, until the client closes stdin or
// ctx ends: `mcptray serve gcal …` without the "serve".
func Serve(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError{"serve takes gcal or gmail"}
	}
	name := args[0]
	if name != "gcal" && name != "gmail" {
		return usageError{fmt.Sprintf("no Google server %q (gcal, gmail)", name)}
	}
	f := flag.NewFlagSet("serve "+name, flag.ContinueOnError)
	f.SetOutput(io.Discard)
	account := f.String("account", "", "the default `EMAIL` of the tools")
	configPath := f.String("config", "", "the mcp.json to read")
	data := f.String("data", "", "the data dir")
	if err := f.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if f.NArg() > 0 {
		return usageError{fmt.Sprintf("serve %s takes no argument, got %q", name, f.Arg(0))}
	}
	var err error
	if *configPath == "" {
		if *configPath, err = config.DefaultPath(); err != nil {
			return err
		}
	}
	if *data == "" {
		if *data, err = config.DefaultDataDir(); err != nil {
			return err
		}
	}
	lean()
	if name == "gmail" {
		return serveGmail(ctx, *account, *configPath, *data)
	}
	return serveGcal(ctx, *account, *configPath, *data)
}

// lean keeps a server's resident memory small, as mcptray does for its
// own long-running commands: the binary's code mappings that nothing
// wrote to are dropped from memory once started, and the garbage collector
// runs when the heap grew by half (unless GOGC says otherwise).
func lean() {
	downstream.ReleaseHugeCodeMappings()
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}

// serveGcal is the Google Calendar MCP server on stdio, on the accounts of
// data dir data and the keyring, with x-mcptray.google from the mcp.json
// at configPath. A bad setting ends it at once with the reason, which
// `mcptray status` shows.
func serveGcal(ctx context.Context, account, configPath, data string) error {
	home, _ := os.UserHomeDir()
	s, err := readSettings(configPath, home)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := calendar.NewFromConfig(calendar.Config{
		Accounts:         googlekeys.Accounts(data, logger),
		Account:          account,
		DataDir:          data,
		CalendarPoll:     s.CalendarPoll,
		CalendarReminder: s.CalendarReminder,
		Logger:           logger,
	})
	if err != nil {
		return err
	}
	return srv.ServeStdio(ctx)
}

// serveGmail is the Gmail MCP server on stdio, on the accounts of data dir
// data and the keyring, with x-mcptray.google and x-mcptray.localRoots
// from the mcp.json at configPath. A bad setting ends it at once with the
// reason, which `mcptray status` shows.
func serveGmail(ctx context.Context, account, configPath, data string) error {
	home, _ := os.UserHomeDir()
	s, err := readSettings(configPath, home)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv, err := gmail.NewFromConfig(gmail.Config{
		Accounts:    googlekeys.Accounts(data, logger),
		Account:     account,
		DataDir:     data,
		GmailPoll:   s.GmailPoll,
		GmailSend:   s.GmailSend,
		DownloadDir: s.DownloadDir,
		LocalRoots:  s.LocalRoots,
		Home:        home,
		Logger:      logger,
	})
	if err != nil {
		return err
	}
	return srv.ServeStdio(ctx)
}
