package app

import (
	"path/filepath"

	"github.com/mcptray/mcptray/app/config"
)

// DefaultDataDir is where mcptray keeps its database, logs and socket unless
// --data or MCPTRAY_DATA says otherwise (config.DefaultDataDir).
func DefaultDataDir() (string, error) { return config.DefaultDataDir() }

// Paths inside the data dir.
func lockPath(data string) string { return filepath.Join(data, "mcptray.lock") }
func dbPath(data string) string   { return filepath.Join(data, "mcptray.db") }
func logsDir(data string) string  { return filepath.Join(data, "logs") }

// LogPath is the log file of server name in data dir data.
func LogPath(data, name string) string { return filepath.Join(logsDir(data), LogFileName(name)) }
