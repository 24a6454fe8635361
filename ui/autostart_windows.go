package ui

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// runKey is where Windows keeps the current user's programs to start at
// login.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// runKeyAutostart is the "mcptray" value of the current user's Run key.
type runKeyAutostart struct{ command string }

func defaultAutostart(exe string) (autostart, error) {
	return runKeyAutostart{command: `"` + exe + `"`}, nil
}

func (r runKeyAutostart) Where() string { return `HKEY_CURRENT_USER\` + runKey + `\mcptray` }

func (r runKeyAutostart) Enabled() (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if err != nil {
		return false, fmt.Errorf("opening the Run key: %w", err)
	}
	defer k.Close()
	_, _, err = k.GetStringValue("mcptray")
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (r runKeyAutostart) SetEnabled(on bool) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("opening the Run key: %w", err)
	}
	defer k.Close()
	if on {
		return k.SetStringValue("mcptray", r.command)
	}
	if err := k.DeleteValue("mcptray"); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return fmt.Errorf("removing mcptray from the Run key: %w", err)
	}
	return nil
}
