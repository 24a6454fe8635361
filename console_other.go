//go:build !headless && !windows

package main

// leaveOwnConsole does nothing here: only Windows gives a console program
// started from the desktop a window of its own (console_windows.go).
func leaveOwnConsole() {}
