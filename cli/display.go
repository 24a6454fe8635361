package cli

import "os"

// hasDisplay says whether a window can be shown: an X or Wayland display
// on Linux and the BSDs. Windows and macOS always have their desktop
// (display_desktop.go).
func hasDisplay() bool {
	if desktopAlways {
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}
