//go:build unix

package mcptest

import (
	"os"
	"os/signal"
	"syscall"
)

// detachedAttr starts a child in a session of its own (setsid): it leaves
// its parent's process group.
func detachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// notifyHold delivers SIGUSR1 on c (the laggard's hold tool).
func notifyHold(c chan<- os.Signal) { signal.Notify(c, syscall.SIGUSR1) }
