package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/mcptray/mcptray/app/remote"
)

// cmdWindow is `mcptray window` and `mcptray popup` (name): the main
// window, or the popup with the waiting requests, as a process of its
// own over the running instance's control API (app/remote). The tray app
// starts them; a person can too. They end when closed; while the
// instance restarts they wait for it.
func cmdWindow(ctx context.Context, name string, args []string, newDesktop func() Desktop) error {
	f := newFlags(name)
	wait := f.Duration("wait", 0, "`DURATION` wait up to DURATION for mcptray to start (the tray app's own windows do)")
	var o WindowOptions
	if name == "window" {
		f.StringVar(&o.Tab, "tab", "", "`TAB` the tab to open on (Servers, Inbox, Events, SSH, Google, Assistants, Settings)")
		f.StringVar(&o.NeedAccount, "need-account", "", "`SERVER` gcal or gmail was turned on with no Google account: open the Google tab for it")
		f.StringVar(&o.NoTray, "no-tray", "", "`WHY` there is no tray icon: the window says so, and closing it quits mcptray")
	}
	if err := parse(f, args, 0); err != nil {
		return err
	}
	config, data, err := f.paths()
	if err != nil {
		return err
	}
	if newDesktop == nil {
		return errors.New("this mcptray is built without the desktop UI: use `mcptray status` and the other commands")
	}
	if !hasDisplay() {
		return errors.New("no display found: the window needs a desktop session")
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	core, err := dialWait(ctx, config, data, log, *wait)
	if err != nil {
		return fmt.Errorf("%w (start mcptray first: `mcptray`)", err)
	}
	defer core.Close()
	desk := newDesktop()
	if name == "popup" {
		return desk.Popup(ctx, core)
	}
	return desk.Window(ctx, core, o)
}

// dialWait is remote.Dial, tried again for up to wait while no instance
// answers: the tray app opens its window at start (no tray to show), when
// its control socket may not listen yet.
func dialWait(ctx context.Context, config, data string, log *slog.Logger, wait time.Duration) (*remote.Core, error) {
	deadline := time.Now().Add(wait)
	for {
		core, err := remote.Dial(ctx, config, data, log)
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return core, err
		}
		time.Sleep(50 * time.Millisecond) // polling for a socket that does not exist yet
	}
}
