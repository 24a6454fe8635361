//go:build headless

package main

import (
	"context"

	"github.com/mcptray/mcptray/app"
)

// hasDesktopUI: a headless build (`go build -tags headless`, `make
// build-headless`) has no tray app and no Fyne: `mcptray` runs like
// `mcptray daemon`, in a smaller binary that maps less memory.
const hasDesktopUI = false

type desktopUI struct{}

func newDesktopUI() desktopUI                          { return desktopUI{} }
func (desktopUI) notifier() app.Notifier               { return nil }
func (desktopUI) run(context.Context, *app.Core) error { return nil }
