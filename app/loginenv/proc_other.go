//go:build !unix

package loginenv

import "os/exec"

func setGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// hasControllingTerminal: on Windows there is no login shell to read, so
// answer as if a terminal had started mcptray.
func hasControllingTerminal() bool { return true }
