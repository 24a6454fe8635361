//go:build unix && !linux

package downstream

import (
	"errors"
	"os"
	"syscall"
)

// serverProcAttr puts a server in its own process group. There is no
// parent-death signal here: the watchdog (stdin EOF) and ReapGroup's
// caller-side bookkeeping cover a crash of mcptray.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// watchdogProcAttr gives the watchdog its own group; it notices mcptray's
// death by EOF on its stdin.
func watchdogProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func selfExecutable() (string, error) { return os.Executable() }

// groupGone reports whether the group has no process left.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// ReapGroup is a no-op outside Linux: without /proc there is no safe way to
// tell a server's leftovers from an unrelated process that reuses the id.
func ReapGroup(pgid int, instance string) (int, error) { return 0, nil }

// ReapInstance is a no-op outside Linux, like ReapGroup.
func ReapInstance(instance string) (int, error) { return 0, nil }
