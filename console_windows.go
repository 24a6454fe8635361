//go:build !headless

package main

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// kernel32's console calls that golang.org/x/sys/windows does not wrap.
var (
	kernel32              = windows.NewLazySystemDLL("kernel32.dll")
	getConsoleProcessList = kernel32.NewProc("GetConsoleProcessList")
	freeConsole           = kernel32.NewProc("FreeConsole")
)

// leaveOwnConsole closes the console window Windows opened for the tray
// app, a console program, when it was started on its own — from the Start
// menu, Explorer or the Run key at login — and no other process shares
// the console; the app lives in the tray. Started from cmd or PowerShell,
// the console is theirs and stays. A no-op without a console (under Wine
// started from a Linux shell).
func leaveOwnConsole() {
	if getConsoleProcessList.Find() != nil || freeConsole.Find() != nil {
		return
	}
	var pids [2]uint32
	n, _, _ := getConsoleProcessList.Call(uintptr(unsafe.Pointer(&pids[0])), uintptr(len(pids)))
	if n == 1 {
		freeConsole.Call()
	}
}
