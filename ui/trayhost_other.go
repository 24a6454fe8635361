//go:build !linux

package ui

import (
	"fyne.io/fyne/v2"
	fynedesktop "fyne.io/fyne/v2/driver/desktop"
)

// systemTray returns the tray host, or nil and why the app can have no
// tray: the driver has none. On Windows the tray is the taskbar's
// notification area and on macOS the menu bar, both always there (Fyne's
// tray library adds the icon again when Explorer restarts).
func systemTray(a fyne.App) (systemTrayHost, string) {
	desk, ok := a.(fynedesktop.App)
	if !ok {
		return nil, "No tray icon: this platform's Fyne driver has no system tray. Closing this window quits mcptray."
	}
	return newSystemTrayHost(desk), ""
}

// trayHostRunning reports whether something shows the tray icon: always,
// here (see systemTray).
func trayHostRunning() bool { return true }
