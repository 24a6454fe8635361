//go:build !headless

package main

import (
	"context"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/app/events"
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

// Run blocks on the main goroutine until the UI quits or ctx ends.
func (d desktopUI) Run(ctx context.Context, core *app.Core) error {
	leaveOwnConsole()
	return ui.Run(ctx, core, d.notes, sshAliases{})
}
