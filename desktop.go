//go:build !headless

package main

import (
	"context"

	"github.com/mcptray/mcptray/app"
	"github.com/mcptray/mcptray/ui"
	"github.com/mcptray/mcptray/ui/fynelocale"
)

// Fyne has read the locale by now; see package fynelocale.
func init() { fynelocale.Restore() }

// hasDesktopUI: this build has the tray app (Fyne). `go build -tags
// headless` leaves it out (desktop_headless.go).
const hasDesktopUI = true

// desktopUI is the tray app's UI for cmdRun.
type desktopUI struct{ notes *ui.Notifier }

func newDesktopUI() desktopUI { return desktopUI{notes: ui.NewNotifier()} }

func (d desktopUI) notifier() app.Notifier { return d.notes }

// run blocks on the main goroutine until the UI quits or ctx ends.
func (d desktopUI) run(ctx context.Context, core *app.Core) error {
	return ui.Run(ctx, core, d.notes, sshAliases{})
}
