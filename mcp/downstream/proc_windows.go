package downstream

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// serverProcAttr starts a server suspended, so startFamily puts it in its
// Job Object before it runs; in a process group of its own (a Ctrl-C in
// mcptray's console is not its), and with no console window of its own.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW,
	}
}

// procStart is pid's creation time (100 ns units since 1601), 0 when it
// cannot be read: with the pid, it tells a process from a later one that
// reuses the pid.
func procStart(pid int) uint64 {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return 0
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime)
}

// ReapGroup has nothing to reap on Windows: a dead instance's servers
// were in Job Objects that closed with it, and ended with them.
func ReapGroup(pgid int, instance string) (int, error) { return 0, nil }

// ReapInstance has nothing to reap on Windows, like ReapGroup.
func ReapInstance(instance string) (int, error) { return 0, nil }
