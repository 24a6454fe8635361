//go:build !linux

package ui

import (
	"fyne.io/fyne/v2"
	fynedesktop "fyne.io/fyne/v2/driver/desktop"
)

// fyneTrayHost is the tray through Fyne's desktop.App, where the platform's
// tray needs Fyne's event loop (macOS, Windows: the tray's window gets its
// messages on the main thread). Unchecked checkboxes show as plain items
// there (see systray_linux.go). Main goroutine only.
//
// The icons are PNGs (assets), which Fyne converts to an .ico on Windows;
// the theme's SVG icons, Fyne's default, fail that conversion. An icon set
// before the menu waits for it: the tray starts with the menu, and the
// library refuses an icon before that ("tray not ready yet").
type fyneTrayHost struct {
	desk    fynedesktop.App
	started bool          // the menu was set: the tray is there
	icon    fyne.Resource // the icon to set once started; nil when set
}

func newSystemTrayHost(desk fynedesktop.App) systemTrayHost { return &fyneTrayHost{desk: desk} }

func (h *fyneTrayHost) setMenu(m trayMenu) {
	h.desk.SetSystemTrayMenu(m.Menu)
	if !h.started && h.icon != nil {
		h.desk.SetSystemTrayIcon(h.icon)
		h.icon = nil
	}
	h.started = true
}

func (h *fyneTrayHost) setIcon(r fyne.Resource) {
	if !h.started {
		h.icon = r
		return
	}
	h.desk.SetSystemTrayIcon(r)
}

func (h *fyneTrayHost) close() {}
