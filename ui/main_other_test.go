//go:build !linux

package ui

// reportDozing does nothing here: Fyne's loop dozes on Linux only
// (doze.go), and the desktop-session tests that ask are Linux's.
func reportDozing() {}
