package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/loginenv"
)

// cmdRun starts the core, and the tray UI when newDesktop is set (`run` in
// a build with the desktop UI) and a display is there; without a display
// the tray app runs headless, like `daemon`. gui says the command was
// `run`; name is the command's (run or daemon).
func cmdRun(ctx context.Context, name string, args []string, stderr io.Writer, gui bool, newDesktop func() Desktop) error {
	fs := newFlags(name)
	logPath := fs.String("log", "", "`FILE` log to FILE (stdout and stderr too), rotated at 5 MB to FILE.1")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	configPath, data, err := fs.paths()
	if err != nil {
		return err
	}
	why := ""
	switch {
	case gui && newDesktop == nil:
		why = "this mcptray is built without the desktop UI: running headless (as `mcptray daemon`)"
	case gui && !hasDisplay():
		why = "no display found: running headless (as `mcptray daemon`)"
	}
	// Started by the desktop (no controlling terminal), the servers get the
	// login shell's PATH (app/loginenv: the rule, and MCPTRAY_LOGIN_SHELL).
	opts := app.Options{ConfigPath: configPath, DataDir: data, LoginShell: loginenv.Wanted(os.Getenv), TrustConfigEdits: trustConfigEdits}
	if *logPath != "" {
		w, err := app.OpenDaemonLog(*logPath, daemonLogMax)
		if err != nil {
			return fmt.Errorf("opening the log: %w", err)
		}
		opts.Logger = slog.New(slog.NewTextHandler(w, nil))
		stderr = w
	}
	var desk Desktop
	if gui && why == "" {
		desk = newDesktop() // the tray app shows events as desktop notifications
		opts.Notifier = desk.Notifier()
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
	go releaseAfterStartup(ctx, core)
	if !gui {
		return core.Run(ctx)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- core.Run(ctx) }()
	uiErr := desk.Run(ctx, core, configPath, data) // blocks on the main goroutine until Quit or ctx ends
	cancel()
	return errors.Join(uiErr, <-done)
}

// daemonLogMax is where --log's file rotates (tests make it small).
var daemonLogMax int64 = app.MaxLogSize
