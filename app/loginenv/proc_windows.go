package loginenv

import "os/exec"

// noLoginShell is why Windows reads no login shell: a program the
// desktop starts there already has the user's PATH (from the registry),
// so servers get mcptray's own environment.
const noLoginShell = "Windows: servers get mcptray's own environment, which has the user's PATH there"

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
