//go:build !headless

package main

import (
	"context"
	"os"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/events"
	"github.com/mcptray/mcptray/app/remote"
	"github.com/mcptray/mcptray/cli"
	"github.com/mcptray/mcptray/ui"
	"github.com/mcptray/mcptray/ui/fynelocale"
)

// Fyne has read the locale by now; see package fynelocale.
func init() { fynelocale.Restore() }

// newDesktop makes the tray app's UI for `mcptray run`. `go build -tags
// headless` leaves it out (desktop_headless.go).
var newDesktop = func() cli.Desktop { return desktopUI{notes: ui.NewNotifier()} }

// desktopUI is the tray app's UI for cli's run command.
type desktopUI struct{ notes *ui.Notifier }

func (d desktopUI) Notifier() events.Notifier { return d.notes }

// Run blocks on the main goroutine until the UI quits or ctx ends. The
// window and the popup are this executable's `window` and `popup`.
func (d desktopUI) Run(ctx context.Context, core *app.Core, config, data string) error {
	leaveOwnConsole()
	o := ui.RunOptions{Notes: d.notes, Raise: core.RaiseWindow, Own: core.OwnWindowProcess, Release: cli.ReleaseMemory}
	if exe, err := os.Executable(); err == nil {
		o.Children = ui.ExecChildren(exe, config, data)
	} else {
		o.SSH = sshAliases{} // the window in this process
	}
	return ui.Run(ctx, core, o)
}

// Window is `mcptray window`.
func (d desktopUI) Window(ctx context.Context, core *remote.Core, o cli.WindowOptions) error {
	leaveOwnConsole()
	return ui.RunWindow(ctx, core, ui.WindowOptions{Tab: o.Tab, NeedAccount: o.NeedAccount, NoTray: o.NoTray, SSH: sshAliases{}})
}

// Popup is `mcptray popup`.
func (d desktopUI) Popup(ctx context.Context, core *remote.Core) error {
	leaveOwnConsole()
	return ui.RunPopup(ctx, core)
}
