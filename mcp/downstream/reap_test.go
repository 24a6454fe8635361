//go:build linux

package downstream

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mcptray/mcptray/internal/testkit"
	"github.com/mcptray/mcptray/mcp/mcptest"
)

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestReapGroupKillsOnlyMarkedProcesses(t *testing.T) {
	marked := exec.Command(os.Args[0])
	marked.Env = mcptest.Env("sleeper", InstanceEnv+"=old-instance")
	marked.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := marked.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { marked.Wait(); close(exited) }()
	t.Cleanup(func() { marked.Process.Kill(); <-exited })
	pgid := marked.Process.Pid
	// The env is read from /proc once the child has exec'd the binary.
	if !testkit.Eventually(5*time.Second, func() bool { return len(mcptest.MarkedPids(InstanceEnv+"=old-instance")) == 1 }) {
		t.Fatal("marked sleeper not visible in /proc")
	}

	n, err := ReapGroup(pgid, "another-instance")
	if err != nil || n != 0 {
		t.Fatalf("ReapGroup with a foreign marker: %d, %v; want 0, nil", n, err)
	}
	if processGone(pgid) {
		t.Fatal("ReapGroup killed a process without the marker")
	}

	n, err = ReapGroup(pgid, "old-instance")
	if err != nil || n != 1 {
		t.Fatalf("ReapGroup: %d, %v; want 1, nil", n, err)
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("marked process survived ReapGroup")
	}
}

// A process that left its server's group (its own session) and carries a
// dead instance's marker is found by ReapInstance alone; another instance's
// is left alone.
func TestReapInstanceKillsMarkedProcessesInAnyGroup(t *testing.T) {
	start := func(instance string) (*exec.Cmd, chan struct{}) {
		cmd := exec.Command(os.Args[0])
		cmd.Env = mcptest.Env("sleeper", InstanceEnv+"="+instance)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		t.Cleanup(func() { cmd.Process.Kill(); <-exited })
		return cmd, exited
	}
	_, strayExited := start("dead-instance")
	other, _ := start("live-instance")
	if !testkit.Eventually(5*time.Second, func() bool {
		return len(mcptest.MarkedPids(InstanceEnv+"=dead-instance")) == 1 && len(mcptest.MarkedPids(InstanceEnv+"=live-instance")) == 1
	}) {
		t.Fatal("marked sleepers not visible in /proc")
	}
	if _, err := ReapGroup(other.Process.Pid, "dead-instance"); err != nil {
		t.Fatal(err)
	}

	n, err := ReapInstance("dead-instance")
	if err != nil || n != 1 {
		t.Fatalf("ReapInstance: %d, %v; want 1, nil", n, err)
	}
	select {
	case <-strayExited:
	case <-time.After(5 * time.Second):
		t.Fatal("the stray with the dead instance's marker survived ReapInstance")
	}
	if processGone(other.Process.Pid) {
		t.Fatal("ReapInstance killed another instance's process")
	}
	if _, err := ReapInstance(""); err == nil {
		t.Error("ReapInstance with no marker: no error")
	}
}

func TestReapGroupRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		pgid     int
		instance string
		want     string
	}{
		{1, "x", "reaping process group 1: not a server's group"},
		{-5, "x", "reaping process group -5: not a server's group"},
		{12345, "", "reaping process group 12345: no instance marker"},
	} {
		if _, err := ReapGroup(tc.pgid, tc.instance); err == nil || err.Error() != tc.want {
			t.Errorf("ReapGroup(%d, %q): %v, want %q", tc.pgid, tc.instance, err, tc.want)
		}
	}
}

// TestReaperWaitsInThePoller: a server's reaper waits for its exit parked
// in the poller (package exitwait), not inside waitid(2) for the server's
// whole life, where a garbage collection could stop the process with it.
func TestReaperWaitsInThePoller(t *testing.T) {
	exe, _ := os.Executable()
	p, err := startProcess(StdioSpec{Command: exe, Env: mcptest.Env("sleeper")}, exe, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.kill)
	state := mcptest.PollerWait("(*process).reap(", 5*time.Second)
	if state != "IO wait" {
		t.Errorf("the reaper is in state %q, want \"IO wait\"", state)
	}
}
