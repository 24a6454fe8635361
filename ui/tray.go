package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/godbus/dbus/v5"

	"github.com/mcptray/mcptray/assets"
)

// sessionBusReachable reports whether a session D-Bus answers. Fyne's tray
// (fyne.io/systray) needs one: without it, quitting the app panics.
func sessionBusReachable() bool {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// setTray gives the app a tray icon and menu: "Open mcptray" shows w, "Quit"
// calls quit. It reports false, and does nothing, when there can be no tray
// (the driver has none, or no session bus is reachable).
func setTray(a fyne.App, w fyne.Window, quit func()) bool {
	desk, ok := a.(desktop.App)
	if !ok || !sessionBusReachable() {
		return false
	}
	open := fyne.NewMenuItem("Open mcptray", func() {
		w.Show()
		w.RequestFocus()
	})
	quitItem := fyne.NewMenuItem("Quit", quit)
	quitItem.IsQuit = true // so Fyne adds no Quit of its own
	desk.SetSystemTrayIcon(assets.Icon)
	desk.SetSystemTrayMenu(fyne.NewMenu("mcptray", open, fyne.NewMenuItemSeparator(), quitItem))
	return true
}
