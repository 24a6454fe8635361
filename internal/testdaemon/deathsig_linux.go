package testdaemon

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel send cmd SIGTERM when the test binary dies.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
