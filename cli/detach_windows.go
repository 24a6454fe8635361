package cli

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// detached is how connect starts the instance: in a process group of its
// own and without a console, so that it outlives the connect (and any
// console window) that started it.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
}
