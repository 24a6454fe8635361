package ui

import (
	"os"

	"fyne.io/fyne/v2"
	fynedesktop "fyne.io/fyne/v2/driver/desktop"
	"github.com/godbus/dbus/v5"
)

// systemTray returns the tray host, or nil and why the app can have no
// tray: the driver has none, or no session D-Bus is reachable (the tray
// library, fyne.io/systray, panics on Quit without one).
func systemTray(a fyne.App) (systemTrayHost, string) {
	desk, ok := a.(fynedesktop.App)
	if !ok {
		return nil, "No tray icon: this platform's Fyne driver has no system tray. Closing this window quits mcptray."
	}
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		why := "no D-Bus session bus (" + err.Error() + ")"
		if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
			why = "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)"
		}
		return nil, "No tray icon: " + why + ". Closing this window quits mcptray."
	}
	conn.Close()
	return newSystemTrayHost(desk), ""
}

// trayHostRunning reports whether a tray host (a StatusNotifierWatcher, such
// as a desktop panel) is on the session bus to show the tray icon.
func trayHostRunning() bool {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	var has bool
	err = conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	return err == nil && has
}
