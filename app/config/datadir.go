package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultDataDir is where mcptray keeps its database, logs and socket unless
// --data says otherwise: MCPTRAY_DATA when set, else [SystemDataDir].
func DefaultDataDir() (string, error) {
	if d := os.Getenv("MCPTRAY_DATA"); d != "" {
		return filepath.Abs(d)
	}
	return SystemDataDir()
}

// SystemDataDir is the platform's place for mcptray's data, whatever
// MCPTRAY_DATA says: $XDG_STATE_HOME/mcptray (default
// ~/.local/state/mcptray) on Linux, %LOCALAPPDATA%\mcptray on Windows
// (os.UserCacheDir: machine-local, not roamed like %APPDATA%, where
// mcp.json is), and the user config dir's mcptray/data elsewhere (macOS:
// ~/Library/Application Support/mcptray/data, beside mcp.json).
func SystemDataDir() (string, error) {
	switch runtime.GOOS {
	case "linux":
		if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
			return filepath.Join(d, "mcptray"), nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("no home directory: set --data or MCPTRAY_DATA")
		}
		return filepath.Join(home, ".local", "state", "mcptray"), nil
	case "windows":
		d, err := os.UserCacheDir()
		if err != nil {
			return "", errors.New("no %LOCALAPPDATA%: set --data or MCPTRAY_DATA")
		}
		return filepath.Join(d, "mcptray"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", errors.New("no user config directory: set --data or MCPTRAY_DATA")
	}
	return filepath.Join(d, "mcptray", "data"), nil
}
