package mcptest

import (
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// detachedAttr starts a child with no console and in a process group of
// its own, the nearest Windows has to setsid. It stays in its server's
// Job Object all the same: that is what the Windows tests prove.
func detachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP}
}

// notifyHold delivers nothing: Windows has no SIGUSR1, and the laggard's
// hold tool holds until the process ends.
func notifyHold(chan<- os.Signal) {}
