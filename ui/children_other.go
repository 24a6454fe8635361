//go:build !windows

package ui

import "os/exec"

// noConsole does nothing: only Windows gives a console program a window
// of its own (children_windows.go).
func noConsole(*exec.Cmd) {}
