//go:build !linux

package ui

import (
	"fyne.io/fyne/v2"
	fynedesktop "fyne.io/fyne/v2/driver/desktop"
)

// fyneTrayHost is the tray through Fyne's desktop.App, where the platform's
// tray needs Fyne's event loop (macOS, Windows). Unchecked checkboxes show
// as plain items there (see systray_linux.go).
type fyneTrayHost struct{ desk fynedesktop.App }

func newSystemTrayHost(desk fynedesktop.App) systemTrayHost { return fyneTrayHost{desk} }

func (h fyneTrayHost) setMenu(m trayMenu)      { h.desk.SetSystemTrayMenu(m.Menu) }
func (h fyneTrayHost) setIcon(r fyne.Resource) { h.desk.SetSystemTrayIcon(r) }
func (h fyneTrayHost) close()                  {}
