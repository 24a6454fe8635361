//go:build windows || darwin

package cli

// desktopAlways: a program started in a Windows or macOS user session
// draws on that session's desktop, whatever DISPLAY says (it is unset
// there).
const desktopAlways = true
