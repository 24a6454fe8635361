//go:build unix

package loginenv

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
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

// termGrace is how long the shell's group has, after SIGTERM, to run its
// traps before SIGKILL.
const termGrace = 300 * time.Millisecond

// killGroup ends the shell's process group: SIGTERM first, so that rc
// files' EXIT traps run (pyenv rehash removes its lock file in one; a
// shell killed outright leaves it, and every later shell of the person
// waits 60 s for it), then SIGKILL for what is still there after
// termGrace.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	// The shell leads its session and group (Setsid): its pid is the group's id.
	pgid := cmd.Process.Pid
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return cmd.Process.Kill()
	}
	// The group id stays taken while any member lives, so the SIGKILL
	// reaches this group or, once it is gone, nobody (ESRCH).
	time.AfterFunc(termGrace, func() { syscall.Kill(-pgid, syscall.SIGKILL) })
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
