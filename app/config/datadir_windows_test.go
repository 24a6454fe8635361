package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWindowsPaths: mcp.json in %APPDATA%\mcptray, the data dir in
// %LOCALAPPDATA%\mcptray (MCPTRAY_DATA and MCPTRAY_CONFIG unset), as the
// real profile (under Wine, the prefix's) has them.
func TestWindowsPaths(t *testing.T) {
	t.Setenv("MCPTRAY_CONFIG", "")
	t.Setenv("MCPTRAY_DATA", "")
	if got, err := DefaultPath(); err != nil || got != filepath.Join(os.Getenv("APPDATA"), "mcptray", "mcp.json") {
		t.Errorf("DefaultPath = %q, %v; want it in %%APPDATA%%", got, err)
	}
	want := filepath.Join(os.Getenv("LOCALAPPDATA"), "mcptray")
	if got, err := DefaultDataDir(); err != nil || got != want {
		t.Errorf("DefaultDataDir = %q, %v; want %q", got, err, want)
	}
	if got, err := SystemDataDir(); err != nil || got != want {
		t.Errorf("SystemDataDir = %q, %v; want %q", got, err, want)
	}
}
