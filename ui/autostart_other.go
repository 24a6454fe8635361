//go:build !windows

package ui

import (
	"os"
	"runtime"
)

// defaultAutostart is this platform's autostart for exe: a LaunchAgent on
// macOS, an XDG autostart entry elsewhere.
func defaultAutostart(exe string) (autostart, error) {
	if runtime.GOOS == "darwin" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, err
		}
		return launchAgent(home, exe), nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, err
	}
	return xdgAutostart(dir, exe, xdgConfigDirs()...), nil
}
