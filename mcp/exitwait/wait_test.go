//go:build unix

package exitwait

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/mcp/mcptest"
)

// TestWaitsInThePoller: while the child runs, the goroutine in Wait is
// parked in the poller ("IO wait"), not inside waitid(2) ("syscall"),
// where a garbage collection could deadlock against it; it returns the
// child's end once it comes.
func TestWaitsInThePoller(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Wait(cmd) }()
	t.Cleanup(func() { cmd.Process.Kill() })

	// Until it parks, the waiter runs or sits in pidfd_open or the first
	// waitid: PollerWait looks until it is parked, for 5 s at most.
	state := mcptest.PollerWait("exitwait.Wait(", 5*time.Second)
	if state != "IO wait" {
		t.Errorf("the goroutine in Wait is in state %q, want \"IO wait\"", state)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Errorf("exit %v (%v), want killed by SIGTERM", cmd.ProcessState, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return after the child was killed")
	}
}

// TestWaitReturnsWhatExecWaitDoes: the exit code of a child that has
// already exited, and of one that exits while waited for.
func TestWaitReturnsWhatExecWaitDoes(t *testing.T) {
	for _, script := range []string{"exit 3", "sleep 0.2; exit 3"} {
		cmd := exec.Command("sh", "-c", script)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if script == "exit 3" {
			time.Sleep(100 * time.Millisecond) // a zombie by now
		}
		err := Wait(cmd)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("%q: Wait = %v, want exit status 3", script, err)
		}
	}
}
