//go:build unix

package testdaemon

import (
	"os"
	"syscall"
)

// terminate asks the daemon to stop (SIGTERM: a graceful shutdown).
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
