package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultDataDir is where mcptray keeps its database, logs and socket unless
// --data or MCPTRAY_DATA says otherwise: $XDG_STATE_HOME/mcptray (default
// ~/.local/state/mcptray) on Linux, the user config dir elsewhere.
func DefaultDataDir() (string, error) {
	if d := os.Getenv("MCPTRAY_DATA"); d != "" {
		return filepath.Abs(d)
	}
	if runtime.GOOS == "linux" {
		if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
			return filepath.Join(d, "mcptray"), nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("no home directory: set --data or MCPTRAY_DATA")
		}
		return filepath.Join(home, ".local", "state", "mcptray"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", errors.New("no user config directory: set --data or MCPTRAY_DATA")
	}
	return filepath.Join(d, "mcptray", "data"), nil
}
