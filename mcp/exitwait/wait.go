package exitwait

import "os/exec"

// Wait waits for cmd, started, to exit and reaps it, as cmd.Wait does (it
// returns what cmd.Wait returns), without sleeping in a system call while
// the child runs.
func Wait(cmd *exec.Cmd) error {
	awaitExit(cmd.Process.Pid)
	return cmd.Wait()
}
