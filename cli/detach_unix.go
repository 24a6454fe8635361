//go:build unix

package cli

import "syscall"

// detached is how connect starts the instance: in a session of its own, so
// that it outlives the connect (and the terminal) that started it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
