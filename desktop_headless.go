//go:build headless

package main

import "github.com/mcptray/mcptray/cli"

// newDesktop is nil: a headless build (`go build -tags headless`, `make
// build-headless`) has no tray app and no Fyne: `mcptray` runs like
// `mcptray daemon`, in a smaller binary that maps less memory.
var newDesktop func() cli.Desktop
