package ui

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows/registry"
)

// runKey is where Windows keeps the current user's programs to start at
// login.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// runKeyAutostart is a value of the current user's Run key: present means
// on. Its data is the command line Windows runs at login.
type runKeyAutostart struct{ value, command string }

// defaultAutostart is the "mcptray" value of the Run key, which starts exe
// with no arguments (the tray app).
func defaultAutostart(exe string) (autostart, error) {
	return runKeyAutostart{value: "mcptray", command: `"` + exe + `"`}, nil
}

func (r runKeyAutostart) Where() string { return `HKEY_CURRENT_USER\` + runKey + `\` + r.value }

func (r runKeyAutostart) Enabled() (bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("opening the Run key: %w", err)
	}
	defer k.Close()
	_, _, err = k.GetStringValue(r.value)
	if errors.Is(err, registry.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading %s from the Run key: %w", r.value, err)
	}
	return true, nil
}

func (r runKeyAutostart) SetEnabled(on bool) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("opening the Run key: %w", err)
	}
	defer k.Close()
	if on {
		if err := k.SetStringValue(r.value, r.command); err != nil {
			return fmt.Errorf("adding %s to the Run key: %w", r.value, err)
		}
		return nil
	}
	if err := k.DeleteValue(r.value); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return fmt.Errorf("removing %s from the Run key: %w", r.value, err)
	}
	return nil
}
