package ui

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// noConsole keeps a window's process from opening a console window:
// mcptray.exe is a console program, and the tray app that starts it has
// none to share (console_windows.go).
func noConsole(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW}
}
