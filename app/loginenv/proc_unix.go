//go:build unix

package loginenv

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// noLoginShell is empty: Unix reads the login shell by Wanted's rule.
const noLoginShell = ""

// setGroup starts the shell in a session of its own: a process group to
// kill at the timeout, and no controlling terminal — an interactive shell
// started in a background group of mcptray's terminal (MCPTRAY_LOGIN_SHELL=on
// in a terminal) would stop on SIGTTOU when it takes the terminal.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	// The shell leads its session and group (Setsid): its pid is the group's id.
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return cmd.Process.Kill()
	}
	return nil
}

// hasControllingTerminal reports whether /dev/tty opens: it does only for
// a process with a controlling terminal (ENXIO otherwise).
func hasControllingTerminal() bool {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
